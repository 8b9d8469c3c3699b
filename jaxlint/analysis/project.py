"""The project index: which functions traced code in *other* modules of the project reaches.

Traced-ness stops at a module's boundary when each file is analysed alone: a jitted `step` in
`train.py` calling `losses.mse` makes `mse` traced, in `losses.py`. Before linting, every module
of the linted packages is indexed with `ast` (no libcst), imports are resolved
(relative ones too), and the functions each module's own traced code calls (or passes to a jit or
transform) in another module are marked traced there. Linting a file then starts from its marks.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from jaxlint.analysis.host_queries.fresh_jits import methods_called_in_loops
from jaxlint.analysis.jax_api import TraceKind, TraceReason
from jaxlint.analysis.jit_members import async_members
from jaxlint.analysis.names import ImportTable, absolute_module
from jaxlint.analysis.prng import KeyConsumer, key_consumers
from jaxlint.analysis.project_view import Asked, AskedNames, ProjectView
from jaxlint.analysis.scope import ModuleIndex, build_index
from jaxlint.analysis.source import mentions_x64, parse_python, special_file_kind, split_lines
from jaxlint.cache import Store, code_version, key_of

MAX_MODULES = 5000  # a tree larger than this is linted module by module, as before
MAX_CONSUMER_ROUNDS = 8  # rounds of following keys through other modules' consumers

# what a module re-exports: (name, target, names kept): a name of its package it imports
# (`ResNet`, "pkg.nn.resnet.ResNet"), each name of a module it star-imports ("*", a module), or
# each method a class inherits from a base of another module that the class (or a base of its
# module) does not define ("Sampler.*", "pkg.jobj.JObj", the names it defines)
Export = tuple[str, str, tuple[str, ...]]
# what a module says of its classes' members: (name, is it an async jitted callable) for each
# (`async_members`), and the methods it calls through `self` in a loop
ClassMembers = tuple[list[tuple[str, bool]], list[str]]


@dataclass(frozen=True)
class ModuleSite:
    """Where a file sits in its project: its dotted name and its package."""

    name: str
    package: str | None


@dataclass
class ProjectIndex:
    """Per file: functions traced from other modules, and the file's package."""

    marks: dict[str, dict[str, tuple[TraceKind, TraceReason]]] = field(default_factory=dict)
    sites: dict[str, ModuleSite] = field(default_factory=dict)
    # per program (a top-level package, or a file outside any package): does one of its
    # modules, or a configuration file beside it, turn on jax_enable_x64?
    x64_by_program: dict[str, bool] = field(default_factory=dict)
    # qualified name → (positional parameters, those consumed as PRNG keys)
    key_consumers: dict[str, KeyConsumer] = field(default_factory=dict)
    # names of the project's class members every one of which is a jitted callable that
    # returns before it is done (`jit_members.async_members`): known once the index is built
    async_members: frozenset[str] = frozenset()
    # names some class of the project calls through `self` in a loop: known once it is built
    looped_methods: frozenset[str] = frozenset()
    # resolved path → what an observation run saw its jitted functions called with
    # (ProjectView.observed_params); given by the caller
    observed_params: Mapping[str, Mapping[int, Mapping[str, str]]] = field(default_factory=dict)
    # folder → its top-level package folder (see `_program`), as this index found them
    _package_tops: dict[str, str | None] = field(default_factory=dict, repr=False)
    _packages: frozenset[str] | None = field(default=None, repr=False)

    def confirms(self, premise: Premise, *, key_consumers: bool = True) -> bool:
        """Would the finished index have told an analysis what it was told while the index was
        being built: no traced functions from outside learnt of later, and (unless not asked)
        no project function it asked about that consumes a key?"""
        if self.marks.get(premise.key, {}) != premise.marks:
            return False
        if not key_consumers:
            return True
        if premise.asked is None:
            return False
        return premise.asked.informative(self.key_consumers) == dict(premise.told)

    def view(self, path: str) -> ProjectView:
        """What linting `path` needs from the index."""
        real = _real(path)
        key = str(real)
        site = self.sites.get(key)
        x64 = self.x64_by_program.get(_program(real, self._package_tops), False)
        if self._packages is None:
            self._packages = frozenset(
                s.name.partition(".")[0] for s in self.sites.values() if s.package is not None
            )
        return ProjectView(
            site.package if site else None,
            self.marks.get(key, {}),
            x64,
            self.key_consumers,
            self._packages,
            self.async_members,
            self.looped_methods,
            self.observed_params.get(key, {}),
        )


