"""JAX205 discarded-at-update: `x.at[i].set(v)` as a statement changes nothing."""

from __future__ import annotations

from typing import TypeGuard

import libcst as cst

from jaxlint.analysis.cst_text import code_of
from jaxlint.analysis.host_queries.at_updates import DISCARDED_AT_UPDATES, UPDATES
from jaxlint.analysis.unit_summary import UnitSummary
from jaxlint.engine.edits import Edit, Refusal
from jaxlint.engine.rule import Rule


class DiscardedAtUpdate(Rule):
    code = "JAX205"
    name = "discarded-at-update"
    severity = "error"
    fix_kind = "safe"
    summary = "`x.at[i].set(v)` as a statement: the updated copy is thrown away, x is unchanged"
    host_query = DISCARDED_AT_UPDATES

    @classmethod
    def may_apply(cls, unit: UnitSummary) -> bool:
        return cls.code in unit.host_candidates

    def visit_Expr(self, node: cst.Expr) -> None:
        base = _updated_base(node.value)
        if base is None:
            return
        method = node.value.func.attr.value  # type: ignore[attr-defined]  # `_updated_base` saw it
        self.report(
            node.value,
            f"`{code_of(base)}.at[...].{method}(...)` returns an updated copy, which this "
            f"statement throws away: JAX arrays are immutable, so `{code_of(base)}` is unchanged; "
            f"assign the result (`{code_of(base)} = {code_of(base)}.at[...].{method}(...)`)",
            fix=self._fix(node, base),
        )

    def _fix(self, node: cst.Expr, base: cst.BaseExpression) -> Edit | Refusal:
        if not _chain(base):
            return Refusal(f"`{code_of(base)}` is not a name or attribute chain to assign to")
        function = self.context.function
        if isinstance(base, cst.Name) and function is not None:
            name = base.value
            if name not in function.local_names and name not in function.params:
                return Refusal(
                    f"`{name}` is not a local name of `{function.name}`: assigning it there "
                    "would make it local (UnboundLocalError); return the updated array instead"
                )
        if isinstance(base, cst.Attribute) and self.context.traced:
            return Refusal(
                f"assigning `{code_of(base)}` in traced code would keep a tracer in an object "
                "(JAX202): return the updated array instead"
            )
        if isinstance(base, cst.Attribute) and not self._mutable_self_attribute(base):
            return Refusal(
                f"`{code_of(base.value)}` may be a frozen dataclass or pytree (a flax struct, a "
                f"NamedTuple, an equinox Module), where assigning to `{code_of(base)}` raises: "
                f"rebuild it with the updated field (`.replace(...)`, `eqx.tree_at`) by hand"
            )
        assignment = cst.Assign(targets=[cst.AssignTarget(target=base)], value=node.value)
        return Edit(
            replacements={node: assignment},
            description=f"{code_of(base)} = {code_of(base)}.at[...]...",
        )

    def _mutable_self_attribute(self, base: cst.Attribute) -> bool:
        """`self.x` in a method of a plain class (no decorator, no base): assignable."""
        function = self.context.function
        if function is None or function.class_info is None or not function.positional:
            return False
        info = function.class_info
        return (
            isinstance(base.value, cst.Name)
            and base.value.value == function.positional[0]
            and not info.decorator_names
            and all(b in ("object", "builtins.object") for b in info.base_names)
        )


def _updated_base(call: cst.BaseExpression) -> cst.BaseExpression | None:
    """`x` of `x.at[...].set(...)` and the other updates; None for any other expression."""
    if not (
        isinstance(call, cst.Call)
        and isinstance(call.func, cst.Attribute)
        and call.func.attr.value in UPDATES
        and isinstance(call.func.value, cst.Subscript)
    ):
        return None
    at = call.func.value.value
    if isinstance(at, cst.Attribute) and at.attr.value == "at":
        return at.value
    return None


def _chain(node: cst.BaseExpression) -> TypeGuard[cst.Name | cst.Attribute]:
    while isinstance(node, cst.Attribute):
        node = node.value
    return isinstance(node, cst.Name)
