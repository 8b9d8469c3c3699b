"""JAX304 bad-static-args: static arguments that make jit raise, at decoration or at the call."""

from __future__ import annotations

import difflib
from collections.abc import Callable, Sequence

import libcst as cst

from jaxlint.analysis.cst_text import UNREADABLE, code_of, literal_value
from jaxlint.analysis.host_queries.static_calls import (
    DISPLAYS_TO_STATIC_ARGS,
    called_in_module,
    static_roots,
)
from jaxlint.analysis.jax_api import STATIC_PROJECTIONS
from jaxlint.analysis.names import ImportTable
from jaxlint.analysis.scope import FunctionInfo, JitRoot, mapped_positions
from jaxlint.analysis.static_params import (
    annotated_as_array,
    annotated_as_mutable_container,
    list_only_use,
    used_as_concrete,
)
from jaxlint.analysis.unit_summary import UnitSummary
from jaxlint.engine.edits import Edit, Refusal
from jaxlint.engine.rule import Rule

UNHASHABLE = "ValueError: Non-hashable static arguments are not supported"
DISPLAYS = (cst.List, cst.Set, cst.Dict, cst.ListComp, cst.SetComp, cst.DictComp)
ARRAY_MAKERS = ("jax.numpy.", "jax.random.", "numpy.array", "numpy.asarray", "numpy.zeros")
# `jnp` functions that return shapes, dtypes and type information: hashable, fine as static
NOT_ARRAYS = STATIC_PROJECTIONS | {"jax.numpy.shape", "jax.numpy.size"}


