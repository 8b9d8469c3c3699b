"""Build a callable from a module's source by executing only the definitions it needs.

The module runs as its package imports it: the package root's parent is on `sys.path` and
`__package__` is the real package, so relative and sibling imports resolve. It runs under a
private module name, and only the imports and definitions the target needs execute (SPEC §5):
never other top-level statements. While it is built, an import of the real module (a package
`__init__` doing `from .models import MLP`) gets a stand-in that defines each name on first use,
the same way, instead of running the file.
"""

from __future__ import annotations
import __future__

import ast
import builtins
import functools
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import inspect
import linecache
import os
import symtable
import sys
import types
import weakref
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import TypeVar

from jaxlint.analysis.names import ast_target_names

# Decorators that only stage the function (compile it) without changing what it computes: the
# original is run without them. Mapping transforms (vmap, pmap, grad…) change the function itself;
# the rewritten function keeps them, so the original must keep them too to be comparable.
STAGING_DECORATORS = frozenset({"jit", "pjit", "filter_jit", "checkpoint", "remat"})

_Def = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
_Import = ast.Import | ast.ImportFrom
_Node = TypeVar("_Node", bound=ast.AST)
_TRY_STATEMENTS = tuple(t for t in (ast.Try, getattr(ast, "TryStar", None)) if t is not None)
_STAR = "*"  # the name a star import binds: whatever the module it reads defines
_MODULE_NAMES = frozenset(
    {"__name__", "__file__", "__package__", "__spec__", "__loader__", "__doc__", "__builtins__"}
)
# Environment variables whose values never appear in a message (API keys, tokens, passwords).


class NamespaceError(Exception):
    """The definitions the target needs could not be executed."""


@dataclass(frozen=True)
class Target:
    """A resolved target: a plain callable, or a class whose instances carry the method."""

    qualname: str
    function: Callable[..., object] | None = None
    cls: type | None = None
    method: str | None = None
    # a function decorated with `vmap` (its other staging decorators stripped): the `in_axes`
    in_axes: tuple[int | None, ...] | int | None = None
    vmapped: bool = False
    # parameters the original's jit made static (stripped for verification): hashable values only
    static_params: frozenset[str] = frozenset()
    # called on NumPy copies of its array arguments, its NumPy results given JAX's dtypes
    numpy_inputs: bool = False
    # with `numpy_inputs`: 16-bit float arrays copied as float32 (XLA computes in float32 there)
    widened: bool = False

    @property
    def is_instance_method(self) -> bool:
        """True when calling the target needs an instance of `cls`."""
        return self.cls is not None


def source_tree(function: object) -> tuple[types.CodeType, ast.Module]:
    """The code of `function` under its decorators' wrappers (`vmap` and `functools.wraps` set
    `__wrapped__`) and the AST of the module it was written in.

    Raises AttributeError, TypeError, SyntaxError or ValueError when there is none.
    """
    code = inspect.unwrap(function).__code__  # type: ignore[arg-type]  # a callable (or raises)
    return code, ast.parse("".join(linecache.getlines(code.co_filename)))


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


def describe_exception(exc: BaseException) -> str:
    """An exception the checked code raised, by its class: its message is the code's own text
    (which may hold what it read from a file), and no report shows it. A missing module is
    named, as the module's imports name it."""
    name = type(exc).__name__
    if isinstance(exc, ModuleNotFoundError) and exc.name:
        return f"{name}: No module named {exc.name!r}"
    if isinstance(exc.__cause__, NamespaceError):  # the stand-in's: jaxlint's own words
        return f"{name}: {exc}"
    return name


# --- where the module lives: package root, sys.path, __package__ ---


@dataclass(frozen=True)
class _Layout:
    entries: list[str]  # sys.path entries that make the module's imports work, searched first
    package: str | None  # the module's package, for relative imports
    fallback: str | None  # the module's own folder, searched last (`import utils` in a package)


def package_context(path: str, source: str | None = None) -> tuple[list[str], str | None]:
    """sys.path entries that make `path`'s imports work, and its package for relative imports.

    A package module's entry is its package root's parent (the root is the topmost folder of
    `__init__.py` files); a module outside any package has its own folder. Without `source`, the
    file is read to see which imports it makes (namespace packages have no `__init__.py`).
    """
    if source is None:
        try:
            with open(path, encoding="utf-8", errors="replace") as file:
                source = file.read()
        except OSError:
            source = ""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        tree = None
    layout = _layout(path, tree)
    return layout.entries, layout.package