@dataclass(frozen=True)
class Premise:
    """What an analysis of a module was told by an index still being built: the functions
    traced from outside, the names of project key consumers it asked about (None: it listed
    them all), and what it was told of those (`Asked.informative`)."""

    key: str
    marks: Mapping[str, tuple[TraceKind, TraceReason]]
    asked: Asked | None
    told: Mapping[str, KeyConsumer] = field(default_factory=dict)


@dataclass(frozen=True)
class ParsedModule:
    """A module as the index parsed it: what linting it would parse and index again.

    Its index was built with the marks `view` holds and sees the key consumers of the project
    known so far (none on the index's first pass; with `key_rules_only`, a pass that follows
    keys through other modules, when only the rules reading key consumers need to run again);
    a lint of it is the lint the finished index would give when `ProjectIndex.confirms` its
    `premise()`."""

    key: str
    text: str
    index: ModuleIndex
    view: ProjectView
    key_rules_only: bool = False

    def premise(self) -> Premise:
        """What the analyses of this module so far were told (call it after them)."""
        marks = self.view.traced_from_outside
        asked = self.index.key_consumers
        if not isinstance(asked, AskedNames) or asked.asked_everything:
            return Premise(self.key, marks, None)
        return Premise(self.key, marks, asked.asked, asked.told())


OnParsed = Callable[[ParsedModule], None]


def _real(path: str | Path) -> Path:
    """The path with every symlink followed; unlike `Path.resolve`, never raises on a loop."""
    return Path(os.path.realpath(path))


def module_site(path: Path, folders: dict[Path, list[str]] | None = None) -> ModuleSite:
    """`pkg/sub/mod.py` with `__init__.py` files up to `pkg` → `pkg.sub.mod` in `pkg.sub`.

    `folders` caches each folder's package name parts, for a `path` already resolved."""
    if folders is None:
        path, folders = _real(path), {}
    is_package = path.name == "__init__.py"
    parts = _package_parts(path.parent, folders) + ([] if is_package else [path.stem])
    name = ".".join(parts) or path.parent.name
    package = name if is_package else (name.rpartition(".")[0] or None)
    return ModuleSite(name, package)


def _package_parts(folder: Path, folders: dict[Path, list[str]]) -> list[str]:
    if folder not in folders:
        inside = folder.parent != folder and _is_package(folder)
        folders[folder] = [*_package_parts(folder.parent, folders), folder.name] if inside else []
    return folders[folder]


def _is_package(folder: Path) -> bool:
    """Does Python import the folder as a package: it has an `__init__.py`, or it is a folder
    of a regular package holding packages of its own (`pkg/_src/` with `_src/rvs/__init__.py`
    and none of its own, a namespace portion whose modules import `from ..jobj import JObj`)."""
    if (folder / "__init__.py").is_file():
        return True
    if not (folder.parent / "__init__.py").is_file():
        return False
    try:
        return any((sub / "__init__.py").is_file() for sub in folder.iterdir() if sub.is_dir())
    except OSError:
        return False


def project_folder(path: Path) -> tuple[Path, bool]:
    """The project a module belongs to: the top folder of its package (True: walk it whole), or
    for a top-level module its own folder (False: the modules beside it), whose modules import
    it as `import losses` when a script there runs."""
    folder = _real(path).parent
    top = None
    while folder.parent != folder and _is_package(folder):
        top = folder
        folder = folder.parent
    return (top, True) if top is not None else (_real(path).parent, False)


