"""Build a callable from a module's source by executing only the definitions it needs."""

from __future__ import annotations
import __future__

import ast
import inspect
import linecache
import os
import symtable
import sys
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass

# Decorators that only stage the function (compile it) without changing what it computes: the
# original is run without them. Mapping transforms (vmap, pmap, grad…) change the function itself;
# the rewritten function keeps them, so the original must keep them too to be comparable.
STAGING_DECORATORS = frozenset({"jit", "pjit", "filter_jit", "checkpoint", "remat"})

_Def = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef


class NamespaceError(Exception):
    """The definitions the target needs could not be executed."""


@dataclass(frozen=True)
class Target:
    """A resolved target: a plain callable, or a class whose instances carry the method."""

    qualname: str
    function: Callable[..., object] | None = None
    cls: type | None = None
    method: str | None = None

    @property
    def is_instance_method(self) -> bool:
        """True when calling the target needs an instance of `cls`."""
        return self.cls is not None


def decorator_name(node: ast.expr) -> str | None:
    """The transform a decorator applies: `jit` for `jax.jit`, `jit(…)`, `partial(jax.jit, …)`."""
    if isinstance(node, ast.Call):
        if last_name(node.func) == "partial":
            return decorator_name(node.args[0]) if node.args else None
        return decorator_name(node.func)
    return last_name(node)


def last_name(node: ast.expr) -> str | None:
    """`b` of `a.b`, `a` of `a`, else None."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def x64_setting(source: str) -> bool | None:
    """The value of a top-level `jax.config.update("jax_enable_x64", …)`, if the module has one."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    setting = None
    for stmt in tree.body:
        call = stmt.value if isinstance(stmt, ast.Expr) else None
        if (
            isinstance(call, ast.Call)
            and last_name(call.func) == "update"
            and len(call.args) == 2
            and isinstance(call.args[0], ast.Constant)
            and call.args[0].value == "jax_enable_x64"
            and isinstance(call.args[1], ast.Constant)
        ):
            setting = bool(call.args[1].value)
    return setting


def package_context(path: str) -> tuple[list[str], str | None]:
    """sys.path entries that make `path`'s imports work, and its package for relative imports."""
    folder = os.path.dirname(os.path.abspath(path))
    parts: list[str] = []
    root = folder
    while os.path.isfile(os.path.join(root, "__init__.py")):
        parts.insert(0, os.path.basename(root))
        root = os.path.dirname(root)
    entries = [folder] if root == folder else [folder, root]
    return entries, ".".join(parts) or None


def build_module(
    source: str, path: str, target: str, *, strip_staging: bool, module_name: str
) -> types.ModuleType:
    """Execute the imports and the definitions `target` needs in a fresh module named `module_name`.

    The module is registered in `sys.modules` (dataclasses and pickling look it up there); the
    caller removes it when done.
    """
    try:
        tree = ast.parse(source, filename=path)
    except SyntaxError as exc:
        raise NamespaceError(f"syntax error at line {exc.lineno}: {exc.msg}") from exc
    top_name = target.split(".")[0]
    target_index = _target_statement(tree, top_name)
    if target_index is None:
        raise NamespaceError(f"`{top_name}` is not defined at module level")
    if strip_staging:
        _strip_staging_decorators(tree.body[target_index], target)

    flags = _future_flags(tree)
    selected, needed_names = _needed_statements(
        tree, source, path, target_index, top_name, keep_rebindings=not strip_staging
    )
    module = types.ModuleType(module_name)
    module.__file__ = path
    _, module.__package__ = package_context(path)
    sys.modules[module_name] = module
    filename = f"<jaxlint-verify {module_name}: {path}>"
    lines = source.splitlines(keepends=True)
    linecache.cache[filename] = (len(source), None, lines, filename)
    for index in selected:
        _exec_statement(tree.body[index], module, filename, flags, needed_names)
    return module


