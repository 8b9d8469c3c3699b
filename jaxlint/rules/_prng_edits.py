"""What the PRNG rules' fixes share: finding a key argument in libcst, spelling `jax.random`."""

from __future__ import annotations

import ast

import libcst as cst

from jaxlint.engine.edits import ImportSpec
from jaxlint.engine.rule import UnitContext


def key_argument(context: UnitContext, call: cst.Call, key: ast.expr) -> cst.BaseExpression | None:
    """The libcst node of the argument of `call` the key analysis found at `key`."""
    span = context.index.span_of(key)
    for argument in call.args:
        found = context.span(argument.value)
        if (found.line, found.column) == (span.line, span.column):
            return argument.value
    return None


def random_module(context: UnitContext, call: cst.Call) -> tuple[str, tuple[ImportSpec, ...]]:
    """`jr` where the consumer is `jr.normal(...)`; else `jax.random` (importing jax)."""
    func = call.func
    if isinstance(func, cst.Attribute) and (context.resolve(func) or "").startswith("jax.random."):
        return cst.Module([]).code_for_node(func.value), ()
    return "jax.random", (ImportSpec("jax"),)