def project_files(files: Iterable[Path]) -> list[Path]:
    """The linted files and the other modules of the projects they belong to, resolved: the
    same set for one file of a project as for all of them, so every surface (a folder, one
    file from pre-commit, stdin, an editor buffer) sees the same index."""
    found: dict[str, Path] = {}
    roots: set[tuple[Path, bool]] = set()
    for path in files:
        real = _real(path)
        found.setdefault(str(real), real)
        roots.add(project_folder(real))
    for root, package in sorted(roots):
        for path in sorted(root.rglob("*.py") if package else root.glob("*.py")):
            real = _real(path)
            found.setdefault(str(real), real)
            if len(found) > MAX_MODULES:
                break
    return list(found.values())


def build_project_index(
    files: Iterable[Path],
    jit_decorators: tuple[str, ...] = (),
    cache_root: Path | None = None,
    on_parsed: OnParsed | None = None,
    unsaved: Mapping[str, bytes] | None = None,
    between_modules: Callable[[], object] | None = None,
    observed_params: Mapping[str, Mapping[int, Mapping[str, str]]] | None = None,
) -> ProjectIndex:
    """Index the project the files belong to; cheap enough to run before every lint.

    With `cache_root`, each module's calls out of its traced code are cached by its bytes and
    by the marks other modules gave it, so a warm rerun parses nothing. `on_parsed` is given
    each module the index parses, so a caller can lint it without parsing it again. `unsaved`
    holds the text of modules as an editor or stdin has them (by resolved path), read instead
    of the disk. `between_modules` is called each time a module's trees are let go (a caller
    that turned the cyclic garbage collector off collects there). `observed_params`: by resolved
    path, what an observation run saw the module's jitted functions called with.
    """
    unsaved = {str(_real(path)): text for path, text in (unsaved or {}).items()}
    paths = project_files(files)
    index = ProjectIndex(observed_params=dict(observed_params or {}))
    if len(paths) > MAX_MODULES:
        return index
    sources: dict[str, bytes] = {}
    by_name: dict[str, str] = {}
    folders: dict[Path, list[str]] = {}
    for path in paths:
        key = str(path)
        site = module_site(path, folders)
        index.sites[key] = site
        if special_file_kind(path) is not None:  # a FIFO named `x.py`: reading it blocks
            continue
        try:
            # every module: a helper that never imports jax may still be called from traced code
            sources[key] = unsaved[key] if key in unsaved else path.read_bytes()
        except OSError:
            continue
        by_name[site.name] = key
    index.x64_by_program = _x64_by_program(sources, index._package_tops)
    store = Store(cache_root, "index") if cache_root is not None else None
    # a module's marks are final once every module importing it is done: it is linted as
    # parsed, with no need to be parsed again (the order changes nothing else)
    marked_by: dict[tuple[str, str], str] = {}
    asked: dict[str, Asked] = {}  # module → the project consumers its summary asked
    reexports: dict[str, list[Export]] = {}  # module name → what it re-exports
    members: dict[str, bool] = {}  # class member name → is every one an async jitted callable
    looped: set[str] = set()  # methods called through `self` in a loop
    for key in importers_first(sources, index.sites, by_name):
        outgoing, consumers, parsed, asked[key], exported, (listed, in_loops) = _outgoing(
            sources[key], index, key, jit_decorators, store, keep=on_parsed is not None
        )
        for name, jitted in listed:
            members[name] = members.get(name, True) and jitted
        looped.update(in_loops)
        if exported:
            reexports[index.sites[key].name] = exported
        if parsed is not None and on_parsed is not None:
            on_parsed(parsed)
        parsed = None  # the module's trees and index are garbage from here on
        index.key_consumers.update(consumers)
        caller = index.sites[key].name
        for qualified, kind, how in outgoing:
            target = _owner(qualified, by_name)
            if target is not None and target[0] != key:
                _mark(index, marked_by, target, kind, how.in_module(caller), key)
        # what other modules traced through a name the module re-exports (its marks are final
        # now) is traced where the name is defined, which comes later in the order
        for name, (kind, how) in sorted(index.marks.get(key, {}).items()):
            for qualified in _reexported(name, exported):
                target = _owner(qualified, by_name)
                if target is not None and target[0] != key:
                    _mark(index, marked_by, target, kind, how, marked_by[key, name])
        if between_modules is not None:
            between_modules()
    _through_consumers(
        index, sources, asked, reexports, jit_decorators, store, on_parsed, between_modules
    )
    index.async_members = frozenset(name for name, jitted in members.items() if jitted)
    index.looped_methods = frozenset(looped)
    return index


