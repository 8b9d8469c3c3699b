"""DISCARDED_AT_UPDATES: `x.at[i].set(v)` as a statement, its updated copy thrown away (JAX205)."""

from __future__ import annotations

import ast

from jaxlint.analysis.host_queries import HostQuery
from jaxlint.analysis.scope import ModuleIndex

# `.at[...]` methods that return an updated copy (`get` reads, so discarding it loses nothing)
UPDATES = frozenset(
    {"set", "add", "subtract", "multiply", "mul", "divide", "power", "min", "max", "apply"}
)


def _has_at(text: str, index: ModuleIndex, lines: range) -> bool:
    return ".at[" in text


def _discarded_update(node: ast.AST, statement: ast.stmt, index: ModuleIndex) -> bool:
    """An expression statement calling an update of `<x>.at[...]`."""
    assert isinstance(node, ast.Expr)  # (the query's node types)
    call = node.value
    return (
        isinstance(call, ast.Call)
        and isinstance(call.func, ast.Attribute)
        and call.func.attr in UPDATES
        and isinstance(call.func.value, ast.Subscript)
        and isinstance(call.func.value.value, ast.Attribute)
        and call.func.value.value.attr == "at"
    )


DISCARDED_AT_UPDATES = HostQuery(
    "discarded `.at[...]` updates", (ast.Expr,), _discarded_update, text=_has_at
)
