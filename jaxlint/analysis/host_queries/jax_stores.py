"""STORES_INTO_JAX_RESULTS: `x[i] = v` / `x[i] += v` into a name the same top-level statement
binds to a JAX call's result (JAX204: a JAX array has no item assignment)."""

from __future__ import annotations

import ast
import re

from jaxlint.analysis.ast_walk import walk_ast
from jaxlint.analysis.host_queries import HostQuery
from jaxlint.analysis.names import calls_under
from jaxlint.analysis.scope import ModuleIndex

# `x[...] = v` / `x[...] += v` (not `==`), as text
SUBSCRIPT_STORE = re.compile(r"\]\s*(?:[-+*/%@&|^]|\*\*|//|<<|>>)?=(?!=)")


def _stores_and_mentions_jax(text: str, index: ModuleIndex, lines: range) -> bool:
    return SUBSCRIPT_STORE.search(text) is not None and any(
        f"{alias}." in text for alias in _jax_aliases(index)
    )


def _store_into_jax_result(node: ast.AST, statement: ast.stmt, index: ModuleIndex) -> bool:
    """A store into a name the same top-level statement binds to a JAX call's result."""
    assert isinstance(node, (ast.Assign, ast.AugAssign))  # (the query's node types)
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    stored = {
        t.value.id
        for t in targets
        if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name)
    }
    return bool(stored) and bool(stored & _jax_bound_names(statement, index))


def _jax_bound_names(statement: ast.stmt, index: ModuleIndex) -> frozenset[str]:
    """Names `statement` assigns a value computed by a `jax.*` call (`g = jnp.zeros(n)`,
    `y = jnp.asarray(x) * 2`), once per statement."""

    def compute() -> frozenset[str]:
        names: set[str] = set()
        for node in walk_ast(statement):
            if isinstance(node, ast.Assign) and calls_under(node.value, index.imports, ("jax.",)):
                for target in node.targets:
                    names.update(n.id for n in walk_ast(target) if isinstance(n, ast.Name))
        return frozenset(names)

    return index.memoized(("jax204-bound", id(statement)), compute)


def _jax_aliases(index: ModuleIndex) -> tuple[str, ...]:
    """The module's names for JAX and its modules (`jax`, `jnp`, `lax`, a `np` bound to jnp)."""
    return tuple(
        name for name, qualified in index.imports.aliases.items() if qualified.startswith("jax")
    ) or ("jax",)


STORES_INTO_JAX_RESULTS = HostQuery(
    "item stores into names bound to JAX results",
    (ast.Assign, ast.AugAssign),
    _store_into_jax_result,
    text=_stores_and_mentions_jax,
)