def _mark(
    index: ProjectIndex,
    marked_by: dict[tuple[str, str], str],
    target: tuple[str, str],
    kind: TraceKind,
    how: TraceReason,
    by: str,
) -> None:
    """Mark `target` (module key, function or `Class.method`) traced: the strongest trace wins;
    of equals, the one from the module first by path (any order of visits gives the same
    marks)."""
    target_key, function = target
    marks = index.marks.setdefault(target_key, {})
    previous = marks.get(function)
    if (
        previous is None
        or kind > previous[0]
        or (kind == previous[0] and by < marked_by[target_key, function])
    ):
        marks[function] = (kind, how)
        marked_by[target_key, function] = by


def _reexported(name: str, exports: list[Export]) -> list[str]:
    """Where a name (`helper`, `GMRES.solve`) a package's `__init__` re-exports is defined: the
    qualified name in the module it comes from (each star-imported module may define it)."""
    head, dot, rest = name.partition(".")
    found = []
    for exported, target, _ in exports:
        if exported == head:
            found.append(target + dot + rest)
        elif exported == "*":
            found.append(f"{target}.{name}")
    return found


def _through_consumers(
    index: ProjectIndex,
    sources: Mapping[str, bytes],
    asked: dict[str, Asked],
    reexports: Mapping[str, list[Export]],
    jit_decorators: tuple[str, ...],
    store: Store | None,
    on_parsed: OnParsed | None = None,
    between_modules: Callable[[], object] | None = None,
) -> None:
    """Summaries that hand a key on to another module's consumer (`make_block(key)` calling
    `blocks.Attention(key=key)`): each module was summarised knowing no other module's
    consumers; a module that asked about one that exists is summarised again with all of them,
    until nothing changes (a chain of n modules takes n rounds). A consumer a package
    re-exports (`from .nn.resnet import ResNet` in `pkg/__init__.py`) is listed under that name
    too (`pkg.ResNet`)."""
    defined = dict(index.key_consumers)  # by the modules that define them
    told: dict[str, dict[str, KeyConsumer]] = dict.fromkeys(asked, {})  # what each was told
    for _ in range(MAX_CONSUMER_ROUNDS):
        _with_reexports(index, defined, reexports)
        changed = False
        for key in sorted(asked):
            known = asked[key].informative(index.key_consumers)
            if known == told[key]:
                continue
            consumers, asked[key] = _consumers_knowing(
                sources[key], index, key, known, jit_decorators, store, on_parsed
            )
            if between_modules is not None:
                between_modules()
            told[key] = known
            site_name = index.sites[key].name
            before = {n: c for n, c in defined.items() if _defined_in(n, site_name)}
            if consumers != before:
                for name in before:
                    del defined[name]
                defined.update(consumers)
                changed = True
        if not changed:
            break
    _with_reexports(index, defined, reexports)


