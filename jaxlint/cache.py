"""The cache folder: JSON entries keyed by content, one folder per kind of entry.

Keys hash everything a result depends on (jaxlint's own code, the configuration, the file's
bytes, what the project index says about it), so an entry is never stale: a change makes a new
key, and nothing is ever invalidated in place. The folder holds a `.gitignore` of `*`.
Writes are atomic (temp file, then rename) and never raise: an unwritable cache only means
a slower next run.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from functools import cache
from pathlib import Path
from typing import Any

CACHE_FOLDER = ".jaxlint_cache"
FORMAT = "v1"  # bump when an entry's layout changes


def project_root(path: str | os.PathLike[str]) -> Path:
    """The nearest folder at or above `path` holding pyproject.toml or .git; else the cwd."""
    start = Path(os.path.abspath(path))
    folder = start if start.is_dir() else start.parent
    for candidate in (folder, *folder.parents):
        if (candidate / "pyproject.toml").exists() or (candidate / ".git").exists():
            return candidate
    return Path.cwd()


def cache_folder(root: Path, create: bool) -> Path:
    """`<root>/.jaxlint_cache`, created with its `.gitignore` when `create`."""
    folder = root / CACHE_FOLDER
    if create:
        folder.mkdir(parents=True, exist_ok=True)
        ignore = folder / ".gitignore"
        if not ignore.exists():
            ignore.write_text("*\n", encoding="utf-8")
    return folder


def key_of(*parts: str | bytes) -> str:
    """A key from the parts an entry depends on."""
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part if isinstance(part, bytes) else part.encode("utf-8", "surrogatepass"))
        digest.update(b"\0")
    return digest.hexdigest()[:40]


@cache
def code_version() -> str:
    """jaxlint's own code as a key part: a changed rule makes every cached result stale."""
    package = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    for source in sorted(package.rglob("*.py")):
        status = source.stat()
        digest.update(
            f"{source.relative_to(package)}:{status.st_size}:{status.st_mtime_ns}".encode()
        )
    return digest.hexdigest()[:16]


class Store:
    """One kind of entry (`results`, `index`) in a cache folder."""

    def __init__(self, root: Path, kind: str) -> None:
        self.root = root
        self.folder = root / CACHE_FOLDER / FORMAT / kind

    def get(self, key: str) -> Any | None:
        try:
            return json.loads((self.folder / key[:2] / f"{key}.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None

    def put(self, key: str, value: Any) -> None:
        try:
            cache_folder(self.root, create=True)
            folder = self.folder / key[:2]
            folder.mkdir(parents=True, exist_ok=True)
            handle, temp = tempfile.mkstemp(dir=folder, prefix=".", suffix=".tmp")
        except OSError:
            return
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                json.dump(value, out)
            os.replace(temp, folder / f"{key}.json")
        except (OSError, TypeError, ValueError):
            with contextlib.suppress(OSError):
                os.unlink(temp)
