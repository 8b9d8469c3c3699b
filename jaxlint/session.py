"""One session for every surface: the configuration and the project index, built once and shared.

The command line, the flake8 plugin, the language server and `jaxlint verify` ask it for a
file's configuration and for what the project index says about the file, so a hazard that
depends on another module (a jitted `step` in `train.py` calling a helper in `losses.py`) is
found the same way by each of them, for a whole folder, one file named by pre-commit, a text on
stdin, or an editor buffer that is not saved yet.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Mapping
from pathlib import Path

from jaxlint.analysis.project import (
    MAX_MODULES,
    ProjectIndex,
    build_project_index,
    project_files,
    project_folder,
)
from jaxlint.analysis.project_view import ProjectView
from jaxlint.engine.config import Config, load_config
from jaxlint.observe.run import cached_params


class Session:
    """Configurations by folder and project indexes by project, kept while their inputs are
    unchanged (the modules' sizes and times on disk, the unsaved texts)."""

    def __init__(self, cache_root: Path | None = None) -> None:
        self.cache_root = cache_root
        self._configs: dict[Path, Config] = {}
        self._indexes: dict[tuple[object, ...], tuple[str, ProjectIndex]] = {}

    def config_for(self, path: str | Path) -> Config:
        """The `[tool.jaxlint]` configuration that applies to `path` (read once per folder)."""
        start = Path(path)
        folder = start if start.is_dir() else (start.parent if start.is_absolute() else Path.cwd())
        folder = Path(os.path.abspath(folder))
        if folder not in self._configs:
            self._configs[folder] = load_config(start=folder)
        return self._configs[folder]

    def index(
        self,
        files: Iterable[Path],
        jit_decorators: tuple[str, ...] = (),
        unsaved: Mapping[str, bytes] | None = None,
    ) -> ProjectIndex:
        """The index of the projects `files` belong to, with `unsaved` texts (by path) read
        instead of the disk where they differ from it; built again only when a module of it
        changed."""
        files = [Path(f) for f in files]
        unsaved = {path: data for path, data in (unsaved or {}).items() if _unsaved(path, data)}
        key = (tuple(sorted({project_folder(f) for f in files})), jit_decorators)
        fingerprint = _fingerprint(project_files(files), unsaved)
        kept = self._indexes.get(key)
        if kept is not None and kept[0] == fingerprint:
            return kept[1]
        # what an earlier `--observe` run saw the unchanged modules' jitted functions given:
        # the value analysis reads it here as the command line does
        observed = cached_params(project_files(files))
        index = build_project_index(
            files, jit_decorators, self.cache_root, unsaved=unsaved, observed_params=observed
        )
        self._indexes[key] = (fingerprint, index)
        return index

    def index_for(
        self,
        path: str,
        jit_decorators: tuple[str, ...] = (),
        unsaved: Mapping[str, bytes] | None = None,
    ) -> ProjectIndex | None:
        """The index of the project of the module at `path`; None for a name that is no module
        a project could import (`<stdin>`, `-`, a notebook)."""
        if not path.endswith(".py") or not os.path.isdir(os.path.dirname(os.path.abspath(path))):
            return None
        return self.index([Path(path)], jit_decorators, unsaved)

    def view(
        self,
        path: str,
        jit_decorators: tuple[str, ...] = (),
        unsaved: Mapping[str, bytes] | None = None,
    ) -> ProjectView | None:
        """What the project index says about the module at `path` (see `index_for`)."""
        index = self.index_for(path, jit_decorators, unsaved)
        return index.view(path) if index is not None else None


def _unsaved(path: str, data: bytes) -> bool:
    """Does `data` differ from what the disk holds at `path`, line endings apart (flake8 reads
    a CRLF file with its newlines translated)?"""
    try:
        with open(path, "rb") as handle:
            saved = handle.read()
    except OSError:
        return True
    return saved != data and saved.replace(b"\r\n", b"\n") != data.replace(b"\r\n", b"\n")


def _fingerprint(paths: list[Path], unsaved: Mapping[str, bytes]) -> str:
    """What an index was built from: each module's size and modification time, each unsaved
    text's digest."""
    digest = hashlib.sha256()
    for path in sorted(paths)[: MAX_MODULES + 1]:
        try:
            status = path.stat()
        except OSError:
            digest.update(f"{path}:missing\n".encode())
            continue
        digest.update(f"{path}:{status.st_size}:{status.st_mtime_ns}\n".encode())
    for unsaved_path in sorted(unsaved):
        digest.update(f"{os.path.realpath(unsaved_path)}:".encode())
        digest.update(hashlib.sha256(unsaved[unsaved_path]).digest())
    return digest.hexdigest()
