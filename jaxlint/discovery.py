"""Command-line PATHS → the files to lint, honouring excludes and `.gitignore` files."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import pathspec

from jaxlint.analysis.source import special_file_kind
from jaxlint.engine.config import DEFAULT_EXCLUDES, Config

LINTED_SUFFIXES = (".py", ".ipynb")


@dataclass(frozen=True)
class Discovery:
    """The files found, in sorted order, the problems met on the way (one message each), and
    what was left out because it is not a file that can be read (a FIFO, a device)."""

    files: tuple[Path, ...]
    errors: tuple[str, ...]
    skipped: tuple[str, ...] = ()


@dataclass(frozen=True)
class _IgnoreFile:
    """The patterns of one `.gitignore`, which apply to paths below its folder."""

    folder: Path
    spec: pathspec.GitIgnoreSpec

    def decision(self, path: Path, is_dir: bool) -> bool | None:
        """True (ignored), False (re-included by `!`) or None (no pattern matches)."""
        try:
            relative = path.relative_to(self.folder).as_posix()
        except ValueError:
            return None
        if is_dir:
            relative += "/"
        decision = None
        # Git's rule: the last matching pattern of a file wins.
        for pattern in self.spec.patterns:
            if pattern.include is not None and pattern.match_file(relative):
                decision = pattern.include
        return decision


def _read_ignore_file(folder: Path, name: str = ".gitignore") -> _IgnoreFile | None:
    candidate = folder / name
    try:
        lines = candidate.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    return _IgnoreFile(folder, pathspec.GitIgnoreSpec.from_lines(lines))


def _is_ignored(path: Path, is_dir: bool, ignore_files: Sequence[_IgnoreFile]) -> bool:
    # The deepest .gitignore with an opinion decides, as in git.
    for ignore_file in reversed(ignore_files):
        decision = ignore_file.decision(path, is_dir)
        if decision is not None:
            return decision
    return False


def _repository_root(folder: Path) -> Path | None:
    for candidate in (folder, *folder.parents):
        if (candidate / ".git").exists():
            return candidate
    return None


def _ancestor_ignore_files(folder: Path, config: Config) -> list[_IgnoreFile]:
    """The `.gitignore` files above `folder`, up to the repository or config root, outer first."""
    root = _repository_root(folder)
    if root is None and config.root is not None and folder.is_relative_to(config.root):
        root = config.root
    if root is None:
        return []
    found = []
    info_exclude = _read_ignore_file(root / ".git" / "info", "exclude")
    if info_exclude is not None:
        found.append(_IgnoreFile(root, info_exclude.spec))
    for candidate in reversed(folder.parents):
        if candidate.is_relative_to(root):
            ignore_file = _read_ignore_file(candidate)
            if ignore_file is not None:
                found.append(ignore_file)
    return found


def _walk(
    folder: Path,
    config: Config,
    ignore_files: list[_IgnoreFile],
    visited: set[str],
    files: list[Path],
    errors: list[str],
) -> None:
    real = os.path.realpath(folder)
    if real in visited:  # a symlink loop, or the same folder named twice
        return
    visited.add(real)
    own = _read_ignore_file(folder)
    if own is not None:
        ignore_files = [*ignore_files, own]
    try:
        with os.scandir(folder) as entries:
            children = sorted(entries, key=lambda entry: entry.name)
    except OSError as error:
        errors.append(f"{folder}: cannot read folder: {error.strerror or error}")
        return
    absolute_folder = Path(os.path.abspath(folder))
    for entry in children:
        path = folder / entry.name
        absolute = absolute_folder / entry.name
        try:
            is_dir = entry.is_dir()
        except OSError:  # a symlink loop: a file that cannot be read, said so when linted
            is_dir = False
        if is_dir:
            if entry.name in DEFAULT_EXCLUDES or config.is_excluded(path):
                continue
            if _is_ignored(absolute, True, ignore_files):
                continue
            _walk(path, config, ignore_files, visited, files, errors)
        elif entry.name.endswith(LINTED_SUFFIXES):
            if config.is_excluded(path) or _is_ignored(absolute, False, ignore_files):
                continue
            files.append(path)  # a FIFO or device among them is skipped in `discover`


def _excluded_by_name(path: Path, config: Config) -> bool:
    """Would a walk from the project root leave `path` out (exclude, default excludes,
    `.gitignore`)?"""
    absolute = Path(os.path.abspath(path))
    top = _repository_root(absolute.parent) or config.root or Path.cwd()
    inside = absolute.relative_to(top).parts if absolute.is_relative_to(top) else path.parts
    if config.is_excluded(path) or any(part in DEFAULT_EXCLUDES for part in inside[:-1]):
        return True
    ignore_files = _ancestor_ignore_files(absolute.parent, config)
    own = _read_ignore_file(absolute.parent)
    if own is not None:
        ignore_files.append(own)
    return _is_ignored(absolute, absolute.is_dir(), ignore_files) or _named_folder_is_ignored(
        absolute.parent, ignore_files
    )


def _named_folder_is_ignored(folder: Path, ignore_files: Sequence[_IgnoreFile]) -> bool:
    """Is `folder`, or a folder above it, ignored by the `.gitignore` files above it?"""
    return any(
        _is_ignored(candidate, True, ignore_files) for candidate in (folder, *folder.parents)
    )


def discover(
    paths: Iterable[str | Path], config: Config, *, force_exclude: bool = False
) -> Discovery:
    """The files under `paths` (default `.`): folders are walked, named files always kept —
    unless `force_exclude`, when `exclude` and `.gitignore` apply to named paths too (what a
    pre-commit hook needs: pre-commit names every file)."""
    roots = [Path(p) for p in paths] or [Path(".")]
    files: list[Path] = []
    errors: list[str] = []
    visited: set[str] = set()
    for root in roots:
        if force_exclude and _excluded_by_name(root, config):
            continue
        if root.is_dir():
            absolute = Path(os.path.abspath(root))
            inherited = _ancestor_ignore_files(absolute, config)
            if _named_folder_is_ignored(absolute, inherited):
                # the user named an ignored folder (a vendored library, build output): lint it;
                # only .gitignore files inside it prune what it holds
                inherited = []
            _walk(root, config, inherited, visited, files, errors)
        elif os.path.lexists(root):  # a broken symlink or a loop is linted: it says why it fails
            files.append(root)
        else:
            errors.append(f"{root}: no such file or folder")
    unique: dict[str, Path] = {}
    for path in files:
        # each link of a loop is its own unreadable file: realpath names one of them for all
        key = os.path.realpath(path) if os.path.exists(path) else os.path.abspath(path)
        unique.setdefault(key, path)
    ordered: list[Path] = []
    skipped: list[str] = []
    for path in sorted(unique.values(), key=lambda path: path.as_posix()):
        kind = special_file_kind(path)
        if kind is None:
            ordered.append(path)
        else:  # reading a FIFO blocks until someone writes to it
            skipped.append(f"{path}: skipped: {kind}, not a file")
    return Discovery(files=tuple(ordered), errors=tuple(errors), skipped=tuple(skipped))