def _with_reexports(
    index: ProjectIndex,
    defined: Mapping[str, KeyConsumer],
    reexports: Mapping[str, list[Export]],
) -> None:
    """`index.key_consumers`: the consumers as defined, and under each name a module of the
    project re-exports them by (through chains of re-exports), or a class inherits them by
    from a base another module defines (`pkg.sampler.Sampler.get_key` for `JObj.get_key`)."""
    merged = dict(defined)
    for _ in range(MAX_CONSUMER_ROUNDS):
        added = False
        members: dict[str, list[tuple[str, KeyConsumer]]] = {}  # module or class → its names
        for qualified, consumer in merged.items():
            owner, _, last = qualified.rpartition(".")
            members.setdefault(owner, []).append((last, consumer))
        for module, exports in sorted(reexports.items()):
            for name, target, own in exports:
                if name.endswith("*"):  # `*`, or `Class.*` for what a class inherits
                    found = [
                        (name[:-1] + last, c)
                        for last, c in members.get(target, ())
                        if last not in own and (name == "*" or any(c[1:]))
                    ]
                else:
                    found = [(name, merged[target])] if target in merged else []
                for exported, consumer in found:
                    if f"{module}.{exported}" not in merged:
                        merged[f"{module}.{exported}"] = consumer
                        added = True
        if not added:
            break
    index.key_consumers.clear()
    index.key_consumers.update(merged)


def _defined_in(qualified: str, module: str) -> bool:
    head, _, name = qualified.rpartition(".")
    return head == module and "." not in name


def _consumers_knowing(
    data: bytes,
    project: ProjectIndex,
    path: str,
    known: Mapping[str, KeyConsumer],
    jit_decorators: tuple[str, ...],
    store: Store | None,
    on_parsed: OnParsed | None = None,
) -> tuple[dict[str, KeyConsumer], Asked]:
    """The module's key consumers, its calls to the project's consumers followed (`known`: the
    informative ones it asked about before, for the cache key); `on_parsed` is given the module
    as parsed (its key findings too are those of what is known now)."""
    site = project.sites[path]
    key = ""
    if store is not None:
        key = key_of(
            code_version(),
            data,
            site.name,
            site.package or "",
            json.dumps([jit_decorators, sorted(project.marks.get(path, {}))]),
            json.dumps(sorted(_consumers_to_json(known).items())),
        )
        cached = store.get(key)
        if cached is not None:
            consumers, names = cached
            return _consumers_from_json(consumers), Asked.from_json(names)
    text = data.decode("utf-8")
    module = _index_of(text, path, jit_decorators, site.package, project.marks.get(path, {}))
    view = AskedNames(project.key_consumers)
    module.key_consumers = view
    consumers = key_consumers(module, site.name)
    if on_parsed is not None:
        on_parsed(_parsed(project, path, text, module, key_rules_only=True))
    names = view.asked
    if store is not None:
        store.put(key, [_consumers_to_json(consumers), names.to_json()])
    return consumers, names


def _consumers_to_json(consumers: Mapping[str, KeyConsumer]) -> dict[str, list[Any]]:
    return {
        name: [list(p), list(c), [list(g) for g in gs], list(w)]
        for name, (p, c, gs, w) in consumers.items()
    }


def _consumers_from_json(consumers: Mapping[str, list[Any]]) -> dict[str, KeyConsumer]:
    return {
        name: (tuple(p), tuple(c), tuple((k, o) for k, o in gs), tuple(w))
        for name, (p, c, gs, w) in consumers.items()
    }


