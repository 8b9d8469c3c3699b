"""A read-only libcst traversal: `walk(node, visitor)` is `node.visit(visitor)` for a visitor
that changes nothing, without rebuilding (and revalidating) every node on the way back up.

libcst's `visit` reconstructs each node from its visited children, also for a `CSTVisitor`:
on traced code that costs more than all of jaxlint's rules. The order of the children is
libcst's own, read once per node type. Whitespace, comments, brackets, commas and operator
tokens are not visited: they hold no code, no jaxlint visitor asks about them, and they are
two nodes in three of a typical tree.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Iterator

import libcst as cst

_CHILD_FIELDS: dict[type[cst.CSTNode], tuple[str, ...]] = {}


def _subclasses(kind: type) -> set[type]:
    found: set[type] = set()
    child: type
    for child in kind.__subclasses__():
        found |= {child} | _subclasses(child)
    return found


# Nodes with no code under them: what `walk` leaves out.
TRIVIA: frozenset[type] = frozenset(
    {
        cst.SimpleWhitespace,
        cst.ParenthesizedWhitespace,
        cst.TrailingWhitespace,
        cst.EmptyLine,
        cst.Newline,
        cst.Comment,
        cst.LeftParen,
        cst.RightParen,
        cst.LeftSquareBracket,
        cst.RightSquareBracket,
        cst.LeftCurlyBrace,
        cst.RightCurlyBrace,
        cst.Comma,
        cst.Colon,
        cst.Semicolon,
        cst.AssignEqual,
        cst.Dot,
    }
    | _subclasses(cst.BaseBinaryOp)
    | _subclasses(cst.BaseBooleanOp)
    | _subclasses(cst.BaseCompOp)
    | _subclasses(cst.BaseUnaryOp)
    | _subclasses(cst.BaseAugOp)
)


_VISITED_FIELD = re.compile(r"visit_\w+\(\s*self,\s*\"(\w+)\"")


def child_fields(node: cst.CSTNode) -> tuple[str, ...]:
    """The attributes of `node` that hold children, in the order libcst visits them: read off
    the type's `_visit_and_replace_children`, which also names those it visits only when set."""
    kind = type(node)
    fields = _CHILD_FIELDS.get(kind)
    if fields is None:
        source = inspect.getsource(kind._visit_and_replace_children)
        fields = _CHILD_FIELDS[kind] = tuple(dict.fromkeys(_VISITED_FIELD.findall(source)))
    return fields


def subtree(*nodes: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """The nodes and every node under them (in no particular order): for "does it hold a call,
    a walrus, ..." questions that need no visitor."""
    stack = list(nodes)
    while stack:
        node = stack.pop()
        yield node
        stack.extend(node.children)


def walk(node: cst.CSTNode, visitor: cst.CSTVisitor) -> None:
    """Call `visitor.on_visit` and `visitor.on_leave` on `node` and its descendants but TRIVIA
    in the order `node.visit(visitor)` does (attribute hooks excepted), changing nothing."""
    if visitor.on_visit(node):
        for name in _CHILD_FIELDS.get(type(node)) or child_fields(node):
            child = getattr(node, name)
            kind = type(child)
            if kind is tuple or kind is list:  # libcst's sequences
                for item in child:
                    if _WALKED.get(type(item)) or _walked(type(item)):
                        walk(item, visitor)
            elif _WALKED.get(kind) or _walked(kind):
                walk(child, visitor)
    visitor.on_leave(node)


# `isinstance(x, cst.CSTNode)` goes through ABCMeta on every call: each type's answer is kept
_WALKED: dict[type, bool] = {}


def _walked(kind: type) -> bool:
    walked = _WALKED[kind] = issubclass(kind, cst.CSTNode) and kind not in TRIVIA
    return walked


class OwnScopeVisitor(cst.CSTVisitor):
    """A visitor of one function's own body: nested functions, classes and lambdas are their
    own scopes and are not entered."""

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False