class BadStaticArgs(Rule):
    code = "JAX304"
    name = "bad-static-args"
    severity = "error"
    fix_kind = "safe"
    summary = "static_argnums/static_argnames that make jit raise ValueError"
    host_query = DISPLAYS_TO_STATIC_ARGS

    @classmethod
    def may_apply(cls, unit: UnitSummary) -> bool:
        # a spec's problems all concern its static parameters; a call passing a display is a
        # host candidate wherever it is
        # a traced method may hand a tracer to a static parameter of a jitted method
        return (
            cls.code in unit.host_candidates
            or (unit.traced and bool(unit.methods_called & _static_methods(unit)))
            or (unit.traced and "jax.vmap" in unit.called and bool(_static_methods(unit)))
            or any(
                root.static_argnums or root.static_argnames or root.static_params
                for function in unit.jitted
                for root in function.roots
            )
        )

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        info = self.context.function
        if info is None or info.node is None:
            return
        index = self.context.index

        def called() -> bool:
            return called_in_module(info.name, index)

        for root in info.roots:
            for message in _spec_problems(info, root, called, index.imports):
                span = self.context.index.span_of(root.node)
                self.context.report_span(self, span, message)

    def visit_Call(self, node: cst.Call) -> None:
        index = self.context.index
        mapped = self._vmapped(node.func)
        if mapped is not None:
            self._check_mapped(node, *mapped)
            return
        if isinstance(node.func, cst.Name):
            roots = [
                (info, root, _positional(info, root))
                for info, root in static_roots(node.func.value, index)
            ]
        else:
            roots = self._own_method_roots(node.func)
        for info, root, positional in roots:
            static = root.static_params or frozenset()
            for number, argument in enumerate(node.args):
                if argument.star:
                    break
                param = argument.keyword.value if argument.keyword else None
                if param is None and number < len(positional):
                    param = positional[number]
                if param in static:
                    self._check_argument(argument, param, info)

    def _vmapped(self, func: cst.BaseExpression) -> tuple[cst.Call, cst.BaseExpression] | None:
        """`jax.vmap(f, ...)` called in place or through a local bound only to it: the vmap
        call, and `f`."""
        if isinstance(func, cst.Name):
            bindings = self.context.reaching_values(func)
            if len(bindings) != 1 or bindings[0][0] != "assign":
                return None
            func = bindings[0][1]  # type: ignore[assignment]  # assigned: an expression
        if not (isinstance(func, cst.Call) and self.context.resolve(func.func) == "jax.vmap"):
            return None
        if not func.args or func.args[0].keyword is not None:
            return None
        return func, func.args[0].value

    def _check_mapped(self, call: cst.Call, vmap: cst.Call, mapped: cst.BaseExpression) -> None:
        """A static parameter of a jitted function that `jax.vmap` maps over gets a batch
        tracer, which jit cannot hash: `jax.vmap(partial(self.move, slippage=False),
        in_axes=[0, None, 0])(keys, pos, directions)` with `action` static in `move`."""
        bound: set[str] = set()
        if isinstance(mapped, cst.Name):
            bindings = self.context.reaching_values(mapped)
            if len(bindings) == 1 and bindings[0][0] == "assign":
                mapped = bindings[0][1]  # type: ignore[assignment]  # assigned: an expression
        if isinstance(mapped, cst.Call) and self.context.resolve(mapped.func) == (
            "functools.partial"
        ):
            if not mapped.args or any(a.keyword is None for a in mapped.args[1:]):
                return  # positions bound by the partial: not followed
            bound = {a.keyword.value for a in mapped.args[1:] if a.keyword is not None}
            mapped = mapped.args[0].value
        if isinstance(mapped, cst.Name):
            roots = [
                (i, r, _positional(i, r)) for i, r in static_roots(mapped.value, self.context.index)
            ]
        else:
            roots = self._own_method_roots(mapped)
        if not roots or any(a.star or a.keyword is not None for a in call.args):
            return
        axes = _vmap_axes(vmap, len(call.args))
        if axes is None:
            return
        for info, root, positional in roots:
            static = (root.static_params or frozenset()) - bound
            free = [p for p in positional if p not in bound]
            for argument, axis, param in zip(call.args, axes, free, strict=False):
                if axis and param in static:
                    self.report(
                        argument.value,
                        f"`{code_of(argument.value)}` is mapped by `jax.vmap` into `{param}`, a "
                        f"static argument of jitted `{info.name}`: vmap passes a batch tracer, "
                        f"which jit cannot hash, so the call raises {UNHASHABLE}; give `{param}` "
                        "`in_axes` None, or make it a traced argument",
                        fix=Refusal(
                            "which of the two is meant is a design choice: change it by hand"
                        ),
                    )

    def _own_method_roots(
        self, func: cst.BaseExpression
    ) -> list[tuple[FunctionInfo, JitRoot, tuple[str, ...]]]:
        """`self.move(...)` in a method: the jit roots with static parameters of the class's
        decorated method `move`, and its parameters after `self`."""
        method = self.context.own_method(func)
        if method is None or not method.is_method:
            return []
        return [
            (method, root, method.positional[1:])
            for root in method.roots
            if root.via == "decorator" and root.static_params
        ]

    def _check_argument(self, argument: cst.Arg, param: str, info: FunctionInfo) -> None:
        value = argument.value
        what = None
        if self.context.certainly_traced(value):
            self.report(
                value,
                f"`{code_of(value)}` is a traced value passed to `{param}`, a static argument "
                f"of jitted `{info.name}`: static arguments are hashed to key the compile "
                f"cache, and a tracer cannot be, so the call raises {UNHASHABLE}; make "
                f"`{param}` a traced argument (drop it from the static ones) or pass a Python "
                "value",
                fix=Refusal("which of the two is meant is a design choice: change it by hand"),
            )
            return
        if isinstance(value, DISPLAYS):
            what = {cst.List: "a list", cst.Set: "a set", cst.Dict: "a dict"}.get(
                type(value), "a comprehension"
            )
        elif isinstance(value, cst.Call):
            qualified = self.context.resolve(value.func) or ""
            if qualified.startswith(ARRAY_MAKERS) and qualified not in NOT_ARRAYS:
                what = "an array"
        if what is None:
            return
        fix: Edit | Refusal
        listed = list_only_use(info, param) if isinstance(value, cst.List) else None
        if listed is not None:
            fix = Refusal(
                f"`{info.name}` uses `{param}` as a list ({listed}), where a tuple behaves "
                "differently: make it accept a tuple first"
            )
        elif isinstance(value, cst.List):
            fix = Edit(
                replacements={
                    value: cst.Tuple(
                        elements=_tuple_elements(value.elements),
                        lpar=[cst.LeftParen()],
                        rpar=[cst.RightParen()],
                    )
                },
                description="list → tuple (hashable, so jit can key its cache on it)",
            )
        else:
            fix = Refusal(f"{what} has no hashable spelling to put in its place")
        self.report(
            value,
            f"`{code_of(value)}` is {what} passed to `{param}`, a static argument of jitted "
            f"`{info.name}`: static arguments are hashed to key the compile cache, and {what} "
            f"cannot be, so the call raises {UNHASHABLE}; pass a tuple (or make `{param}` "
            "traced)",
            fix=fix,
        )


