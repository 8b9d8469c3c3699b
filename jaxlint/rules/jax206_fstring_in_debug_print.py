"""JAX206 fstring-in-debug-print: an f-string in jax.debug.print is formatted while tracing."""

from __future__ import annotations

import libcst as cst

from jaxlint.analysis.unit_summary import UnitSummary
from jaxlint.engine.requests import FStringToTemplate
from jaxlint.engine.rule import Rule
from jaxlint.rules._printed_values import PrintedValues

DEBUG_PRINT = "jax.debug.print"


class FstringInDebugPrint(Rule):
    code = "JAX206"
    name = "fstring-in-debug-print"
    severity = "warning"
    fix_kind = "safe"
    summary = "an f-string in jax.debug.print is formatted at trace time: it prints the tracer"

    @classmethod
    def may_apply(cls, unit: UnitSummary) -> bool:
        return unit.traced and DEBUG_PRINT in unit.called

    def visit_Call(self, node: cst.Call) -> None:
        context = self.context
        if not context.traced or context.resolve(node.func) != DEBUG_PRINT or not node.args:
            return
        first = node.args[0]
        if first.keyword is not None or first.star or not _formats_values(first.value):
            return
        printed = PrintedValues(context)
        fields = [
            part.expression
            for part in _fstring_parts(first.value)
            if printed.mentions_traced(part.expression)
        ]
        if not fields:
            return  # the text is made of static values: the same on every call
        shown = cst.Module([]).code_for_node(fields[0])
        self.report(
            first.value,
            f"the f-string given to jax.debug.print is formatted once, while JAX traces: "
            f"`{shown}` is a tracer then, so every call prints the tracer's text (and a format "
            f"spec such as `:.3f` raises TypeError); pass a template and the values "
            f'(`jax.debug.print("{{{_name(fields[0])}}}", {_name(fields[0])}={shown})`)',
            fix=context.rewrite(FStringToTemplate(node, first.value, printed.queries())),
        )


def _formats_values(value: cst.BaseExpression) -> bool:
    """An f-string (or implicit concatenation holding one) with at least one field."""
    return any(True for _ in _fstring_parts(value))


def _fstring_parts(value: cst.BaseExpression) -> list[cst.FormattedStringExpression]:
    if isinstance(value, cst.FormattedString):
        return [p for p in value.parts if isinstance(p, cst.FormattedStringExpression)]
    if isinstance(value, cst.ConcatenatedString):
        return _fstring_parts(value.left) + _fstring_parts(value.right)
    return []


def _name(expression: cst.BaseExpression) -> str:
    return expression.value if isinstance(expression, cst.Name) else "value"
