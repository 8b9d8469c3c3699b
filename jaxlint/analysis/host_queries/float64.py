"""FLOAT64_MARKERS: a 64-bit dtype named where x64 may be off, and x64 turned on (JAX401), plus
what JAX401 asks of module level: where arrays are first made."""

from __future__ import annotations

import ast

from jaxlint.analysis.ast_walk import walk_ast
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
# (`.uint` alone would let every `.uint8` through the text filter)
TEXT_MARKERS = (
    *WIDE,
    *("f8", "i8", "u8", "c16", X64_OPTION),
    *(f".{a}" for a in WIDE_ALIASES if a != "uint"),
)
# calls that make JAX arrays when module level runs them
ARRAY_MAKERS = ("jax.numpy.", "jax.random.", "jax.device_put")


def _has_marker(text: str, index: ModuleIndex, lines: range) -> bool:
    if any(marker in text for marker in TEXT_MARKERS):
        return True
    # a helper whose callers in the module hand it a 64-bit dtype (`wide_dtype_parameters`)
    return "dtype" in text and any(
        index.module_defs[name].start_line in lines
        for name, _ in wide_dtype_parameters(index)
        if name in index.module_defs
    )


def _float64_marker(node: ast.AST, statement: ast.stmt, index: ModuleIndex) -> bool:
    """`<x>.update("jax_enable_x64", ...)`; where the module does not turn x64 on, `.float64`
    (and the other wide types) or a string naming one, and a call in a helper that callers of
    the module hand a 64-bit dtype (`wide_dtype_parameters`)."""
    if isinstance(node, ast.Call):
        if _is_x64_update(node):
            return True
        return not index.enables_x64 and _passes_wide_parameter(node, statement, index)
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


def wide_dtype_parameters(index: ModuleIndex) -> dict[tuple[str, str], tuple[str, str, str]]:
    """(module-level function, parameter) → (64-bit type, what was written, the caller) for
    each parameter some call in the module passes a 64-bit dtype: written there
    (`_rnorm(key, shape, dtype=jnp.float64)`) or the caller's own parameter with such a default
    (`def rnorm(..., dtype=jnp.float_): return _rnorm(key, shape, dtype=dtype)`). JAX401 reads
    the helper's request of JAX with that parameter as the caller's."""
    return index.memoized("jax401-wide-parameters", lambda: _wide_parameters(index))


def _wide_parameters(index: ModuleIndex) -> dict[tuple[str, str], tuple[str, str, str]]:
    found: dict[tuple[str, str], tuple[str, str, str]] = {}
    text = index.text
    # no 64-bit type named in the module: no call of it can hand one on
    if index.enables_x64 or "dtype" not in text or not any(m in text for m in TEXT_MARKERS):
        return found
    for caller in index.functions:
        if isinstance(caller.node, ast.Lambda):
            continue
        defaults = _wide_defaults(caller.node, index)
        for call in walk_ast(caller.node):
            if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Name):
                continue
            callee = index.module_defs.get(call.func.id)
            if callee is None or callee is caller:
                continue
            passed = [(k.arg, k.value) for k in call.keywords if k.arg]
            passed += list(zip(callee.positional, call.args, strict=False))
            for param, value in passed:
                if param not in callee.params or isinstance(value, ast.Starred):
                    continue
                wide = _wide_name(value, index)
                if wide is not None:
                    found.setdefault((callee.name, param), (wide, ast.unparse(value), caller.name))
                elif isinstance(value, ast.Name) and value.id in defaults:
                    wide, written = defaults[value.id]
                    found.setdefault((callee.name, param), (wide, written, caller.name))
    return found


def _wide_defaults(function: ast.AST, index: ModuleIndex) -> dict[str, tuple[str, str]]:
    """The function's parameters whose default names a 64-bit type: name → (type, as written)."""
    assert isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef))
    arguments = function.args
    positional = [*arguments.posonlyargs, *arguments.args]
    pairs = list(
        zip(
            positional[len(positional) - len(arguments.defaults) :], arguments.defaults, strict=True
        )
    )
    pairs += [(a, d) for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True) if d]
    found = {}
    for argument, default in pairs:
        wide = _wide_name(default, index)
        if wide is not None:
            found[argument.arg] = (wide, ast.unparse(default))
    return found


def wide_type(qualified: str) -> str | None:
    """`jax.numpy.float64`, `numpy.float_`, ... → the 64-bit type's name (`float64`); else
    None."""
    module, _, name = qualified.rpartition(".")
    if module not in ("numpy", "jax.numpy"):
        return None
    return name if name in WIDE else WIDE_ALIASES.get(name)


def _wide_name(value: ast.expr, index: ModuleIndex) -> str | None:
    return wide_type(index.imports.resolve(dotted_ast(value)) or "")


def _passes_wide_parameter(node: ast.Call, statement: ast.stmt, index: ModuleIndex) -> bool:
    """A call handing on a parameter of its module-level function that callers give a 64-bit
    dtype (the rule decides whether the call is a request of JAX)."""
    wide = wide_dtype_parameters(index)
    if not wide or not isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    values = [*node.args, *(k.value for k in node.keywords)]
    return any(isinstance(v, ast.Name) and (statement.name, v.id) in wide for v in values)