def _layout(path: str, tree: ast.Module | None) -> _Layout:
    folder = os.path.dirname(os.path.abspath(path))
    top = folder
    parts: list[str] = []
    while os.path.isfile(os.path.join(top, "__init__.py")) and _is_package_folder(top):
        parts.insert(0, os.path.basename(top))
        top = os.path.dirname(top)
    regular = bool(parts)
    levels, absolute = _import_evidence(tree)
    # Namespace packages have no __init__.py: `from ..core import x` says the module sits at
    # least two package levels deep.
    while len(parts) < levels and _is_package_folder(top):
        parts.insert(0, os.path.basename(top))
        top = os.path.dirname(top)
    # `from mypkg.utils import f` where a folder above is `mypkg`: that folder is a package root
    # (a namespace package, or `src.mypkg` imported through its `src` folder). A script's own
    # sibling `mypkg.py` would win over it, as in `python script.py`.
    named_roots = [
        os.path.dirname(ancestor)
        for ancestor in _ancestors(top)
        if _names_package_root(os.path.basename(ancestor), ancestor, absolute, parts, folder)
    ]
    if named_roots:  # the nearest names the package
        parts = os.path.relpath(folder, named_roots[0]).split(os.sep)
    if not parts:
        return _Layout([folder], None, None)
    roots = named_roots + ([top] if regular or not named_roots else [])
    return _Layout(list(dict.fromkeys(roots)), ".".join(parts), folder)


def _names_package_root(
    name: str, folder: str, absolute: set[str], parts: list[str], module_folder: str
) -> bool:
    """True when the module's `import name…` means the package folder `folder`."""
    if name not in absolute or name in parts[:1]:
        return False
    if not parts and any(
        os.path.exists(os.path.join(module_folder, sibling)) for sibling in (name, f"{name}.py")
    ):
        return False
    return not _installed_elsewhere(name, folder)


def _is_package_folder(folder: str) -> bool:
    return os.path.dirname(folder) != folder and os.path.basename(folder).isidentifier()


def _ancestors(folder: str) -> Iterator[str]:
    """`folder` and the folders above it that can be packages."""
    while _is_package_folder(folder):
        yield folder
        folder = os.path.dirname(folder)


def _import_evidence(tree: ast.Module | None) -> tuple[int, set[str]]:
    """The deepest relative import level, and the first names of the absolute imports."""
    levels, absolute = 0, set()
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, ast.ImportFrom):
            levels = max(levels, node.level)
            if node.level == 0 and node.module:
                absolute.add(node.module.split(".")[0])
        elif isinstance(node, ast.Import):
            absolute.update(alias.name.split(".")[0] for alias in node.names)
    return levels, absolute


def _installed_elsewhere(name: str, folder: str) -> bool:
    """True when `import name` finds something other than `folder` (an installed package)."""
    if name in sys.stdlib_module_names or name == "__future__":
        return True
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return False
    if spec is None:
        return False
    locations = list(spec.submodule_search_locations or [])
    if spec.origin and not locations:
        locations = [spec.origin]
    here = os.path.realpath(folder)
    return not any(os.path.realpath(location) == here for location in locations)


def _use_layout(layout: _Layout) -> None:
    """Put the layout's folders on sys.path (the caller restores sys.path when done)."""
    for entry in reversed(layout.entries):
        if entry not in sys.path:
            sys.path.insert(0, entry)
    if layout.fallback is not None and layout.fallback not in sys.path:
        sys.path.append(layout.fallback)
    importlib.invalidate_caches()


# --- building the module ---


