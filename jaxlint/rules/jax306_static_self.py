"""JAX306 static-self (opt-in): a jitted method with `self` static, on a class that is not
immutable: stale results, or a ValueError at the call."""

from __future__ import annotations

import ast

import libcst as cst

from jaxlint.analysis.jax_api import FILTERING_JITS, REFERENCE_SEMANTICS_APIS
from jaxlint.analysis.scope import ClassInfo
from jaxlint.analysis.unit_summary import UnitSummary
from jaxlint.engine.rule import Rule
from jaxlint.rules.jax301_method_rewrite import helper_edit

DATACLASSES = frozenset({"dataclasses.dataclass", "chex.dataclass"})
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
            read = {
                n.attr
                for n in ast.walk(info.node)
                if isinstance(n, ast.Attribute)
                and isinstance(n.value, ast.Name)
                and n.value.id == receiver
            }
            problem = _mutability(info.class_info, receiver, read)
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


def _mutability(info: ClassInfo, receiver: str, read: set[str]) -> str | None:
    """Why hashing an instance does not make a safe cache key for a method reading the
    attributes `read`, or None when it does."""
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
    methods = info.methods
    written = sorted(
        {
            target.attr
            for name, method in methods.items()
            if name != "__init__"
            for node in ast.walk(method.node)
            if isinstance(node, (ast.Assign, ast.AugAssign))
            for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
            if isinstance(target, ast.Attribute)
            and isinstance(target.value, ast.Name)
            and target.value.id == receiver
        }
        & read  # stale only if the jitted method reads what changes
    )
    if written:
        return (
            f"`{'`, `'.join(written)}` {'is' if len(written) == 1 else 'are'} assigned outside "
            "`__init__`: the compiled code keeps the values it saw first, and later calls "
            "return stale results"
        )
    # identity hashing with attributes set only in `__init__` compiles once per instance and
    # is correct (evosax's algorithms): a cost, not a wrong result
    return None
