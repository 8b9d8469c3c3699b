"""ROW_BY_ROW_WORK: host code that does JAX work once per row and stacks or adds up the results
(`jnp.stack([f(r) for r in x])`, a list bound to a comprehension and stacked later, a loop adding
to a total), which `jax.vmap` does in one call (JAX305)."""

from __future__ import annotations

import ast

from jaxlint.analysis.ast_walk import walk_ast
from jaxlint.analysis.host_queries import HostQuery
from jaxlint.analysis.jax_api import STACKERS
from jaxlint.analysis.names import dotted_ast
from jaxlint.analysis.scope import ModuleIndex

STACKER_NAMES = frozenset(q.rsplit(".", 1)[1] for q in STACKERS)


def _stacks_or_adds(text: str, index: ModuleIndex, lines: range) -> bool:
    # a stacked comprehension, or one bound to a name (`rows = [...]`) stacked later, or a
    # loop adding to a total (`+=`, `.at[i].add`)
    return " for " in text and (
        any(f"{name}([" in text for name in STACKER_NAMES)
        or ("= [" in text and any(f"{name}(" in text for name in STACKER_NAMES))
        or "+=" in text
        or ".at[" in text
    )


def _row_by_row(node: ast.AST, statement: ast.stmt, index: ModuleIndex) -> bool:
    """A loop that may accumulate, or a stacker called on a comprehension (or on a name the
    module binds to one)."""
    if isinstance(node, ast.For):
        return may_accumulate(node)
    assert isinstance(node, ast.Call)  # the other of the query's node types
    func = node.func
    args = node.args
    # the stacker first: the names bound to comprehensions take a walk of the module
    return (
        1 <= len(args) <= 2  # `jnp.stack(rows, 0)`: JAX305 reads the axis
        and isinstance(args[0], (ast.ListComp, ast.Name))
        and index.imports.resolve(dotted_ast(func)) in STACKERS
        and (
            isinstance(args[0], ast.ListComp)
            # a name: a list built before (by a comprehension somewhere in the module)
            or args[0].id in _comprehension_names(index)
        )
    )


ROW_BY_ROW_WORK = HostQuery(
    "stacked comprehensions and accumulating loops",
    (ast.Call, ast.For),
    _row_by_row,
    text=_stacks_or_adds,
)


def may_accumulate(loop: ast.For) -> bool:
    """A straight-line body adding a call's result to a name (`total += f(x[i])`), adding to a
    container's items in a body that calls something (`grads["w"] += g / n`) or scattering into
    an array (`total = total.at[i].add(e)`), in a loop over `range(...)` or a name."""
    if loop.orelse or not all(
        isinstance(s, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr)) for s in loop.body
    ):
        return False
    counted = (
        isinstance(loop.iter, ast.Call)
        and isinstance(loop.iter.func, ast.Name)
        and loop.iter.func.id == "range"
    )
    if not (counted or isinstance(loop.iter, (ast.Name, ast.Attribute))):
        return False  # `.items()`, `zip(...)`: Python collections, not an array's rows
    calls = any(isinstance(n, ast.Call) for s in loop.body for n in walk_ast(s))
    return any(
        (
            isinstance(s, ast.AugAssign)
            and isinstance(s.op, (ast.Add, ast.Sub))
            and not any(isinstance(n, ast.JoinedStr) for n in walk_ast(s.value))
            and (
                (
                    isinstance(s.target, ast.Name)
                    and any(isinstance(n, ast.Call) for n in walk_ast(s.value))
                )
                # `grads["w"] += g / n`: the row's work may be in the statements before
                or (
                    isinstance(s.target, ast.Subscript)
                    and isinstance(_item_base(s.target), ast.Name)
                    and calls
                )
            )
        )
        or (
            isinstance(s, ast.Assign)
            and isinstance(s.value, ast.Call)
            and isinstance(s.value.func, ast.Attribute)
            and s.value.func.attr == "add"
            and isinstance(s.value.func.value, ast.Subscript)
        )
        for s in loop.body
    )


def _item_base(target: ast.expr) -> ast.expr:
    """The container whose item `target` stores (`grads` of `grads["w"]["b"]`), or `target`."""
    while isinstance(target, ast.Subscript):
        target = target.value
    return target


def _comprehension_names(index: ModuleIndex) -> frozenset[str]:
    """Names the module binds to a list comprehension (`rows = [f(r) for r in x]`), or to an
    empty list a `for` loop appends to (`rows = []`, then `rows.append(f(r))` in the loop)."""

    def compute() -> frozenset[str]:
        comprehensions: set[str] = set()
        empty: set[str] = set()
        appended: set[str] = set()
        for node in walk_ast(index.tree):
            if isinstance(node, ast.Assign):
                names = {t.id for t in node.targets if isinstance(t, ast.Name)}
                if isinstance(node.value, ast.ListComp):
                    comprehensions |= names
                elif isinstance(node.value, ast.List) and not node.value.elts:
                    empty |= names
            elif isinstance(node, ast.For):
                appended |= {
                    call.func.value.id
                    for statement in node.body
                    if isinstance(statement, ast.Expr)
                    and isinstance(call := statement.value, ast.Call)
                    and isinstance(call.func, ast.Attribute)
                    and call.func.attr == "append"
                    and isinstance(call.func.value, ast.Name)
                }
        return frozenset(comprehensions | (empty & appended))

    return index.memoized("jax305-comprehension-names", compute)