def build_module(
    source: str, path: str, target: str, *, strip_staging: bool, module_name: str
) -> types.ModuleType:
    """Execute the imports and the definitions `target` needs in a fresh module named `module_name`.

    The module is registered in `sys.modules` (dataclasses and pickling look it up there); the
    caller removes it when done. When `path` exists, the folders its imports need are put on
    `sys.path` (the caller restores it), and while the module is registered an import of the real
    module gets a stand-in that runs only the definitions asked of it.
    """
    code = _ModuleCode.parse(source, path)
    top_name = target.split(".")[0]
    target_index = _target_statement(code.tree, top_name)
    if target_index is None:
        raise NamespaceError(f"`{top_name}` is not defined at module level")
    target_statement = code.tree.body[target_index]
    if strip_staging:
        _strip_staging_decorators(target_statement, target)
    forced = [target_index]
    if not strip_staging:  # `f = jax.jit(f)` after `def f` is part of the rewritten function
        forced += [
            i
            for i in code.binders.get(top_name, [])
            if i > target_index and isinstance(code.tree.body[i], _Def | ast.Assign)
        ]
    selected, needed = code.plan(set(), forced=forced, exclude={top_name})

    layout = _layout(path, code.tree)
    module = types.ModuleType(module_name)
    module.__file__ = path
    module.__package__ = layout.package
    sys.modules[module_name] = module
    if os.path.isfile(path):
        _use_layout(layout)
        _STAND_INS.add(_StandInSource(path, source, module_name, weakref.ref(module)))
    filename = f"<jaxlint-verify {module_name}: {path}>"
    code.cache_lines(filename)
    for index, statements in selected:
        code.run(index, statements, module, filename, needed, layout)
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