def resolve_target(module: types.ModuleType, target: str) -> Target:
    """Look `target` ("f" or "Cls.meth") up in an executed module."""
    parts = target.split(".")
    owner: object = module
    for part in parts[:-1]:
        owner = getattr(owner, part, None)
        if not isinstance(owner, type):
            raise NamespaceError(f"`{target}`: `{part}` is not a class")
    name = parts[-1]
    try:
        raw = inspect.getattr_static(owner, name)
    except AttributeError as exc:
        raise NamespaceError(f"`{target}` is not defined") from exc
    if isinstance(owner, type) and not isinstance(raw, (staticmethod, classmethod)):
        return Target(qualname=target, cls=owner, method=name)
    function = getattr(owner, name)
    if not callable(function):
        raise NamespaceError(f"`{target}` is not callable")
    return Target(qualname=target, function=function)


def _target_statement(tree: ast.Module, top_name: str) -> int | None:
    index = None
    for i, stmt in enumerate(tree.body):
        if isinstance(stmt, _Def) and stmt.name == top_name:
            index = i
    return index


def _strip_staging_decorators(node: ast.stmt, target: str) -> None:
    for part in target.split(".")[1:]:
        body = node.body if isinstance(node, ast.ClassDef) else []
        found = [s for s in body if isinstance(s, _Def) and s.name == part]
        if not found:
            raise NamespaceError(f"`{target}`: `{part}` is not defined in its class")
        node = found[-1]
    assert isinstance(node, _Def)
    node.decorator_list = [
        d for d in node.decorator_list if decorator_name(d) not in STAGING_DECORATORS
    ]


def _future_flags(tree: ast.Module) -> int:
    flags = 0
    for stmt in tree.body:
        if isinstance(stmt, ast.ImportFrom) and stmt.module == "__future__":
            for alias in stmt.names:
                feature = getattr(__future__, alias.name, None)
                flags |= getattr(feature, "compiler_flag", 0)
    return flags


def _needed_statements(
    tree: ast.Module,
    source: str,
    path: str,
    target_index: int,
    top_name: str,
    *,
    keep_rebindings: bool,
) -> tuple[list[int], set[str]]:
    """Indices of the statements to execute (all imports + the name closure), and needed names."""
    lazy_annotations = bool(_future_flags(tree) & __future__.annotations.compiler_flag)
    scopes = _scope_tables(source, path)
    bindings: dict[str, list[int]] = {}
    imports: list[int] = []
    for i, stmt in enumerate(tree.body):
        if _is_import_block(stmt):
            imports.append(i)
            continue
        for name in _bound_names(stmt):
            bindings.setdefault(name, []).append(i)

    target_statements = [target_index]
    if keep_rebindings:  # `f = jax.jit(f)` after `def f` is part of the rewritten function
        target_statements += [i for i in bindings.get(top_name, []) if i > target_index]
    selected = set(target_statements)
    needed: set[str] = set()
    work = list(target_statements)
    while work:
        stmt = tree.body[work.pop()]
        for name in _referenced_names(stmt, scopes, lazy_annotations) - needed:
            needed.add(name)
            if name == top_name:
                continue
            for i in bindings.get(name, []):
                if i not in selected:
                    selected.add(i)
                    work.append(i)
    return sorted(selected | set(imports)), needed


def _is_import_block(stmt: ast.stmt) -> bool:
    if isinstance(stmt, (ast.Import, ast.ImportFrom)):
        return True
    if isinstance(stmt, ast.Try):
        # `try: import x / except ImportError: x = None` is an import with a fallback.
        inner = stmt.body + [s for h in stmt.handlers for s in h.body] + stmt.orelse
        simple = (ast.Import, ast.ImportFrom, ast.Assign, ast.Pass)
        return any(isinstance(s, (ast.Import, ast.ImportFrom)) for s in stmt.body) and all(
            isinstance(s, simple) for s in inner
        )
    return False


def _bound_names(stmt: ast.stmt) -> Iterator[str]:
    if isinstance(stmt, _Def):
        yield stmt.name
    elif isinstance(stmt, ast.Assign):
        for target in stmt.targets:
            yield from _target_names(target)
    elif (
        isinstance(stmt, (ast.AnnAssign, ast.AugAssign))
        and isinstance(stmt.target, ast.Name)
        and (not isinstance(stmt, ast.AnnAssign) or stmt.value is not None)
    ):
        yield stmt.target.id


