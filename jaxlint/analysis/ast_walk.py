"""`walk_ast(node)`: `ast.walk` without expression contexts and operators, and faster.

`ast.walk` runs two generators per node (`iter_child_nodes`, `iter_fields`) and yields every
`Load`, `Store` and `Add` too; the prefilters walk every statement that may hold what a rule
looks for, so that was most of their cost.
"""

from __future__ import annotations

import ast
from collections import deque
from collections.abc import Iterator

_AST = ast.AST
# fields that hold only expression contexts and operators (`Load()`, `Add()`, `[Lt()]`)
_OPERATOR_FIELDS = frozenset({"ctx", "op", "ops"})
_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}


def walk_ast(node: ast.AST) -> Iterator[ast.AST]:
    """`node` and every node under it, breadth first in `ast.walk`'s order, except expression
    contexts and operators."""
    todo = deque([node])
    pop, push, push_all = todo.popleft, todo.append, todo.extend
    while todo:
        node = pop()
        kind = type(node)
        fields = _CHILD_FIELDS.get(kind)
        if fields is None:
            fields = _CHILD_FIELDS[kind] = tuple(
                name for name in kind._fields if name not in _OPERATOR_FIELDS
            )
        for name in fields:
            value = getattr(node, name, None)
            if type(value) is list:
                push_all([item for item in value if isinstance(item, _AST)])
            elif isinstance(value, _AST):
                push(value)
        yield node


def own_nodes(body: list[ast.stmt]) -> Iterator[ast.AST]:
    """The nodes of a function's `body`, not entering the defs and classes nested in it."""
    stack: list[ast.AST] = list(body)
    while stack:
        node = stack.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                stack.append(child)


_BLOCK_FIELDS = ("body", "orelse", "finalbody", "handlers", "cases")


def statements(node: ast.AST) -> Iterator[ast.stmt]:
    """The statements under `node`, at any depth of blocks (`if`, `for`, `with`, `try`, nested
    `def`s and classes), without walking their expressions."""
    stack = [node]
    while stack:
        current = stack.pop()
        for name in _BLOCK_FIELDS:
            block = getattr(current, name, None)
            if type(block) is list:
                for child in reversed(block):
                    if isinstance(child, ast.stmt):
                        yield child
                    stack.append(child)