@functools.lru_cache(maxsize=8)
def _top_level_def(source: str, target: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The module-level `def target` of `source` (read, never changed), or None for a method,
    another kind of statement or a source that does not parse."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    index = _target_statement(tree, target) if "." not in target else None
    node = tree.body[index] if index is not None else None
    return node if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else None


def vmap_in_axes(source: str, target: str) -> tuple[bool, tuple[int | None, ...] | int | None]:
    """(True, in_axes) when the top-level function `target` has one `vmap` decorator whose
    `in_axes` is a literal int, None, or tuple/list of them (the default 0); else (False, None)."""
    node = _top_level_def(source, target)
    if node is None:
        return False, None
    vmaps = [d for d in node.decorator_list if decorator_name(d) == "vmap"]
    if len(vmaps) != 1:
        return False, None
    keywords = vmaps[0].keywords if isinstance(vmaps[0], ast.Call) else []
    if any(k.arg is None for k in keywords):
        return False, None
    given = next((k.value for k in keywords if k.arg == "in_axes"), None)
    try:
        axes = 0 if given is None else ast.literal_eval(given)
    except (ValueError, SyntaxError):
        return False, None
    if isinstance(axes, list):
        axes = tuple(axes)
    parts = axes if isinstance(axes, tuple) else (axes,)
    if not all(a is None or type(a) is int for a in parts):
        return False, None
    return True, axes


def jit_static_params(source: str, target: str) -> frozenset[str]:
    """The parameters a jit decorator of the top-level function `target` makes static
    (`static_argnums` positions and `static_argnames`, when literal): jit needs them hashable."""
    node = _top_level_def(source, target)
    if node is None:
        return frozenset()
    positional = [a.arg for a in (*node.args.posonlyargs, *node.args.args)]
    static: set[str] = set()
    for decorator in node.decorator_list:
        if decorator_name(decorator) not in ("jit", "pjit") or not isinstance(decorator, ast.Call):
            continue
        for keyword in decorator.keywords:
            try:
                value = ast.literal_eval(keyword.value)
            except (ValueError, SyntaxError):
                continue
            values = value if isinstance(value, (tuple, list)) else (value,)
            if keyword.arg == "static_argnums":
                static.update(
                    positional[n] for n in values if isinstance(n, int) and 0 <= n < len(positional)
                )
            elif keyword.arg == "static_argnames":
                static.update(n for n in values if isinstance(n, str))
    return frozenset(static)


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


@dataclass
class _ModuleCode:
    """A parsed module and which top-level statements bind which names."""

    tree: ast.Module
    source: str
    path: str
    flags: int
    lazy_annotations: bool
    scopes: dict[tuple[str, int], symtable.SymbolTable]
    binders: dict[str, list[int]] = field(default_factory=dict)

    @classmethod
    def parse(cls, source: str, path: str) -> _ModuleCode:
        try:
            tree = ast.parse(source, filename=path)
        except SyntaxError as exc:
            raise NamespaceError(f"syntax error at line {exc.lineno}: {exc.msg}") from exc
        except ValueError as exc:  # null bytes
            raise NamespaceError(f"cannot parse: {exc}") from exc
        flags = _future_flags(tree)
        lazy = bool(flags & __future__.annotations.compiler_flag)
        code = cls(tree, source, path, flags, lazy, _scope_tables(source, path))
        for i, stmt in enumerate(tree.body):
            for name in set(_bound_names(stmt)):
                code.binders.setdefault(name, []).append(i)
        return code

    def plan(
        self, roots: set[str], *, forced: Iterable[int] = (), exclude: set[str] | None = None
    ) -> tuple[list[tuple[int, list[ast.stmt]]], set[str]]:
        """The statements to run (each pruned to what is needed) for `roots` and `forced`.

        A statement is needed when it binds a needed name; a name is needed when a needed
        statement reads it (at definition time or when called). Names in `exclude` are not
        looked up (the target's own earlier definitions).
        """
        exclude = exclude or set()
        body = self.tree.body
        forced = set(forced)
        chosen: dict[int, list[ast.stmt]] = {i: [body[i]] for i in forced}
        needed: set[str] = set()
        queue: list[str] = []

        def need(names: Iterable[str]) -> None:
            for name in set(names) - needed:
                needed.add(name)
                queue.append(name)

        for i in sorted(forced):
            need(self.references(body[i]))
        need(roots)
        while True:
            while queue:
                name = queue.pop()
                if name in exclude:
                    continue
                for i in self.binders.get(name, []):
                    if i in forced:
                        continue
                    pruned = _prune([body[i]], needed - exclude)
                    if pruned:
                        chosen[i] = pruned
                        need(n for stmt in pruned for n in self.references(stmt))
            if _STAR in needed or _STAR not in self.binders or not self._unresolved(needed):
                break
            need([_STAR])  # a needed name nothing binds may come from a star import
        # `import jax.scipy.special as jss` also makes `jax.scipy.special` reachable from `jax`
        read = {c for stmts in chosen.values() for s in stmts for c in _attribute_chains(s)}
        for i, stmt in enumerate(body):
            if i not in chosen and _loads_read_submodule(stmt, read, needed - exclude):
                chosen[i] = [stmt]
        return sorted(chosen.items()), needed

    def _unresolved(self, needed: set[str]) -> bool:
        return any(
            name not in self.binders and name not in _MODULE_NAMES and not hasattr(builtins, name)
            for name in needed
        )

    def references(self, stmt: ast.stmt) -> set[str]:
        """Module-level names a top-level statement reads, at definition time or when called."""
        if isinstance(stmt, _Def):
            return self._definition_references(stmt)
        if isinstance(stmt, _Import):
            return set()
        if isinstance(stmt, ast.If):
            return _read_names(stmt.test) | self._block_references(stmt.body + stmt.orelse)
        if isinstance(stmt, _TRY_STATEMENTS):
            names = set()
            for handler in stmt.handlers:
                if handler.type is not None:
                    names |= _read_names(handler.type)
                names |= self._block_references(handler.body)
            return names | self._block_references(stmt.body + stmt.orelse + stmt.finalbody)
        names = _read_names(stmt)
        if isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name):
            names.add(stmt.target.id)
        return names

    def _block_references(self, statements: list[ast.stmt]) -> set[str]:
        return {name for stmt in statements for name in self.references(stmt)}

    def _definition_references(self, stmt: _Def) -> set[str]:
        table = self.scopes.get((stmt.name, stmt.lineno)) or self.scopes.get(
            (stmt.name, _first_line(stmt))
        )
        if table is None:  # symtable disagrees with ast: fall back to every name in the statement
            return {n.id for n in ast.walk(stmt) if isinstance(n, ast.Name)}
        names = set(_global_names(table))
        for header in _header_nodes(stmt, self.lazy_annotations):
            names |= _read_names(header)
        return names

    def cache_lines(self, filename: str) -> None:
        """Let tracebacks and `inspect.getsource` show the module's lines."""
        lines = self.source.splitlines(keepends=True)
        linecache.cache[filename] = (len(self.source), None, lines, filename)

    def run(
        self,
        index: int,
        statements: list[ast.stmt],
        module: types.ModuleType,
        filename: str,
        needed: set[str],
        layout: _Layout,
    ) -> None:
        """Execute one (pruned) top-level statement; a failure is a NamespaceError saying why."""
        tree = ast.fix_missing_locations(ast.Module(body=statements, type_ignores=[]))
        try:
            exec(compile(tree, filename, "exec", self.flags, True), module.__dict__)
        except (Exception, SystemExit) as exc:
            binds = {n for s in statements for n in _bound_names(s)}
            if all(isinstance(s, _Import) for s in statements) and not binds & needed:
                return  # only loads a submodule the target reads: best effort, as if absent
            line = self.tree.body[index].lineno
            raise NamespaceError(
                f"line {line}: {_what_failed(statements, needed)}: {describe_exception(exc)}"
                f"{_raised_at(exc, layout)}"
            ) from exc


