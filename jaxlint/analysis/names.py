"""Resolve names through imports: `jnp.sum` → `jax.numpy.sum`, `jit` → `jax.jit`, `print`."""

from __future__ import annotations

import ast
import builtins
from collections.abc import Iterable
from dataclasses import dataclass, field

import libcst as cst

from jaxlint.analysis.ast_walk import walk_ast

BUILTIN_NAMES = frozenset(dir(builtins))

# Public aliases JAX re-exports under a second spelling; resolved names use the left side's value.
CANONICAL = {
    "jax.experimental.pjit.pjit": "jax.jit",
    "jax.pjit": "jax.jit",
    "jax.ad_checkpoint.checkpoint": "jax.checkpoint",
    "jax.remat": "jax.checkpoint",
    "jax.tree.map": "jax.tree_util.tree_map",
    "jax.experimental.shard_map.shard_map": "jax.shard_map",
    "jax.experimental.io_callback": "jax.experimental.io_callback",
    "flax.linen.jit": "flax.linen.jit",
}


def absolute_module(module: str | None, level: int, package: str | None) -> str | None:
    """The module `from <level dots><module> import ...` imports from, in `package` (None:
    above its top-level package, or relative outside any package)."""
    if not level:
        return module
    parts = package.split(".") if package else []
    if level - 1 >= len(parts):
        return None
    base = ".".join(parts[: len(parts) - (level - 1)])
    return f"{base}.{module}" if module else base


def _import_bindings(
    node: ast.Import | ast.ImportFrom, package: str | None
) -> list[tuple[str, str | None]]:
    """(name bound, qualified name) of each name an import binds; None: a plain `import a.b`."""
    if isinstance(node, ast.Import):
        return [
            (alias.asname, alias.name) if alias.asname else (alias.name.split(".")[0], None)
            for alias in node.names
        ]
    module = absolute_module(node.module, node.level, package)
    if module is None:
        return []
    return [(a.asname or a.name, f"{module}.{a.name}") for a in node.names if a.name != "*"]


def canonical(name: str) -> str:
    """Fold the re-exported spellings of one API into one name."""
    return CANONICAL.get(name, name)


def dotted_ast(node: ast.AST) -> str | None:
    """`a.b.c` for an ast Name/Attribute chain, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def dotted_cst(node: cst.CSTNode) -> str | None:
    """`a.b.c` for a libcst Name/Attribute chain, else None."""
    parts = []
    while isinstance(node, cst.Attribute):
        parts.append(node.attr.value)
        node = node.value
    if isinstance(node, cst.Name):
        parts.append(node.value)
        return ".".join(reversed(parts))
    return None


@dataclass
class ImportTable:
    """Module-wide bindings of imported names, and the names the module defines itself."""

    aliases: dict[str, str] = field(default_factory=dict)
    module_defined: set[str] = field(default_factory=set)

    package: str | None = None  # the module's package, for relative imports
    starred: list[str] = field(default_factory=list)  # modules of `from m import *`

    @classmethod
    def from_ast(cls, tree: ast.Module, package: str | None = None) -> ImportTable:
        """Imports and definitions at module level (including inside top-level if/try blocks).

        With the module's `package` known, relative imports resolve too (`from .losses import
        mse` in `pkg.train` → `pkg.losses.mse`).
        """
        table = cls(package=package)
        pending = list(tree.body)
        while pending:
            statement = pending.pop()
            if isinstance(statement, (ast.Import, ast.ImportFrom)):
                table.add(statement)
            elif isinstance(statement, (ast.If, ast.Try)):
                pending += statement.body + statement.orelse
                pending += getattr(statement, "finalbody", [])
                for handler in getattr(statement, "handlers", []):
                    pending += handler.body
        for statement in tree.body:
            for name in _bound_names(statement):
                if name not in table.aliases:
                    table.module_defined.add(name)
        return table

    def add(self, node: ast.Import | ast.ImportFrom, *, keep_bound: bool = False) -> None:
        """Record the names an import statement binds; with `keep_bound`, only those the table
        does not bind yet (a function's own import, as seen from the rest of the module)."""
        if isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names):
            module = absolute_module(node.module, node.level, self.package)
            if module is not None and module not in self.starred:
                self.starred.append(module)
        for name, qualified in _import_bindings(node, self.package):
            if keep_bound and (name in self.aliases or name in self.module_defined):
                continue
            if qualified is None:  # `import a.b` binds `a`, unless something already did
                self.aliases.setdefault(name, name)
            else:
                self.aliases[name] = qualified

    def with_imports(self, statements: Iterable[ast.Import | ast.ImportFrom]) -> ImportTable:
        """This table with `statements` (a function's own imports) binding over it."""
        table = ImportTable(
            dict(self.aliases), set(self.module_defined), self.package, list(self.starred)
        )
        for statement in statements:
            table.add(statement)
        return table

    def resolve(self, dotted: str | None) -> str | None:
        """Qualified name of a dotted reference at module scope, or None when it is not known."""
        if not dotted:
            return None
        head, _, rest = dotted.partition(".")
        if head in self.aliases:
            base = self.aliases[head]
        elif head in BUILTIN_NAMES and head not in self.module_defined:
            base = f"builtins.{head}"
        else:
            return None
        return canonical(f"{base}.{rest}" if rest else base)


def _bound_names(statement: ast.stmt) -> list[str]:
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [statement.name]
    if isinstance(statement, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
        return [n for t in targets for n in ast_target_names(t)]
    return []


def target_names(target: cst.CSTNode) -> list[cst.Name]:
    """The names an assignment or `for` target binds (`a`, `a, (b, *c)`), in order."""
    if isinstance(target, cst.Name):
        return [target]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for e in target.elements for n in target_names(e.value)]
    if isinstance(target, cst.StarredElement):
        return target_names(target.value)
    return []


def ast_target_names(target: ast.expr) -> list[str]:
    """`target_names` for an `ast` target."""
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [n for e in target.elts for n in ast_target_names(e)]
    if isinstance(target, ast.Starred):
        return ast_target_names(target.value)
    return []


def ast_int_literal(node: ast.expr | None) -> int | None:
    """The value of an integer literal (`1`, `-1`), or None."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = ast_int_literal(node.operand)
        return None if inner is None else -inner
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    return None


def calls_under(node: ast.AST, imports: ImportTable, prefixes: tuple[str, ...]) -> bool:
    """Does `node` (or anything under it) call a function whose qualified name starts with one
    of `prefixes` (`("jax.",)`: any JAX call)?"""
    return any(
        isinstance(inner, ast.Call)
        and (imports.resolve(dotted_ast(inner.func)) or "").startswith(prefixes)
        for inner in walk_ast(node)
    )
