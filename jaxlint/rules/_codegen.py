"""Helpers shared by the rewrites: fresh names, names used in a node, docstrings, spellings."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

import libcst as cst

from jaxlint.analysis.cst_walk import walk
from jaxlint.engine.edits import Edit, ImportSpec

if TYPE_CHECKING:
    from jaxlint.engine.rule import UnitContext


def fresh_name(base: str, taken: set[str]) -> str:
    """`base`, or `base_2`, `base_3`… whichever is not taken; the result is marked taken."""
    name, number = base, 1
    while name in taken:
        number += 1
        name = f"{base}_{number}"
    taken.add(name)
    return name


def visited_statement(
    statement: cst.BaseStatement, transformer: cst.CSTTransformer
) -> cst.BaseStatement:
    """`statement.visit(transformer)`, for a transformer that rewrites expressions only: libcst
    types the result as a statement, or a removal or flattening of statements."""
    result = statement.visit(transformer)
    assert isinstance(result, cst.BaseStatement), result
    return result


def visited_expression(
    expression: cst.BaseExpression, transformer: cst.CSTTransformer
) -> cst.BaseExpression:
    """`expression.visit(transformer)`, for a transformer that removes nothing (see
    `visited_statement`)."""
    result = expression.visit(transformer)
    assert isinstance(result, cst.BaseExpression), result
    return result


def module_of(statements: Sequence[cst.BaseStatement]) -> cst.Module:
    """A module holding `statements`, to print them or to read their names."""
    # BaseStatement's only kinds are the two Module's `body` is declared to hold
    body = cast("Sequence[cst.SimpleStatementLine | cst.BaseCompoundStatement]", statements)
    return cst.Module(body=body)


def names_in(node: cst.CSTNode) -> set[str]:
    """Every identifier (`Name`) that appears in a node."""
    collector = _NameCollector()
    walk(node, collector)
    return collector.names


class _NameCollector(cst.CSTVisitor):
    def __init__(self) -> None:
        super().__init__()
        self.names: set[str] = set()

    def visit_Name(self, node: cst.Name) -> None:
        self.names.add(node.value)


def int_literal(node: cst.BaseExpression) -> int | None:
    """k of an integer literal `k` / `-k`, else None."""
    if isinstance(node, cst.Integer):
        return int(node.evaluated_value)
    if (
        isinstance(node, cst.UnaryOperation)
        and isinstance(node.operator, cst.Minus)
        and isinstance(node.expression, cst.Integer)
    ):
        return -int(node.expression.evaluated_value)
    return None


def is_docstring(statement: cst.CSTNode) -> bool:
    """A statement that is just a string literal."""
    return (
        isinstance(statement, cst.SimpleStatementLine)
        and len(statement.body) == 1
        and isinstance(statement.body[0], cst.Expr)
        and isinstance(statement.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    )


@dataclass(frozen=True)
class JaxSpelling:
    """How the module spells JAX: its own `jnp` / `lax` aliases when it has them."""

    jax: str = "jax"
    numpy: str = "jax.numpy"
    lax: str = "jax.lax"

    @property
    def scan(self) -> str:
        return f"{self.lax}.scan"

    @classmethod
    def of(cls, context: UnitContext) -> JaxSpelling:
        """The spelling the linted module's imports give."""
        aliases = context.index.imports.aliases
        jax = next((n for n, q in aliases.items() if q == "jax"), "jax")
        numpy = next((n for n, q in aliases.items() if q == "jax.numpy"), f"{jax}.numpy")
        lax = next((n for n, q in aliases.items() if q == "jax.lax"), f"{jax}.lax")
        return cls(jax=jax, numpy=numpy, lax=lax)


def jnp_function_edit(
    context: UnitContext, func: cst.BaseExpression, name: str, description: str
) -> Edit:
    """Replace a call's function with jax.numpy's `name`, in the module's spelling (`jnp.f`, or
    `jax.numpy.f` with `import jax` added when the module has no alias)."""
    spelling = JaxSpelling.of(context)
    return Edit(
        replacements={func: cst.parse_expression(f"{spelling.numpy}.{name}")},
        description=description,
        imports=(ImportSpec("jax"),) if spelling.numpy == "jax.numpy" else (),
    )
