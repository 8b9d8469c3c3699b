"""Text a print makes from values, as JAX201 detects it and its rewrite
(jaxlint.rewrites.debug_print) turns it into jax.debug.print fields."""

from __future__ import annotations

import libcst as cst

from jaxlint.engine.requests import Builtin

STATIC_ONLY = (
    "prints only static values: runs once per trace; left as is "
    "(use jax.debug.print to print on every call)"
)


def makes_text(expression: cst.BaseExpression, builtin: Builtin) -> bool:
    """Does this build a str from values: an f-string, `"%s" % x`, `str(x)`, `"".join(...)`..."""
    if isinstance(expression, cst.FormattedString):
        return "b" not in expression.prefix.lower()
    if isinstance(expression, cst.ConcatenatedString):
        return makes_text(expression.left, builtin) or makes_text(expression.right, builtin)
    if isinstance(expression, cst.BinaryOperation):
        if isinstance(expression.operator, cst.Modulo):
            return string_value(expression.left) is not None
        if isinstance(expression.operator, cst.Add):
            return is_text(expression.left, builtin) or is_text(expression.right, builtin)
        return False
    if isinstance(expression, cst.Call):
        if builtin(expression.func) in ("str", "repr", "ascii", "format"):
            return True
        func = expression.func
        return (
            isinstance(func, cst.Attribute)
            and func.attr.value in ("format", "join")
            and string_value(func.value) is not None
        )
    return False


def is_text(expression: cst.BaseExpression, builtin: Builtin) -> bool:
    return string_value(expression) is not None or makes_text(expression, builtin)


def string_value(node: cst.BaseExpression) -> str | None:
    if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
        value = node.evaluated_value
        return value if isinstance(value, str) else None
    return None
