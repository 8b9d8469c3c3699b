"""Verification results kept in `.jaxlint_cache/`, so a second `--fix` over the same tree does
no JAX work, and identical functions (200 copies of one file) are verified once.

A result is keyed by everything it depends on: jaxlint's code, the interpreter and JAX version
the child runs, the request (module before and after, target, rule, recorded signatures), and
the content of the local modules the child could import (the `.py` files of the module's package
and folder). Installed packages other than JAX are not part of the key.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path

from jaxlint.cache import Store, code_version, key_of
from jaxlint.verify.namespace import package_context
from jaxlint.verify.protocol import VerifyRequest, VerifyResult, result_from_wire, result_to_wire

MAX_LOCAL_FILES = 3000  # a larger tree is not hashed: its results are not cached
_digests: dict[tuple[str, int, int], str] = {}  # (path, size, mtime) → sha256 of the content


class ResultCache:
    """The `verify` entries of one cache folder."""

    def __init__(self, root: Path, executable: str) -> None:
        self._store = Store(root, "verify")
        self._executable = os.path.realpath(executable)

    def keys(self, requests: Sequence[VerifyRequest]) -> list[str | None]:
        """Each request's key, or None when its local modules are too many to hash; the local
        modules of one file are walked and hashed once for all its requests."""
        local: dict[tuple[str, str], str | None] = {}
        out: list[str | None] = []
        for request in requests:
            where = (request.path, request.original_source)
            if where not in local:
                local[where] = local_modules_digest(*where)
            digest = local[where]
            out.append(None if digest is None else self._key(request, digest))
        return out

    def _key(self, request: VerifyRequest, local: str) -> str:
        return key_of(
            code_version(),
            self._executable,
            _jax_version(),
            local,
            request.original_source,
            request.rewritten_source,
            request.target,
            request.fix_code,
            str(request.require_fewer_eqns),
            str(request.numpy_reference),
            str(request.restages),
            str(request.rewrites_prints),
            str(request.judge_run_time),
            *request.recorded,
        )

    def get(self, key: str, request: VerifyRequest) -> VerifyResult | None:
        data = self._store.get(key)
        if not isinstance(data, dict):
            return None
        try:
            return result_from_wire({**data, "request_id": request.request_id})
        except (TypeError, ValueError):
            return None

    def put(self, key: str, result: VerifyResult) -> None:
        """Keep a result the child reached on its own (not a crash, a timeout or the budget)."""
        if result.seconds is None or result.status in ("timeout", "jax-missing"):
            return
        self._store.put(key, result_to_wire(result))


def _jax_version() -> str:
    try:
        return metadata.version("jax")
    except metadata.PackageNotFoundError:
        return ""


def local_modules_digest(path: str, source: str) -> str | None:
    """A digest of the `.py` files the module could import locally: its whole top package, and
    the modules beside the package (or beside the module) and on its sys.path entries."""
    folder = os.path.dirname(os.path.abspath(path))
    top = folder
    while os.path.isfile(os.path.join(top, "__init__.py")) and os.path.dirname(top) != top:
        top = os.path.dirname(top)
    files: set[str] = set()
    if top != folder:  # inside a package: all of it
        package = os.path.join(top, os.path.relpath(folder, top).split(os.sep)[0])
        for base, dirs, names in os.walk(package):
            dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "__pycache__")
            files.update(os.path.join(base, n) for n in names if n.endswith(".py"))
            if len(files) > MAX_LOCAL_FILES:
                return None
    entries, _ = package_context(path, source)
    for entry in {top, folder, *entries}:
        try:
            names = os.listdir(entry)
        except OSError:
            continue
        files.update(os.path.join(entry, n) for n in names if n.endswith(".py"))
    if len(files) > MAX_LOCAL_FILES:
        return None
    digest = hashlib.sha256()
    for name in sorted(files):
        digest.update(f"{name}\0{_file_digest(name)}\0".encode("utf-8", "surrogateescape"))
    return digest.hexdigest()


def _file_digest(path: str) -> str:
    try:
        status = os.stat(path)
    except OSError:
        return "missing"
    key = (path, status.st_size, status.st_mtime_ns)
    if key not in _digests:
        try:
            with open(path, "rb") as file:
                _digests[key] = hashlib.sha256(file.read()).hexdigest()
        except OSError:
            return "unreadable"
    return _digests[key]