def _outgoing(
    data: bytes,
    project: ProjectIndex,
    path: str,
    jit_decorators: tuple[str, ...],
    store: Store | None,
    keep: bool = False,
) -> tuple[
    list[tuple[str, TraceKind, TraceReason]],
    dict[str, KeyConsumer],
    ParsedModule | None,
    Asked,
    list[Export],
    ClassMembers,
]:
    """What the module's traced code calls in other modules, its functions that consume PRNG
    keys (both empty when it does not parse); with `keep`, the module as parsed; the project
    consumers it asked about; what it re-exports of its package (`_project_reexports`) or its
    classes inherit from other modules; and its classes' members (`async_members`) with the
    methods it calls through `self` in loops (`methods_called_in_loops`)."""
    key = ""
    site = project.sites[path]
    marks = project.marks.get(path, {})
    package = site.package
    if store is not None:
        marked = sorted((n, int(k), r.to_json()) for n, (k, r) in marks.items())
        key = key_of(
            code_version(), data, site.name, package or "", json.dumps([jit_decorators, marked])
        )
        cached = store.get(key)
        if cached is not None:
            calls, consumers, names, exported, members = cached
            outgoing = [(q, TraceKind(k), TraceReason.from_json(how)) for q, k, how in calls]
            exports = [(n, t, tuple(own)) for n, t, own in exported]
            consumed = _consumers_from_json(consumers)
            listed = [(n, bool(j)) for n, j in members[0]]
            facts = (listed, list(members[1]))
            return outgoing, consumed, None, Asked.from_json(names), exports, facts
    parsed = None
    try:
        text = data.decode("utf-8")
        module = _index_of(text, path, jit_decorators, package, marks)
    except (UnicodeDecodeError, SyntaxError, ValueError, RecursionError):
        outgoing, consumers, names, exports, members = [], {}, Asked(), [], ([], [])
    else:
        view = AskedNames({})
        module.key_consumers = view
        outgoing = list(module.outgoing)
        consumers = key_consumers(module, site.name)
        names = view.asked
        exports = _project_reexports(module.imports, package) if _is_init(path) else []
        exports += _inherited_methods(module)
        members = (async_members(module), methods_called_in_loops(module.tree, module.lines))
        if keep:
            parsed = _parsed(project, path, text, module)
    if store is not None:
        calls = [(q, int(k), how.to_json()) for q, k, how in outgoing]
        store.put(key, [calls, _consumers_to_json(consumers), names.to_json(), exports, members])
    return outgoing, consumers, parsed, names, exports, members


def _parsed(
    project: ProjectIndex, path: str, text: str, module: ModuleIndex, key_rules_only: bool = False
) -> ParsedModule:
    """The module as parsed, with the marks it has now (a copy: later modules may still mark
    it) and the key consumers its index asks of."""
    marks = dict(project.marks.get(path, {}))
    view = replace(
        project.view(path), traced_from_outside=marks, key_consumers=module.key_consumers
    )
    return ParsedModule(path, text, module, view, key_rules_only)


def _index_of(
    text: str,
    path: str,
    jit_decorators: tuple[str, ...],
    package: str | None,
    marks: Mapping[str, tuple[TraceKind, TraceReason]],
) -> ModuleIndex:
    return build_index(
        parse_python(text, path),
        jit_decorators,
        split_lines(text),
        package=package,
        traced_from_outside=marks,
    )


def _is_init(path: str) -> bool:
    return Path(path).name == "__init__.py"


def _project_reexports(imports: ImportTable, package: str | None) -> list[Export]:
    """Each name of its own package a package's `__init__` imports at module level (re-exports
    it), and ("*", module) for each star import."""
    root = (package or "").partition(".")[0]
    if not root:
        return []
    named: list[Export] = [
        (n, t, ()) for n, t in sorted(imports.aliases.items()) if t.startswith(root + ".")
    ]
    return named + [("*", m, ()) for m in imports.starred if m.partition(".")[0] == root]


