"""The user's classes as verification sees them: annotation names looked up (or built) in the
target's module, project classes told from library ones, registered pytrees, and classes shared
between the original module and its rewrite."""

from __future__ import annotations

import ast
import functools
import inspect
import linecache
import os
import sys
import sysconfig
import types
from typing import Any

from jaxlint.verify.namespace import build_module


def is_registered_pytree(cls: type) -> bool:
    """Registered with `register_pytree_node(_class)` (or having its `tree_flatten` methods)."""
    if hasattr(cls, "tree_flatten") and hasattr(cls, "tree_unflatten"):
        return True
    try:
        from jax._src import tree_util  # the registry has no public lookup by type
    except ImportError:
        return False
    registry = getattr(tree_util, "_registry", None)
    return isinstance(registry, dict) and cls in registry


def constructor_signature(cls: type) -> inspect.Signature:
    """What `cls(...)` takes. A metaclass `__call__` taking `(*args, **kwargs)` (flax nnx
    Modules', for one) hides the class's own `__init__`, whose parameters are the real ones."""
    signature = inspect.signature(cls)
    forwarding = all(
        p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in signature.parameters.values()
    )
    init = getattr(cls, "__init__", None)
    if not forwarding or not inspect.isfunction(init):
        return signature
    unbound = inspect.signature(init)
    return unbound.replace(parameters=list(unbound.parameters.values())[1:])  # drop self


def is_linen_module(instance: object) -> bool:
    """A flax linen Module (its methods run inside `init`/`apply` only)?"""
    linen = sys.modules.get("flax.linen")
    return linen is not None and isinstance(instance, linen.Module)


def is_project_class(cls: type) -> bool:
    """Is `cls` defined in the project (a verified module or its siblings), not a library?"""
    module = sys.modules.get(getattr(cls, "__module__", "") or "")
    path = getattr(module, "__file__", None)
    if module is None or not path:
        return getattr(cls, "__module__", "").startswith("_jaxlint_verify_")
    parts = set(os.path.abspath(path).split(os.sep))
    if "site-packages" in parts or "dist-packages" in parts:
        return False
    return not os.path.abspath(path).startswith(_STDLIB)


_STDLIB = os.path.join(sysconfig.get_paths()["stdlib"], "")


def module_namespace(cls: type, resolver: Resolver | None) -> dict[str, Any] | None:
    name = getattr(cls, "__module__", "")
    module = sys.modules.get(name)
    if module is not None:
        return vars(module)
    return resolver.modules.get(name) if resolver is not None else None


_MISSING = object()
_HELPER = "_jaxlint_annotation_names"
MAX_BUILDS = 4


class Resolver:
    """Looks annotation names up in the target's module (its `__globals__`).

    Under `from __future__ import annotations` a class only an annotation names is not among the
    definitions the verification module ran; it is built then, with its own dependencies, in a
    module of its own (jaxlint.verify.namespace.build_module: imports and definitions only).
    """

    def __init__(self, function: object) -> None:
        self.globals: dict[str, Any] = getattr(function, "__globals__", None) or {}
        code = getattr(function, "__code__", None)
        self.filename = code.co_filename if code is not None else ""
        self.modules: dict[str, dict[str, Any]] = {}  # modules built for annotations
        self._built: dict[str, Any] = {}
        self._builds = 0

    def lookup(self, dotted: str, namespace: dict[str, Any] | None = None) -> Any:
        """The object a dotted name means where it was written, or None."""
        head, *rest = dotted.split(".")
        found: Any = _MISSING
        for names in (namespace, self.globals, self._built):
            if names is not None and head in names:
                found = names[head]
                break
        if found is _MISSING and (namespace is None or namespace is self.globals):
            found = self._build(head)
        for part in rest:
            if found is _MISSING:
                break
            if isinstance(found, types.ModuleType):
                found = getattr(found, part, _MISSING)
            else:
                try:
                    found = inspect.getattr_static(found, part)
                except AttributeError:
                    found = _MISSING
        return None if found is _MISSING else found

    def _build(self, name: str) -> Any:
        if name in self._built:
            return self._built[name]
        self._built[name] = _MISSING
        source = "".join(linecache.getlines(self.filename))
        path = self.globals.get("__file__")
        if self._builds >= MAX_BUILDS or not source or not path or not _binds(source, name):
            return _MISSING
        self._builds += 1
        module_name = f"{self.globals.get('__name__', '_jaxlint_verify')}_annotations{self._builds}"
        helper = f"\n\ndef {_HELPER}():\n    return {name}\n"
        try:
            module = build_module(
                source + helper, path, _HELPER, strip_staging=False, module_name=module_name
            )
        except (Exception, SystemExit):  # the definition cannot be built: no kinds from it
            return _MISSING
        finally:
            sys.modules.pop(module_name, None)
        self.modules[module_name] = vars(module)
        self._built[name] = vars(module).get(name, _MISSING)
        return self._built[name]


def _binds(source: str, name: str) -> bool:
    """Does the module bind `name` at top level (a class, an assignment, an import)?"""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return False
    for stmt in tree.body:
        if isinstance(stmt, ast.ClassDef) and stmt.name == name:
            return True
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            for alias in stmt.names:
                bound = alias.asname or (alias.name.split(".")[0])
                if bound == name:
                    return True
        targets = stmt.targets if isinstance(stmt, ast.Assign) else []
        if isinstance(stmt, ast.AnnAssign):
            targets = [stmt.target]
        if any(isinstance(t, ast.Name) and t.id == name for t in targets):
            return True
    return False


@functools.lru_cache(maxsize=4)
def resolver_for(function: object) -> Resolver:
    resolver = Resolver(function)
    _RECENT[:] = [resolver, *_RECENT[:3]]
    return resolver


_RECENT: list[Resolver] = []


def share_classes(
    old_module: types.ModuleType,
    new_module: types.ModuleType,
    old_source: str,
    new_source: str,
    target: str = "",
) -> list[str]:
    """Give the rewritten module the original's class objects where the definitions are the same.

    Inputs are built from the original module's classes (a `State` NamedTuple, a `Params`
    dataclass): a rewrite that makes a `State` of its own module's class would otherwise give
    another pytree structure (a `fori_loop` carry, the output) for the same code. Classes built
    for annotations only (jaxlint.verify.inputs.Resolver) are shared the same way.
    """
    try:
        old_classes = _class_definitions(old_source)
        new_classes = _class_definitions(new_source)
    except (SyntaxError, ValueError):
        return []
    built = [
        names
        for resolver in _RECENT
        if resolver.globals is vars(old_module)
        for names in resolver.modules.values()
    ]
    shared = []
    for name, definition in new_classes.items():
        if name == target.split(".")[0]:
            continue  # the target's own class: the rewritten method lives in it
        if old_classes.get(name) != definition or not isinstance(vars(new_module).get(name), type):
            continue
        for names in (vars(old_module), *built):
            if isinstance(names.get(name), type):
                setattr(new_module, name, names[name])
                shared.append(name)
                break
    return shared


def _class_definitions(source: str) -> dict[str, str]:
    tree = ast.parse(source)
    return {s.name: ast.dump(s) for s in tree.body if isinstance(s, ast.ClassDef)}
