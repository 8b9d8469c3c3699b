"""The project index: which functions traced code in *other* modules of the project reaches.

Traced-ness stops at a module's boundary when each file is analysed alone: a jitted `step` in
`train.py` calling `losses.mse` makes `mse` traced, in `losses.py`. Before linting, every module
of the linted packages is indexed with `ast` (no libcst), imports are resolved
(relative ones too), and the functions each module's own traced code calls (or passes to a jit or
transform) in another module are marked traced there. Linting a file then starts from its marks.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from jaxlint.analysis.jax_api import TraceKind
from jaxlint.analysis.project_view import ProjectView
from jaxlint.analysis.scope import build_index
from jaxlint.analysis.source import parse_python

MAX_MODULES = 5000  # a tree larger than this is linted module by module, as before
# One hop from the module that jits: a chain through several modules of a big library reaches
# helpers whose arguments nothing here describes (measured on flax, numpyro, optax: findings that
# were all false), while a package's `train.py` → `losses.py` is one hop.
MAX_ROUNDS = 1


@dataclass(frozen=True)
class ModuleSite:
    """Where a file sits in its project: its dotted name and its package."""

    name: str
    package: str | None


@dataclass
class ProjectIndex:
    """Per file: functions traced from other modules, and the file's package."""

    marks: dict[str, dict[str, tuple[TraceKind, str]]] = field(default_factory=dict)
    sites: dict[str, ModuleSite] = field(default_factory=dict)

    def view(self, path: str) -> ProjectView:
        """What linting `path` needs from the index."""
        key = _key(Path(path))
        site = self.sites.get(key)
        return ProjectView(site.package if site else None, self.marks.get(key, {}))


def module_site(path: Path) -> ModuleSite:
    """`pkg/sub/mod.py` with `__init__.py` files up to `pkg` → `pkg.sub.mod` in `pkg.sub`."""
    path = path.resolve()
    parts = [] if path.name == "__init__.py" else [path.stem]
    folder = path.parent
    while (folder / "__init__.py").is_file():
        parts.insert(0, folder.name)
        folder = folder.parent
    name = ".".join(parts) or path.parent.name
    is_package = path.name == "__init__.py"
    package = name if is_package else (name.rpartition(".")[0] or None)
    return ModuleSite(name, package)


def project_files(files: Iterable[Path]) -> list[Path]:
    """The linted files and the other modules of the packages they belong to."""
    found: dict[str, Path] = {}
    roots: set[Path] = set()
    for path in files:
        found.setdefault(_key(path), path)
        folder = path.resolve().parent
        top = None
        while (folder / "__init__.py").is_file():
            top = folder
            folder = folder.parent
        if top is not None:
            roots.add(top)
    for root in sorted(roots):
        for path in sorted(root.rglob("*.py")):
            found.setdefault(_key(path), path)
            if len(found) > MAX_MODULES:
                break
    return list(found.values())


def build_project_index(
    files: Iterable[Path], jit_decorators: tuple[str, ...] = ()
) -> ProjectIndex:
    """Index the project the files belong to; cheap enough to run before every lint."""
    paths = project_files(files)
    index = ProjectIndex()
    if len(paths) > MAX_MODULES:
        return index
    trees: dict[str, ast.Module] = {}
    by_name: dict[str, str] = {}
    for path in paths:
        key = _key(path)
        site = module_site(path)
        index.sites[key] = site
        try:
            # every module: a helper that never imports jax may still be called from traced code
            trees[key] = parse_python(path.read_text(encoding="utf-8"), str(path))
        except (OSError, UnicodeDecodeError, SyntaxError, ValueError, RecursionError):
            continue
        by_name[site.name] = key
    pending = list(trees)
    for _ in range(MAX_ROUNDS):
        if not pending:
            break
        changed: set[str] = set()
        for key in pending:
            module = build_index(
                trees[key],
                jit_decorators,
                package=index.sites[key].package,
                traced_from_outside=index.marks.get(key),
            )
            caller = index.sites[key].name
            for qualified, kind, how in module.outgoing:
                target = _owner(qualified, by_name)
                if target is None or target[0] == key:
                    continue
                target_key, function = target
                marks = index.marks.setdefault(target_key, {})
                previous = marks.get(function)
                if previous is None or kind > previous[0]:
                    marks[function] = (kind, f"{how} in {caller}")
                    changed.add(target_key)
        pending = sorted(changed)
    return index


def _owner(qualified: str, by_name: Mapping[str, str]) -> tuple[str, str] | None:
    """(file key, `function` or `Class.method`) of a qualified name defined in the project."""
    parts = qualified.split(".")
    for split in (len(parts) - 1, len(parts) - 2):
        if split < 1:
            continue
        module = ".".join(parts[:split])
        if module in by_name:
            return by_name[module], ".".join(parts[split:])
    return None


def _key(path: Path) -> str:
    return str(path.resolve())