def _inherited_methods(module: ModuleIndex) -> list[Export]:
    """("Class.*", base, the names it defines) for each base of a module-level class imported
    from elsewhere (`class Sampler(JObj)`, `JObj` from `..jobj`): the class has the base's
    methods it does not define (a subclass in a third module calls `self.get_key(key)`). Only
    a method that consumes a key is inherited: one that does not may call a method the class
    overrides with one that does (`rvs` calling `self._rvs`), so what it does there is unknown."""
    found: list[Export] = []
    root = (module.imports.package or "").partition(".")[0]
    if not root:
        return found
    for class_info in module.top_level_classes():
        own = tuple(sorted(class_info.all_methods()))
        for ancestor in class_info.lineage():
            bases = [b for b in ancestor.base_names if b.startswith(root + ".")]
            found += [(f"{class_info.node.name}.*", base, own) for base in bases]
    return found


_IMPORT = re.compile(
    rb"^[ \t]*(?:from[ \t]+([.\w]+)[ \t]+import[ \t]+([^\n#;]*)|import[ \t]+([^\n#;]+))", re.M
)


def importers_first(
    sources: Mapping[str, bytes], sites: Mapping[str, ModuleSite], by_name: Mapping[str, str]
) -> list[str]:
    """The modules, each after the modules that import it (as far as a text scan of their
    import lines tells; a cycle is cut anywhere), otherwise in path order."""
    imported: dict[str, list[str]] = {}
    for key in sorted(sources):
        names = []
        # the lines are only text (a docstring's too): whatever they hold, nothing raises
        for source, listed, plain in _IMPORT.findall(sources[key]):
            parts = (plain or listed).decode("ascii", "replace").strip("()\\ \t\r").split(",")
            heads = [words[0] for words in map(str.split, parts) if words]
            if plain:
                names += heads
                continue
            dotted = source.decode("ascii", "replace")
            module = dotted.lstrip(".")
            base = absolute_module(module or None, len(dotted) - len(module), sites[key].package)
            if base is not None:
                names += [base] + [f"{base}.{head}" if base else head for head in heads]
        imported[key] = [by_name[n] for n in names if n in by_name and by_name[n] != key]
    # depth first, each module listed once what it imports is: reversed, importers come first
    order: list[str] = []
    seen: set[str] = set()
    for start in sorted(sources):
        if start in seen:
            continue
        seen.add(start)
        stack = [(start, iter(imported[start]))]
        while stack:
            key, targets = stack[-1]
            target = next(targets, None)
            if target is None:
                stack.pop()
                order.append(key)
            elif target not in seen:
                seen.add(target)
                stack.append((target, iter(imported[target])))
    order.reverse()
    return order


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


# Where a project turns x64 on outside its packages: test setup and tool configuration.
X64_CONFIGURATION = (
    "conftest.py",
    "tests/conftest.py",
    "test/conftest.py",
    "pyproject.toml",
    "setup.cfg",
    "tox.ini",
    "pytest.ini",
    "README.md",
    "README.rst",
    "README",
)


PACKAGE_DEPTH = 6  # how far up a module looks for the package it belongs to


def _program(path: Path, tops: dict[str, str | None]) -> str:
    """The top-level package folder holding `path` (the highest folder with an `__init__.py`
    a few levels up, through folders without one, as in `pkg/_src/stats/mod.py`), or the file
    itself outside any package: what one
    `jax.config.update` reaches (every module of a package imports its `__init__`); `path` is
    resolved."""
    top = _package_top(str(path.parent), tops)
    return top if top is not None else str(path)


def _package_top(folder: str, tops: dict[str, str | None]) -> str | None:
    # asked for every module of a folder, and each answer costs a few `stat`s
    if folder in tops:
        return tops[folder]
    top = None
    for depth, parent in enumerate([Path(folder), *Path(folder).parents]):
        if depth >= PACKAGE_DEPTH:
            break
        if (parent / "__init__.py").is_file():
            top = str(parent)
    tops[folder] = top
    return top