def _target_names(target: ast.expr) -> Iterator[str]:
    if isinstance(target, ast.Name):
        yield target.id
    elif isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            yield from _target_names(element)
    elif isinstance(target, ast.Starred):
        yield from _target_names(target.value)


def _import_names(stmt: ast.stmt) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(stmt):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                names.add(alias.asname or alias.name.split(".")[0])
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                names.update(_target_names(target))
    return names


def _scope_tables(source: str, path: str) -> dict[tuple[str, int], symtable.SymbolTable]:
    """Top-level function/class symbol tables keyed by (name, line)."""
    try:
        module_table = symtable.symtable(source, path, "exec")
    except SyntaxError:
        return {}
    return {(t.get_name(), t.get_lineno()): t for t in module_table.get_children()}


def _referenced_names(
    stmt: ast.stmt, scopes: dict[tuple[str, int], symtable.SymbolTable], lazy_annotations: bool
) -> set[str]:
    """Module-level names a top-level statement reads, at definition time or when called."""
    if not isinstance(stmt, _Def):
        return {n.id for n in ast.walk(stmt) if isinstance(n, ast.Name)}
    table = scopes.get((stmt.name, stmt.lineno)) or scopes.get((stmt.name, _first_line(stmt)))
    if table is None:  # symtable disagrees with ast: fall back to every name in the statement
        return {n.id for n in ast.walk(stmt) if isinstance(n, ast.Name)}
    names = set(_global_names(table))
    for header in _header_nodes(stmt, lazy_annotations):
        names.update(n.id for n in ast.walk(header) if isinstance(n, ast.Name))
    return names


def _first_line(stmt: _Def) -> int:
    # Some Python versions report a decorated definition at its first decorator's line.
    return min([stmt.lineno] + [d.lineno for d in stmt.decorator_list])


def _global_names(table: symtable.SymbolTable) -> Iterator[str]:
    for symbol in table.get_symbols():
        if symbol.is_global() and symbol.is_referenced():
            yield symbol.get_name()
    for child in table.get_children():
        yield from _global_names(child)


def _header_nodes(stmt: _Def, lazy_annotations: bool) -> Iterator[ast.AST]:
    """The parts of a definition evaluated in the module scope when the definition runs."""
    yield from stmt.decorator_list
    if isinstance(stmt, ast.ClassDef):
        yield from stmt.bases
        yield from stmt.keywords
        return
    yield from stmt.args.defaults
    yield from (d for d in stmt.args.kw_defaults if d is not None)
    if lazy_annotations:
        return
    arguments = stmt.args.posonlyargs + stmt.args.args + stmt.args.kwonlyargs
    arguments += [a for a in (stmt.args.vararg, stmt.args.kwarg) if a is not None]
    yield from (a.annotation for a in arguments if a.annotation is not None)
    if stmt.returns is not None:
        yield stmt.returns


def _exec_statement(
    stmt: ast.stmt, module: types.ModuleType, filename: str, flags: int, needed: set[str]
) -> None:
    code = compile(ast.Module(body=[stmt], type_ignores=[]), filename, "exec", flags, True)
    try:
        exec(code, module.__dict__)
    except (Exception, SystemExit) as exc:
        if _is_import_block(stmt):
            missing = _import_names(stmt) & needed
            if not missing:
                return  # an import the target does not use: its failure does not matter
            what = f"import of {', '.join(sorted(missing))} failed"
        else:
            what = f"defining {', '.join(sorted(_bound_names(stmt))) or 'a name'} failed"
        raise NamespaceError(f"line {stmt.lineno}: {what}: {describe_exception(exc)}") from exc


def describe_exception(exc: BaseException, limit: int = 300) -> str:
    """`Type: first line of the message`, shortened to `limit` characters."""
    message = str(exc).strip().splitlines()
    text = f"{type(exc).__name__}: {message[0]}" if message else type(exc).__name__
    return text if len(text) <= limit else text[: limit - 1] + "…"
