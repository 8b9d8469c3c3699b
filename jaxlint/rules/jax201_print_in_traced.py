"""JAX201 print-in-traced: `print` in traced code runs once, at trace time, and shows tracers."""

from __future__ import annotations

import libcst as cst

from jaxlint.context import UnitContext
from jaxlint.fixes.print_rewrite import debug_print_edit
from jaxlint.rules.base import Rule
from jaxlint.unit_summary import UnitSummary


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
        traced = [a for a in node.args if holds_traced(context, a.value)]
        where = context.function.describe() if context.function else "this function"
        if traced:
            message = (
                f"print in traced {where} runs once, at trace time, and prints "
                f"{len(traced)} tracer argument{'s' if len(traced) > 1 else ''} instead of values; "
                "use jax.debug.print"
            )
        else:
            message = (
                f"print in traced {where} runs once per trace, not once per call; "
                "use jax.debug.print to print on every call"
            )
        self.report(node, message, fix=debug_print_edit(node, self.context.verify_target()))


def holds_traced(context: UnitContext, expression: cst.BaseExpression) -> bool:
    """True when an expression (including the parts of an f-string) holds a traced value."""
    if isinstance(expression, cst.FormattedString):
        return any(
            holds_traced(context, part.expression)
            for part in expression.parts
            if isinstance(part, cst.FormattedStringExpression)
        )
    return context.kind(expression).traced
