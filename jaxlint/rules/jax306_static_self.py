"""JAX306 static-self (opt-in): a jitted method with `self` static, on a class that is not
immutable: stale results, or a ValueError at the call."""

from __future__ import annotations

import libcst as cst

from jaxlint.analysis.instance_state import dataclass_frozen, frozen_by_design, stale_attributes
from jaxlint.analysis.jax_api import FILTERING_JITS, REFERENCE_SEMANTICS_APIS
from jaxlint.analysis.scope import ClassInfo
from jaxlint.analysis.unit_summary import UnitSummary
from jaxlint.engine.requests import MethodToHelper
from jaxlint.engine.rule import Rule


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
            position = info.decorator_position(root)
            name = info.class_info.node.name
            self.report(
                node.decorators[position],
                f"`{receiver}` is static in the jit of `{name}.{info.name}`, but {problem}; "
                "jit a module-level helper that takes the attributes the method reads instead",
                fix=self.context.rewrite(MethodToHelper(node, root)),
            )


def _mutability(info: ClassInfo, receiver: str, method: str) -> str | None:
    """Why hashing an instance does not make a safe cache key for `method`, or None when it
    does."""
    if frozen_by_design(info):
        return None
    frozen = dataclass_frozen(info)
    if frozen is not None:
        if frozen:
            return None
        return (
            "a `@dataclass` that is not frozen defines `__eq__` and sets `__hash__` to None: "
            "every call raises ValueError (Non-hashable static arguments are not supported)"
        )
    # what the method reads that a public method changes after construction
    stale = stale_attributes(info, receiver, method)
    if stale:
        by = sorted(set(stale.values()))
        return (
            f"`{'`, `'.join(stale)}` {'is' if len(stale) == 1 else 'are'} changed after "
            f"construction (by `{'`, `'.join(by)}`): the compiled code keeps the values it saw "
            "first, and later calls return stale results"
        )
    # identity hashing with attributes set only at construction compiles once per instance and
    # is correct (evosax's algorithms): a cost, not a wrong result
    return None
