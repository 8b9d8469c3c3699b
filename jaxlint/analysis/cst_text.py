"""Small libcst helpers shared by rules: source text of a node, statement counts, literals."""

from __future__ import annotations

import ast

import libcst as cst

from jaxlint.analysis.cst_walk import walk

_EMPTY = cst.Module(body=[])


def code_of(node: cst.CSTNode, limit: int = 60) -> str:
    """Source text of a node on one line, shortened for messages."""
    text = " ".join(_EMPTY.code_for_node(node).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def count_statements(body: cst.CSTNode) -> int:
    """Simple statements in a block, nested blocks included (a nested def counts as one)."""
    counter = _StatementCounter()
    walk(body, counter)
    return counter.count


class _StatementCounter(cst.CSTVisitor):
    def __init__(self) -> None:
        super().__init__()
        self.count = 0

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        self.count += len(node.body)

    def visit_SimpleStatementSuite(self, node: cst.SimpleStatementSuite) -> None:
        self.count += len(node.body)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self.count += 1
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        self.count += 1
        return False


UNREADABLE = object()  # what `literal_value` gives for an expression that is no literal


def literal_value(node: cst.BaseExpression) -> object:
    """The Python value of a literal expression (`(0, None)`) as `ast.literal_eval` reads its
    text (`code_of`'s), or UNREADABLE."""
    try:
        return ast.literal_eval(code_of(node))
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return UNREADABLE