def _attribute_chains(node: ast.AST) -> Iterator[str]:
    """`a.b` and `a.b.c` for each `a.b.c…` the statement reads."""
    for attribute in ast.walk(node):
        parts: list[str] = []
        while isinstance(attribute, ast.Attribute):
            parts.insert(0, attribute.attr)
            attribute = attribute.value
        if isinstance(attribute, ast.Name) and parts:
            names = [attribute.id, *parts]
            yield from (".".join(names[:n]) for n in range(2, len(names) + 1))


def _loads_read_submodule(stmt: ast.stmt, read: set[str], needed: set[str]) -> bool:
    """True for an import of a submodule `a.b` of a needed `a` when `a.b…` is read."""
    if isinstance(stmt, ast.Import):
        modules = [alias.name for alias in stmt.names]
    elif isinstance(stmt, ast.ImportFrom) and stmt.level == 0 and stmt.module:
        modules = [stmt.module] + [f"{stmt.module}.{alias.name}" for alias in stmt.names]
    else:
        return False
    for module in modules:
        names = module.split(".")
        prefixes = {".".join(names[:n]) for n in range(2, len(names) + 1)}
        if names[0] in needed and prefixes & read:
            return True
    return False


def _what_failed(statements: list[ast.stmt], needed: set[str]) -> str:
    names = ", ".join(sorted({n for s in statements for n in _bound_names(s)} & needed))
    imports = [n for s in statements for n in ast.walk(s) if isinstance(n, _Import)]
    if not imports:
        return f"defining {names or 'a name'} failed"
    shown = f" (`{ast.unparse(imports[0])}`)" if len(imports) == 1 else ""
    return f"import of {names or 'a module'} failed{shown}"


def _raised_at(exc: BaseException, layout: _Layout) -> str:
    """` (raised at mypkg/__init__.py:3)`: the innermost project file the error came from."""
    folders = layout.entries + ([layout.fallback] if layout.fallback else [])
    where = ""
    traceback = exc.__traceback__
    while traceback is not None:
        filename = traceback.tb_frame.f_code.co_filename
        for folder in folders:
            if filename.startswith(os.path.join(folder, "")) and filename != __file__:
                if "site-packages" not in filename.split(os.sep):
                    relative = os.path.relpath(filename, folder)
                    where = f" (raised at {relative}:{traceback.tb_lineno})"
                break
        traceback = traceback.tb_next
    return where


def _future_flags(tree: ast.Module) -> int:
    flags = 0
    for stmt in tree.body:
        if isinstance(stmt, ast.ImportFrom) and stmt.module == "__future__":
            for alias in stmt.names:
                feature = getattr(__future__, alias.name, None)
                flags |= getattr(feature, "compiler_flag", 0)
    return flags


def _is_main_guard(stmt: ast.If) -> bool:
    """`if __name__ == "__main__":` (any test reading `__name__`): never run."""
    return any(isinstance(n, ast.Name) and n.id == "__name__" for n in ast.walk(stmt.test))


def _is_future(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.ImportFrom) and stmt.module == "__future__"


def _alias_name(alias: ast.alias, statement: ast.stmt) -> str:
    if alias.name == "*":
        return _STAR
    if isinstance(statement, ast.Import):
        return alias.asname or alias.name.split(".")[0]
    return alias.asname or alias.name


def _bound_names(stmt: ast.stmt) -> Iterator[str]:
    """Names a top-level statement may bind in the module (any branch of an `if` or `try`)."""
    if isinstance(stmt, _Def):
        yield stmt.name
    elif isinstance(stmt, ast.Assign):
        for target in stmt.targets:
            yield from ast_target_names(target)
    elif (
        isinstance(stmt, (ast.AnnAssign, ast.AugAssign))
        and isinstance(stmt.target, ast.Name)
        and (not isinstance(stmt, ast.AnnAssign) or stmt.value is not None)
    ):
        yield stmt.target.id
    elif isinstance(stmt, _Import):
        if not _is_future(stmt):
            yield from (_alias_name(alias, stmt) for alias in stmt.names)
    elif isinstance(stmt, ast.If):
        if not _is_main_guard(stmt):
            for inner in stmt.body + stmt.orelse:
                yield from _bound_names(inner)
    elif isinstance(stmt, _TRY_STATEMENTS):
        blocks = stmt.body + stmt.orelse + stmt.finalbody
        for statement in blocks + [s for h in stmt.handlers for s in h.body]:
            yield from _bound_names(statement)


