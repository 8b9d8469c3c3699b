"""FLOAT64_MARKERS: a 64-bit dtype named where x64 may be off, and x64 turned on (JAX401), plus
what JAX401 asks of module level: where arrays are first made."""

from __future__ import annotations

import ast

from jaxlint.analysis.host_queries import HostQuery
from jaxlint.analysis.names import dotted_ast
from jaxlint.analysis.scope import ModuleIndex

WIDE = {"float64": "float32", "int64": "int32", "uint64": "uint32", "complex128": "complex64"}
WIDE_STRINGS = {**WIDE, "f8": "float32", "i8": "int32", "u8": "uint32", "c16": "complex64"}
# other names of the 64-bit types in jax.numpy and NumPy (measured on jax 0.10.2:
# `jnp.zeros(2, dtype=jnp.float_)` is float32, with the truncation warning)
WIDE_ALIASES = {
    "float_": "float64",
    "double": "float64",
    "int_": "int64",
    "uint": "uint64",
    "complex_": "complex128",
    "cdouble": "complex128",
}
X64_OPTION = "jax_enable_x64"
TEXT_MARKERS = (*WIDE, "f8", "i8", "u8", "c16", X64_OPTION, *(f".{a}" for a in WIDE_ALIASES))
# calls that make JAX arrays when module level runs them
ARRAY_MAKERS = ("jax.numpy.", "jax.random.", "jax.device_put")


def _has_marker(text: str, index: ModuleIndex, lines: range) -> bool:
    return any(marker in text for marker in TEXT_MARKERS)


def _float64_marker(node: ast.AST, statement: ast.stmt, index: ModuleIndex) -> bool:
    """`<x>.update("jax_enable_x64", ...)`; where the module does not turn x64 on, `.float64`
    (and the other wide types) or a string naming one."""
    if isinstance(node, ast.Call):
        return _is_x64_update(node)
    if index.enables_x64:
        return False
    if isinstance(node, ast.Attribute):
        return node.attr in WIDE or node.attr in WIDE_ALIASES
    assert isinstance(node, ast.Constant)  # the last of the query's node types
    return isinstance(node.value, str) and node.value in WIDE_STRINGS


def _is_x64_update(node: ast.Call) -> bool:
    func = node.func
    return (
        isinstance(func, ast.Attribute)
        and func.attr == "update"
        and bool(node.args)
        and isinstance(node.args[0], ast.Constant)
        and node.args[0].value == X64_OPTION
    )


FLOAT64_MARKERS = HostQuery(
    "64-bit dtypes and x64 updates",
    (ast.Attribute, ast.Constant, ast.Call),
    _float64_marker,
    text=_has_marker,
)


def arrays_made_before(index: ModuleIndex, line: int) -> int | None:
    """The line of the first module-level statement before `line` calling jax.numpy or
    jax.random (making arrays at import), if any."""
    for statement in index.tree.body:
        if (statement.end_lineno or statement.lineno) >= line:
            return None  # the statement holding the update (an `if __name__`, a `try`) too
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for node in _executed_nodes(statement):
            if isinstance(node, ast.Call):
                qualified = index.imports.resolve(dotted_ast(node.func)) or ""
                if qualified.startswith(ARRAY_MAKERS):
                    return statement.lineno
    return None


def _executed_nodes(statement: ast.stmt) -> list[ast.AST]:
    """The nodes of a statement that run when it does (not the bodies of lambdas it makes)."""
    found: list[ast.AST] = []
    stack: list[ast.AST] = [statement]
    while stack:
        node = stack.pop()
        found.append(node)
        if not isinstance(node, ast.Lambda):
            stack.extend(ast.iter_child_nodes(node))
    return found
