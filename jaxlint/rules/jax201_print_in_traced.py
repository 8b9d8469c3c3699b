"""JAX201 print-in-traced: `print` in traced code runs once, at trace time, and shows tracers."""

from __future__ import annotations

import libcst as cst

from jaxlint.fixes.print_rewrite import debug_print_edit
from jaxlint.rules.base import Rule
from jaxlint.unit_summary import UnitSummary

STATIC_METADATA = frozenset({"shape", "dtype", "ndim", "size", "weak_type", "sharding"})


class PrintInTraced(Rule):
    code = "JAX201"
    name = "print-in-traced"
    severity = "warning"
    fix_kind = "verified"
    summary = "print in traced code runs once at trace time; use jax.debug.print"

    @classmethod
    def may_apply(cls, unit: UnitSummary) -> bool:
        return unit.traced and "builtins.print" in unit.called

    def visit_Call(self, node: cst.Call) -> None:
        context = self.context
        if not context.traced or context.resolve(node.func) != "builtins.print":
            return
        traced = [a for a in node.args if context.holds_traced(a.value)]
        if not traced and any(self.prints_metadata(a.value) for a in node.args):
            return  # `print(x.shape)`: static facts, deliberately printed at trace time
        where = context.function.describe() if context.function else "this function"
        plural = "s" if len(traced) > 1 else ""
        if traced and not context.abstract:
            message = (
                f"print in {where}, traced by autodiff, prints {len(traced)} tracer "
                f"argument{plural} instead of values; use jax.debug.print"
            )
        elif traced:
            message = (
                f"print in traced {where} runs once, at trace time, and prints {len(traced)} "
                f"tracer argument{plural} instead of values; use jax.debug.print"
            )
        else:
            message = (
                f"print in traced {where} runs once per trace, not once per call; "
                "use jax.debug.print to print on every call"
            )
        edit = debug_print_edit(node, context.verify_target(), context.holds_traced)
        self.report(node, message, fix=edit)

    def prints_metadata(self, expression: cst.BaseExpression) -> bool:
        """`x.shape`, `x.dtype`… of a traced value, alone or inside an f-string."""
        if isinstance(expression, cst.FormattedString):
            return any(
                self.prints_metadata(part.expression)
                for part in expression.parts
                if isinstance(part, cst.FormattedStringExpression)
            )
        return (
            isinstance(expression, cst.Attribute)
            and expression.attr.value in STATIC_METADATA
            and self.context.kind(expression.value).traced
        )