def _binds(statements: list[ast.stmt], wanted: set[str]) -> bool:
    return any(name in wanted for stmt in statements for name in _bound_names(stmt))


def _prune(
    statements: list[ast.stmt], wanted: set[str], *, in_handler: bool = False
) -> list[ast.stmt]:
    """The parts of `statements` that bind a wanted name: only the needed aliases of an import,
    only the needed branches' bindings of an `if` or `try`; nothing else."""
    kept: list[ast.stmt] = []
    for stmt in statements:
        if isinstance(stmt, _Import):
            aliases = [a for a in stmt.names if _alias_name(a, stmt) in wanted]
            if aliases and not _is_future(stmt):  # `__future__` imports are compiler flags
                kept.append(_replace(stmt, names=aliases))
        elif isinstance(stmt, ast.If):
            if _is_main_guard(stmt):
                continue
            body = _prune(stmt.body, wanted, in_handler=in_handler)
            orelse = _prune(stmt.orelse, wanted, in_handler=in_handler)
            if _binds(body + orelse, wanted):
                kept.append(_replace(stmt, body=body or [ast.Pass()], orelse=orelse))
        elif isinstance(stmt, _TRY_STATEMENTS):
            pruned = _prune_try(stmt, wanted)
            if pruned is not None:
                kept.append(pruned)
        elif isinstance(stmt, ast.Raise) and in_handler:
            kept.append(stmt)  # `except ImportError: raise ImportError("install x")`
        elif _binds([stmt], wanted):
            kept.append(stmt)
    return kept


def _prune_try(stmt: ast.Try, wanted: set[str]) -> ast.stmt | None:
    """`try: import x / except ImportError: x = None`, keeping the needed names only.

    When a fallback, an `else` or a flag set after the imports (`HAS_X = True`) is needed, the
    body's imports are kept whole: whether they succeed decides what the module binds.
    """
    handlers = [(h, _prune(h.body, wanted, in_handler=True)) for h in stmt.handlers]
    orelse = _prune(stmt.orelse, wanted)
    finalbody = _prune(stmt.finalbody, wanted)
    body_parts = [(s, _prune([s], wanted)) for s in stmt.body]
    gated = (
        any(_binds(kept, wanted) for _, kept in handlers)
        or _binds(orelse, wanted)
        or any(_binds(kept, wanted) for s, kept in body_parts if not isinstance(s, _Import))
    )
    body: list[ast.stmt] = []
    for s, kept in body_parts:
        body.extend([s] if gated and isinstance(s, _Import) and not _is_future(s) else kept)
    if not (_binds(body, wanted) or gated or _binds(finalbody, wanted)):
        return None
    new_handlers = [_replace(h, body=kept or [ast.Pass()]) for h, kept in handlers]
    return _replace(
        stmt, body=body or [ast.Pass()], handlers=new_handlers, orelse=orelse, finalbody=finalbody
    )


def _replace(node: _Node, **fields: object) -> _Node:
    """A shallow copy of `node` with some fields replaced, at the same position."""
    copy = type(node)(**{**{f: getattr(node, f) for f in node._fields}, **fields})
    return ast.copy_location(copy, node)


def _read_names(node: ast.AST) -> set[str]:
    return {
        n.id for n in ast.walk(node) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Store)
    }


def _scope_tables(source: str, path: str) -> dict[tuple[str, int], symtable.SymbolTable]:
    """Module-scope function/class symbol tables keyed by (name, line)."""
    try:
        module_table = symtable.symtable(source, path, "exec")
    except (SyntaxError, ValueError):
        return {}
    return {(t.get_name(), t.get_lineno()): t for t in module_table.get_children()}


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
        # dataclasses read field annotations (`ClassVar`, `InitVar`) even when they are strings
        yield from (s.annotation for s in stmt.body if isinstance(s, ast.AnnAssign))
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


# --- the real module, when its package imports it ---


