"""JAX302 jit-of-fresh-callable: a jit of a callable made anew each time, so it compiles again."""

from __future__ import annotations

from collections.abc import Set as AbstractSet

import libcst as cst

from jaxlint.analysis.cst_text import code_of
from jaxlint.analysis.cst_walk import subtree as walk_cst
from jaxlint.analysis.cst_walk import walk
from jaxlint.analysis.host_queries.fresh_jits import (
    JIT_NAMES,
    PARTIALS,
    REPEATED_FRESH_JITS,
    STORING_METHODS,
    WRAPPING_TRANSFORMS,
    called_in_a_loop,
    escapes,
    methods_jitting_inside,
    names_used,
)
from jaxlint.analysis.jax_api import JIT_APIS
from jaxlint.analysis.names import target_names
from jaxlint.analysis.project_view import ProjectView
from jaxlint.analysis.scope import FunctionInfo
from jaxlint.analysis.unit_summary import UnitSummary
from jaxlint.engine.rule import Rule, UnitContext
from jaxlint.rules._codegen import names_in


class JitOfFreshCallable(Rule):
    code = "JAX302"
    name = "jit-of-fresh-callable"
    severity = "warning"
    fix_kind = "suggestion"
    summary = "jax.jit of a lambda, partial or nested def made anew per call: compiles every time"

    # host code: a jit of a fresh callable inside a loop, or in a function called in one
    host_query = REPEATED_FRESH_JITS

    @classmethod
    def needs_finished_index(cls, text: str, project: ProjectView) -> bool:
        # a method that jits a nested def, called in a loop by a class of another module
        looped = project.looped_methods
        return bool(looped) and not methods_jitting_inside(text).isdisjoint(looped)

    @classmethod
    def may_apply(cls, unit: UnitSummary) -> bool:
        return cls.code in unit.host_candidates

    def __init__(self, context: UnitContext) -> None:
        super().__init__(context)
        self._loops: list[FunctionInfo | None] = []  # the function each open loop is in
        self._loop_nodes: list[cst.For | cst.While] = []  # the open loops
        # per open loop: the names its target binds to items of a collection (not a count)
        self._items: list[set[str]] = []
        self._calls: set[int] = set()  # `jax.jit(...)` nodes called at once: `jax.jit(g)(x)`
        self._kept: set[int] = set()  # calls stored into a container as they are made

    def visit_For(self, node: cst.For) -> None:
        self._loops.append(self.context.function)
        self._loop_nodes.append(node)
        counted = isinstance(node.iter, cst.Call) and self.context.resolve(node.iter.func) in (
            "builtins.range",
        )
        self._items.append(set() if counted else {n.value for n in target_names(node.target)})

    def leave_For(self, original_node: cst.For) -> None:
        self._loops.pop()
        self._loop_nodes.pop()
        self._items.pop()

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._derive_items(node)

    def _derive_items(self, node: cst.Assign | cst.AnnAssign) -> None:
        """A name bound from the loop's item is the item too (`func = getattr(fns, name)`)."""
        if not self._items or not self._items[-1] or self._loops[-1] is not self.context.function:
            return
        if node.value is None or not names_in(node.value) & self._items[-1]:
            return
        targets = (
            [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
        )
        for target in targets:
            self._items[-1] |= {n.value for n in target_names(target)}

    def visit_While(self, node: cst.While) -> None:
        self._loops.append(self.context.function)
        self._loop_nodes.append(node)
        self._items.append(set())

    def leave_While(self, original_node: cst.While) -> None:
        self._loops.pop()
        self._loop_nodes.pop()
        self._items.pop()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        info = self.context.function
        if info is None or info.parent is None:
            return
        in_loop = self._in_loop_of(info.parent)
        # or made on every call of a function the module calls in a loop, and used there only
        # (`_weights(self, X)` jitting a nested solver, called once per `fit` iteration)
        if not in_loop and (
            not called_in_a_loop(info.parent, self.context.index) or escapes(info.name, info.parent)
        ):
            return
        if in_loop and self._items and _calls_any(node, self._items[-1]):
            return  # it calls the loop's item: another program per iteration (see visit_Call)
        for decorator in node.decorators:
            expression = decorator.decorator
            func = expression.func if isinstance(expression, cst.Call) else expression
            if self.context.resolve(func) in JIT_APIS or self._partial_of_jit(expression):
                captured = names_used(info) - info.local_names - set(info.params)
                what = f"`@{code_of(expression)}` on `{node.name.value}`"
                self._report(decorator, what, info.parent, captured, in_loop)

    def visit_Assign(self, node: cst.Assign) -> None:
        if any(isinstance(t.target, (cst.Subscript, cst.Attribute)) for t in node.targets):
            self._keep(node.value)  # `fns[name] = jax.jit(...)`
        self._derive_items(node)

    def _keep(self, value: cst.BaseExpression) -> None:
        """Note the calls `value` stores as it is made (through list, tuple and dict displays)."""
        if isinstance(value, cst.Call):
            self._kept.add(id(value))
        elif isinstance(value, (cst.List, cst.Tuple, cst.Set)):
            for element in value.elements:
                self._keep(element.value)
        elif isinstance(value, cst.Dict):
            for entry in value.elements:
                if isinstance(entry, cst.DictElement):
                    self._keep(entry.value)

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value in STORING_METHODS:
            for argument in node.args:
                self._keep(argument.value)  # `levels.append({"apply": jax.jit(...)})`
        if isinstance(func, cst.Call):
            self._calls.add(id(func))
        last = func.attr.value if isinstance(func, cst.Attribute) else getattr(func, "value", None)
        if last not in JIT_NAMES or not node.args:
            return  # most calls: no name lookup
        context = self.context
        if context.resolve(func) not in JIT_APIS or id(node) in self._kept:
            return
        info = context.function
        if info is None and not self._loops:
            return  # once, at import
        if info is not None and (context.traced or info.name == "__init__"):
            return  # inlined into the enclosing trace / built once per instance
        callable_ = node.args[0].value
        fresh = self._fresh(callable_, info)
        if fresh is None:
            return
        # a def nested outside the loop is one function object for every iteration: a cache
        # hit; made anew only when the enclosing function runs again
        in_loop = self._in_loop_of(info) and not isinstance(callable_, cst.Name)
        if not in_loop and not (
            id(node) in self._calls
            and info is not None
            and called_in_a_loop(info, self.context.index)
        ):
            # built once per call of a function nothing here calls repeatedly (a test, `main`),
            # or built and kept (a factory, a training loop's step)
            return
        made, captured = fresh
        if in_loop and self._wraps_per_iteration(callable_):
            # `kernel = make_kernel(i)` then `jax.jit(jax.vmap(kernel))`: another function
            # each iteration, each compiled once, which a hoisted jit could not share
            return
        if in_loop and self._items and _calls_any(callable_, self._items[-1]):
            # it calls the loop's item (`for alg in algorithms: jax.jit(lambda x: alg(x))`):
            # each iteration is another program, which a hoisted jit would compile as often
            return
        shown = code_of(callable_) if isinstance(callable_, cst.Name) else made
        what = f"`{code_of(node.func)}({shown})`"
        if isinstance(callable_, cst.Name):
            what += f" ({made})"
        self._report(node, what, info, captured, in_loop)

    def _fresh(
        self, callable_: cst.BaseExpression, info: FunctionInfo | None
    ) -> tuple[str, set[str]] | None:
        """How the callable is made anew each time it is evaluated, and the names it captures;
        None when it is not made anew."""
        if isinstance(callable_, cst.Lambda):
            params = {p.name.value for p in callable_.params.params}
            return "lambda ...", _read_names(callable_.body) - params
        if isinstance(callable_, cst.Call) and self.context.resolve(callable_.func) in PARTIALS:
            return "functools.partial(...)", set().union(
                *(_read_names(a.value) for a in callable_.args[1:])
            )
        if isinstance(callable_, cst.Call):
            transform = self.context.resolve(callable_.func)
            if transform in WRAPPING_TRANSFORMS:
                return f"{transform}(...)", set().union(
                    *(_read_names(a.value) for a in callable_.args)
                )
        if isinstance(callable_, cst.Name) and info is not None:
            for nested in self.context.index.functions:
                if nested.parent is info and nested.name == callable_.value:
                    own = nested.local_names | set(nested.params)
                    return f"a def nested in `{info.name}`", names_used(nested) - own
        return None

    def _wraps_per_iteration(self, callable_: cst.BaseExpression) -> bool:
        """Is the callable a transform of a function the innermost loop binds anew on each
        iteration (a name its body assigns or defines, or its target)?"""
        if not isinstance(callable_, cst.Call) or not callable_.args or not self._loop_nodes:
            return False
        wrapped = names_in(callable_.args[0].value)
        loop = self._loop_nodes[-1]
        bound: set[str] = set()
        if isinstance(loop, cst.For):
            bound |= {n.value for n in target_names(loop.target)}
        for node in walk_cst(loop.body):
            if isinstance(node, cst.FunctionDef):
                bound.add(node.name.value)
            elif isinstance(node, cst.AssignTarget):
                bound |= {n.value for n in target_names(node.target)}
        return bool(wrapped & bound)

    def _in_loop_of(self, info: FunctionInfo | None) -> bool:
        """Is there a loop around us in `info`'s own body (None: module level)?"""
        return any(function is info for function in self._loops)

    def _partial_of_jit(self, expression: cst.BaseExpression) -> bool:
        return (
            isinstance(expression, cst.Call)
            and self.context.resolve(expression.func) in PARTIALS
            and bool(expression.args)
            and self.context.resolve(expression.args[0].value) in JIT_APIS
        )

    def _report(
        self,
        node: cst.CSTNode,
        what: str,
        info: FunctionInfo | None,
        captured: AbstractSet[str] = frozenset(),
        in_loop: bool = True,
    ) -> None:
        if in_loop:
            where = "on every iteration of the loop"
        else:
            # (only a function called in a loop is reported so: say so, as the loop may be in
            # another module, a base class's driver calling `self.<name>`)
            where = f"on every call of `{info.name}`, which a loop calls" if info else "each time"
        local = sorted(
            captured & (info.local_names | set(info.params)) if info is not None else set()
        )
        names = ", ".join(f"`{n}`" for n in local)
        them = "it as a parameter" if len(local) == 1 else "them as parameters"
        hoist = f" (it captures {names}: pass {them}, static ones via static_argnames)"
        hoist = hoist if local else ""
        self.report(
            node,
            f"{what} makes a new function {where}: jit caches compiled code per function "
            "object, so each one traces and compiles again (tens of ms or more each); define the "
            f"jitted function once at module level and call it{hoist}",
        )


def _calls_any(callable_: cst.CSTNode, names: set[str]) -> bool:
    """Does the callable call one of `names`, or a method of one (`alg(x)`, `partial(alg.step)`)?"""
    if not names:
        return False
    found = False

    class _Calls(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            nonlocal found
            root = node.func
            while isinstance(root, cst.Attribute):
                root = root.value
            if isinstance(root, cst.Name) and root.value in names:
                found = True
            if node is callable_ and node.args:  # `partial(alg.step, ...)`: its function
                first = node.args[0].value
                while isinstance(first, cst.Attribute):
                    first = first.value
                if isinstance(first, cst.Name) and first.value in names:
                    found = True

    walk(callable_, _Calls())
    return found


def _read_names(node: cst.CSTNode) -> set[str]:
    """Names read in an expression (`jnp` of `jnp.linalg.solve`, not `linalg` or `solve`)."""
    found: set[str] = set()
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.Name):
            found.add(current.value)
        elif isinstance(current, (cst.Attribute, cst.Arg)):  # not `.attr`, not `keyword=`
            stack.append(current.value)
        else:
            stack.extend(current.children)
    return found