def _static_methods(unit: UnitSummary) -> set[str]:
    """The methods with static parameters of the classes the unit's functions belong to."""
    return {
        name
        for function in unit.functions
        if function.class_info is not None
        for name, method in function.class_info.all_methods().items()
        if any(r.via == "decorator" and r.static_params for r in method.roots)
    }


def _tuple_elements(elements: Sequence[cst.BaseElement]) -> list[cst.BaseElement]:
    """A one-element tuple needs its trailing comma."""
    items = list(elements)
    if len(items) == 1 and items[0].comma is cst.MaybeSentinel.DEFAULT:
        items[0] = items[0].with_changes(comma=cst.Comma())
    return items


def _vmap_axes(vmap: cst.Call, count: int) -> list[bool] | None:
    """Per positional argument of a call of `jax.vmap(f, in_axes)`: is it mapped? None when
    `in_axes` cannot be read (a name, a pytree of axes) or does not fit the call."""
    axes = next((a.value for a in vmap.args if a.keyword and a.keyword.value == "in_axes"), None)
    if axes is None and len(vmap.args) > 1 and vmap.args[1].keyword is None:
        axes = vmap.args[1].value
    value = 0 if axes is None else literal_value(axes)  # 0: the default
    if value is UNREADABLE:
        return None
    if isinstance(value, (tuple, list)) and len(value) != count:
        return None
    mapped = mapped_positions(value, count)
    return None if None in mapped else [bool(m) for m in mapped]


def _positional(info: FunctionInfo, root: JitRoot) -> tuple[str, ...]:
    return info.positional[1:] if root.bound_method else info.positional


def _spec_problems(
    info: FunctionInfo, root: JitRoot, called: Callable[[], bool], imports: ImportTable
) -> list[str]:
    """What in the jit's static spec raises, with JAX's message. `called()`: the module calls
    the function, and then its call sites show what is passed (an `Array` annotation on a
    static parameter whose callers pass `tuple(ts.tolist())` is only a loose annotation)."""
    problems = []
    positional = _positional(info, root)
    if info.vararg is None:
        bad = [n for n in root.static_argnums if not -len(positional) <= n < len(positional)]
        if bad:
            problems.append(
                f"`static_argnums={bad[0]}` on `{info.name}`, which takes {len(positional)} "
                f"positional argument{'s' if len(positional) != 1 else ''}: jit raises at "
                f'decoration "ValueError: Jitted function has static_argnums=({bad[0]},), but '
                f'only accepts {len(positional)} positional arguments."; count from 0'
                + (f" (`{positional[-1]}` is {len(positional) - 1})" if positional else "")
            )
    if info.kwarg is None:
        names = set(info.params)
        for name in root.static_argnames:
            if name in names:
                continue
            close = difflib.get_close_matches(name, list(info.params), n=1)
            hint = f"; did you mean `{close[0]}`?" if close else ""
            problems.append(
                f"`static_argnames` names `{name}`, which `{info.name}` has no parameter "
                f'called: jit raises at decoration "ValueError: Jitted function has invalid '
                f"argnames {{'{name}'}} in static_argnames\"{hint}"
            )
    for param in sorted(root.static_params or ()):
        if (
            annotated_as_array(info, param)
            and not called()
            and not used_as_concrete(info, param, imports)
        ):
            problems.append(
                f"`{param}` of `{info.name}` is annotated as an array and marked static: "
                f"arrays are not hashable, so every call raises {UNHASHABLE}; leave it traced"
            )
        elif annotated_as_mutable_container(info, param) and not called():
            problems.append(
                f"`{param}` of `{info.name}` is annotated as a list, dict or set and marked "
                f"static: those are not hashable, so a call passing one raises {UNHASHABLE}; "
                "take a tuple (or leave it traced)"
            )
    return problems