@dataclass(frozen=True)
class _StandInSource:
    """A file being built, valid while its private module is registered."""

    path: str
    source: str
    module_name: str
    module: weakref.ref[types.ModuleType]

    @property
    def active(self) -> bool:
        module = self.module()
        return module is not None and sys.modules.get(self.module_name) is module

    @property
    def stem(self) -> str:
        """The last part of any module name that loads this file."""
        real = os.path.abspath(self.path)
        name = os.path.splitext(os.path.basename(real))[0]
        return os.path.basename(os.path.dirname(real)) if name == "__init__" else name


class _StandInFinder(importlib.abc.MetaPathFinder):
    """Serves an import of a file being built with a stand-in instead of running the file.

    The real `mypkg/models.py` would run its top-level statements; the stand-in defines a name
    only when asked for it (`from .models import MLP` in the package's `__init__`), with the
    same pruned execution as the private module.
    """

    def __init__(self) -> None:
        self._sources: list[_StandInSource] = []

    def add(self, source: _StandInSource) -> None:
        if self not in sys.meta_path:
            sys.meta_path.insert(0, self)
        self._sources.append(source)

    def find_spec(
        self,
        fullname: str,
        path: object = None,
        target: types.ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        self._sources = [s for s in self._sources if s.active]
        last = fullname.rpartition(".")[2]
        candidates = [s for s in self._sources if s.stem == last]
        if not candidates:
            return None
        try:
            find = importlib.machinery.PathFinder.find_spec
            spec = find(fullname, path)  # type: ignore[arg-type]  # the path import gave us
        except (ImportError, ValueError, OSError):
            return None
        if spec is None or not spec.origin:
            return None
        origin = os.path.realpath(spec.origin)
        for source in candidates:
            if os.path.realpath(source.path) == origin:
                locations = spec.submodule_search_locations
                is_package = locations is not None
                stand_in = importlib.machinery.ModuleSpec(
                    fullname, _StandInLoader(source), origin=spec.origin, is_package=is_package
                )
                stand_in.has_location = True
                if locations is not None:
                    stand_in.submodule_search_locations = list(locations)
                return stand_in
        return None


class _StandInLoader(importlib.abc.Loader):
    def __init__(self, source: _StandInSource) -> None:
        self.source = source

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> None:
        return None

    def exec_module(self, module: types.ModuleType) -> None:
        try:  # the real module is the file as it is on disk
            with open(self.source.path, encoding="utf-8") as file:
                text = file.read()
        except (OSError, UnicodeDecodeError):
            text = self.source.source
        code = _ModuleCode.parse(text, self.source.path)
        filename = f"<jaxlint-verify stand-in {module.__name__}: {self.source.path}>"
        code.cache_lines(filename)
        layout = _layout(self.source.path, code.tree)
        ran: dict[int, set[str]] = {}
        building: set[str] = set()

        def __getattr__(name: str) -> object:  # noqa: N807 — the module-level hook (PEP 562)
            if name == "__all__" and name not in code.binders:
                return star_names()
            if name in building or name == _STAR or name not in code.binders:
                raise AttributeError(f"module {module.__name__!r} has no attribute {name!r}")
            building.add(name)
            try:
                selected, needed = code.plan({name})
                for index, statements in selected:
                    binds = {n for s in statements for n in _bound_names(s)}
                    if index in ran and binds <= ran[index]:
                        continue
                    ran[index] = ran.get(index, set()) | binds
                    code.run(index, statements, module, filename, needed, layout)
            except NamespaceError as exc:
                raise ImportError(f"{module.__name__}.{name}: {exc}", name=module.__name__) from exc
            finally:
                building.discard(name)
            if name in module.__dict__:
                return module.__dict__[name]
            raise AttributeError(f"module {module.__name__!r} has no attribute {name!r}")

        def star_names() -> list[str]:
            """`from .models import *`: the public definitions (not imports) that can be made."""
            names = []
            for name, indices in code.binders.items():
                statements = [code.tree.body[i] for i in indices]
                if name.startswith("_") or all(isinstance(s, _Import) for s in statements):
                    continue
                try:
                    __getattr__(name)
                except (ImportError, AttributeError):
                    continue
                names.append(name)
            return names

        module.__getattr__ = __getattr__  # type: ignore[method-assign]  # a module's (PEP 562)


_STAND_INS = _StandInFinder()
