"""JAX306 static-self (opt-in): a jitted method with `self` static, on a class that is not
immutable: stale results, or a ValueError at the call."""

from __future__ import annotations

import ast

import libcst as cst

from jaxlint.analysis.jax_api import FILTERING_JITS, REFERENCE_SEMANTICS_APIS
from jaxlint.analysis.names import dotted_ast
from jaxlint.analysis.scope import ClassInfo, FunctionInfo
from jaxlint.analysis.unit_summary import UnitSummary
from jaxlint.engine.rule import Rule
from jaxlint.rules.jax301_method_rewrite import helper_edit

DATACLASSES = frozenset({"dataclasses.dataclass", "chex.dataclass"})
# host callbacks: the function they are given runs on the host at every call, not in the trace
CALLBACKS = frozenset({"io_callback", "pure_callback", "callback", "id_tap"})
FROZEN_BY_DESIGN = frozenset(
    {"flax.struct.dataclass", "equinox.Module", "typing.NamedTuple", "flax.struct.PyTreeNode"}
)


class StaticSelf(Rule):
    code = "JAX306"
    name = "static-self"
    severity = "warning"
    fix_kind = "verified"
    opt_in = True
    summary = "jit with `self` static on a class that is not immutable: stale results or ValueError"

    @classmethod
    def may_apply(cls, unit: UnitSummary) -> bool:
        return any(f.class_info is not None for f in unit.jitted)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        info = self.context.function
        if info is None or info.class_info is None or not info.is_method or info.is_classmethod:
            return
        receiver = info.positional[0]
        for root in info.roots:
            if root.via != "decorator" or root.api in FILTERING_JITS | REFERENCE_SEMANTICS_APIS:
                continue
            if root.static_params is None or receiver not in root.static_params:
                continue
            problem = _mutability(info.class_info, receiver, info.name)
            if problem is None:
                continue
            position = info.node.decorator_list.index(root.node)  # type: ignore[union-attr]
            name = info.class_info.node.name
            self.report(
                node.decorators[position],
                f"`{receiver}` is static in the jit of `{name}.{info.name}`, but {problem}; "
                "jit a module-level helper that takes the attributes the method reads instead",
                fix=helper_edit(node, root, self.context),
            )


def _mutability(info: ClassInfo, receiver: str, method: str) -> str | None:
    """Why hashing an instance does not make a safe cache key for `method`, or None when it
    does."""
    decorators = set(info.decorator_names)
    if decorators & FROZEN_BY_DESIGN or set(info.base_names) & FROZEN_BY_DESIGN:
        return None
    for decorator, qualified in zip(info.node.decorator_list, info.decorator_names, strict=True):
        if qualified not in DATACLASSES:
            continue
        keywords = decorator.keywords if isinstance(decorator, ast.Call) else []
        if any(
            k.arg == "frozen" and isinstance(k.value, ast.Constant) and k.value.value is True
            for k in keywords
        ):
            return None
        return (
            "a `@dataclass` that is not frozen defines `__eq__` and sets `__hash__` to None: "
            "every call raises ValueError (Non-hashable static arguments are not supported)"
        )
    methods = info.all_methods()
    traced = _called_from(methods, [method], receiver)
    setup = _called_from(methods, ["__init__"], receiver)  # a base class's too
    read = {a for m in traced for a in _attributes(methods[m].node, receiver, ast.Load)}
    # what changes after construction: what the class's public methods (a setter, `fit`,
    # `load`, `reset`) assign, themselves or through the methods they call, unless they are
    # jitted and run this method inside their own trace (each trace then sees the new value)
    writers: dict[str, str] = {}  # attribute → the public method that changes it
    for name in methods:
        private = name.startswith("_") and name != "__call__"
        if private or name in setup or name in traced:
            continue
        reach = _called_from(methods, [name], receiver)
        if method in reach and methods[name].roots:
            continue  # a jitted method that sets it, then runs this one inside its own trace
        for m in reach:
            for attribute in _attributes(methods[m].node, receiver, ast.Store):
                writers.setdefault(attribute, name)
    # a method the jitted one runs writes it: each trace computes the value it then reads
    computed = {a for m in traced for a in _attributes(methods[m].node, receiver, ast.Store)}
    stale = sorted((writers.keys() & read) - computed)
    if stale:
        by = sorted({writers[a] for a in stale})
        return (
            f"`{'`, `'.join(stale)}` {'is' if len(stale) == 1 else 'are'} changed after "
            f"construction (by `{'`, `'.join(by)}`): the compiled code keeps the values it saw "
            "first, and later calls return stale results"
        )
    # identity hashing with attributes set only at construction compiles once per instance and
    # is correct (evosax's algorithms): a cost, not a wrong result
    return None


def _called_from(methods: dict[str, FunctionInfo], roots: list[str], receiver: str) -> set[str]:
    """`roots` and the methods they call (or pass on) through `self.name`, transitively."""
    seen: set[str] = set()
    pending = [r for r in roots if r in methods]
    while pending:
        name = pending.pop()
        if name in seen:
            continue
        seen.add(name)
        pending += [c for c in _self_calls(methods[name].node, receiver) if c in methods]
    return seen


def _self_calls(node: ast.AST, receiver: str) -> set[str]:
    """Names of `self.<name>` the method uses: the methods it calls, or hands to a
    `lax.scan`, a `partial`, a jit, and the properties it assigns, which run their setters
    (`_called_from` keeps those that are methods). Not a method handed to a host callback
    (`io_callback(self._save, ...)`): it runs on the host at every call, reading `self` then."""
    used = _attributes(node, receiver, ast.Load) | _attributes(node, receiver, ast.Store)
    return used - _callback_methods(node, receiver)


def _callback_methods(node: ast.AST, receiver: str) -> set[str]:
    return {
        call.args[0].attr
        for call in ast.walk(node)
        if isinstance(call, ast.Call)
        and (dotted_ast(call.func) or "").rsplit(".", 1)[-1] in CALLBACKS
        and call.args
        and isinstance(call.args[0], ast.Attribute)
        and isinstance(call.args[0].value, ast.Name)
        and call.args[0].value.id == receiver
    }


def _attributes(node: ast.AST, receiver: str, context: type[ast.expr_context]) -> set[str]:
    """`self.<attr>` read (Load) or assigned (Store, `+=` included) in a method."""
    return {
        n.attr
        for n in ast.walk(node)
        if isinstance(n, ast.Attribute)
        and isinstance(n.value, ast.Name)
        and n.value.id == receiver
        and isinstance(n.ctx, context)
    }