def _x64_by_program(sources: Mapping[str, bytes], tops: dict[str, str | None]) -> dict[str, bool]:
    found: dict[str, bool] = {}
    for key, data in sources.items():
        program = _program(Path(key), tops)
        if not found.get(program):
            found[program] = mentions_x64(data.decode("utf-8", "replace"))
    roots: dict[Path, Path | None] = {}
    packages_beside: dict[Path, bool] = {}  # a folder → does a package in it turn x64 on?
    for program, enabled in found.items():
        if enabled:
            continue
        path = Path(program)
        # What reaches the program whichever files are linted (the command line and flake8,
        # which lints one file at a time, must agree): the project's declared entry points
        # (a console script turning x64 on before importing everything), the `__init__.py` of
        # packages a script or test sits beside, and configuration files.
        root = _project_root(path, roots)
        found[program] = (
            (root is not None and _entry_points_enable_x64(root))
            or (path.is_file() and _nearby_packages_enable_x64(path, packages_beside))
            or _configuration_enables_x64(path)
        )
    return found


ENTRY_POINT = re.compile(r"=\s*([A-Za-z_][\w.]*)\s*:")


def _entry_points_enable_x64(root: Path) -> bool:
    """Does a console script the project declares (`pyproject.toml`, `setup.cfg`, an unpacked
    wheel's `entry_points.txt`) live in a module that turns x64 on?"""
    declared = [
        root / "pyproject.toml",
        root / "setup.cfg",
        *root.glob("*.dist-info/entry_points.txt"),
    ]
    for path in declared:
        try:
            text = path.read_text("utf-8", "replace")
        except OSError:
            continue
        for module in ENTRY_POINT.findall(text):
            relative = Path(*module.split("."))
            for candidate in (root / f"{relative}.py", root / relative / "__init__.py"):
                try:
                    if candidate.is_file() and mentions_x64(
                        candidate.read_text("utf-8", "replace")
                    ):
                        return True
                except OSError:
                    continue
    return False


def _nearby_packages_enable_x64(path: Path, packages_beside: dict[Path, bool]) -> bool:
    """Does a package beside the script, or beside a folder a few levels up, turn x64 on in
    its `__init__.py` (`tests/test_x.py` next to `pkg/`)? `packages_beside` keeps the answer
    for each folder: the scripts of one folder share it (150 scripts in one folder listed
    it 150 times, 71,708 `is_file` calls: 3.6 s of a 9 s run)."""
    for folder in list(path.parents)[:4]:
        if folder not in packages_beside:
            packages_beside[folder] = _a_package_in_enables_x64(folder)
        if packages_beside[folder]:
            return True
    return False


def _a_package_in_enables_x64(folder: Path) -> bool:
    try:
        children = list(folder.iterdir())
    except OSError:
        return False
    for child in children:
        init = child / "__init__.py"
        try:
            if init.is_file() and mentions_x64(init.read_text("utf-8", "replace")):
                return True
        except OSError:
            continue
    return False


PROJECT_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", ".git")


def _project_root(path: Path, cache: dict[Path, Path | None]) -> Path | None:
    """The nearest folder above `path` that is a project's root (a `pyproject.toml`,
    `setup.py`, `setup.cfg` or `.git`, or an unpacked wheel's `*.dist-info` beside it)."""
    for folder in list(path.parents)[:8]:
        if folder not in cache:
            cache[folder] = folder if _is_project_root(folder) else None
        if cache[folder] is not None:
            return folder
    return None


def _is_project_root(folder: Path) -> bool:
    if any((folder / marker).exists() for marker in PROJECT_MARKERS):
        return True
    try:
        return any(child.suffix == ".dist-info" for child in folder.iterdir())
    except OSError:
        return False


def _configuration_enables_x64(program: Path) -> bool:
    """Does a conftest or configuration file beside the program (or one level up) turn x64 on?"""
    for folder in (program.parent, program.parent.parent):
        for name in X64_CONFIGURATION:
            candidate = folder / name
            try:
                if candidate.is_file() and mentions_x64(candidate.read_text("utf-8", "replace")):
                    return True
            except OSError:
                continue
    return False
