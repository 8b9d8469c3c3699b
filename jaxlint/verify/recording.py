"""Recorded signatures: `--examples-from CMD` runs CMD once with the verify targets wrapped.

The parent side (no JAX here). `prepare_examples` finds the functions the verified fixes of the
given files would need to verify, runs CMD (the project's tests, a training script) once in a
child with a `sitecustomize` that loads `record_shim.py`, and stores what each target was called
with under `<project root>/.jaxlint_cache/examples/`, keyed by the hash of the target's module
source and the target's name. `recorded_for` reads them back for a verification request, with or
without `--examples-from`, as long as the module's source is unchanged.

A record is a JSON object `{"args": [...], "kwargs": {...}, "init": {...} | null}` whose leaves are
`{"t": "array", "shape": [...], "dtype": "float32"}` and `{"t": "value", "v": ...}` and whose
containers are `{"t": "tuple" | "list", "items": [...]}` and `{"t": "dict", "keys": [...], ...}`
(see record_shim). Requests carry them as JSON strings (`VerifyRequest.recorded`).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shlex
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING

if TYPE_CHECKING:  # (the engine loads only when recording runs)
    from jaxlint.engine.config import Config

from jaxlint.cache import cache_folder, project_root

DEFAULT_TIMEOUT_S = 300.0
MAX_RECORDS = 8  # distinct signatures kept per target
EXAMPLES_FOLDER = "examples"
_SHIM = Path(__file__).resolve().with_name("record_shim.py")

_SITECUSTOMIZE = """\
# Written by jaxlint: load its shims, then the sitecustomize they shadow.
import os as _os
import sys as _sys


def _jaxlint_shims():
    import importlib.machinery
    import importlib.util

    here = _os.path.dirname(_os.path.abspath(__file__))
    for name, path in {shims!r}:
        try:
            spec = importlib.util.spec_from_file_location(name, path)
            shim = importlib.util.module_from_spec(spec)
            _sys.modules[name] = shim
            spec.loader.exec_module(shim)
            shim.install()
        except Exception:
            pass
    _sys.path[:] = [p for p in _sys.path if _os.path.abspath(p or ".") != here]
    try:
        spec = importlib.machinery.PathFinder.find_spec("sitecustomize", _sys.path)
        if spec is not None and spec.loader is not None:
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
    except Exception:
        pass


_jaxlint_shims()
del _jaxlint_shims, _os, _sys
"""


@dataclass(frozen=True)
class TargetRef:
    """One function to record: its module's file, that file's text, its qualified name."""

    path: str
    source: str
    target: str


@dataclass
class RecordingOutcome:
    """What one run of CMD gave: records per target, and what to tell the user."""

    records: dict[TargetRef, list[str]] = field(default_factory=dict)
    messages: list[str] = field(default_factory=list)


# ---------------------------------------------------------------- the cache


def cache_key(source: str, target: str) -> str:
    """The cache key of a target: its module's source and its qualified name."""
    digest = hashlib.sha256(source.encode("utf-8", "surrogatepass"))
    digest.update(b"\0" + target.encode("utf-8"))
    return digest.hexdigest()[:40]


def _examples_folder(path: str, create: bool) -> Path:
    folder = cache_folder(project_root(path), create) / EXAMPLES_FOLDER
    if create:
        folder.mkdir(parents=True, exist_ok=True)
    return folder


def store(ref: TargetRef, records: Sequence[str]) -> None:
    """Write a target's records to the cache (replacing older ones for the same source)."""
    folder = _examples_folder(ref.path, create=True)
    data = {"path": ref.path, "target": ref.target, "records": [json.loads(r) for r in records]}
    final = folder / f"{cache_key(ref.source, ref.target)}.json"
    handle, temp = tempfile.mkstemp(dir=folder, prefix=".", suffix=".tmp")
    with os.fdopen(handle, "w", encoding="utf-8") as out:
        json.dump(data, out, indent=1)
    os.chmod(temp, 0o644)
    os.replace(temp, final)


def recorded_for(path: str, source: str, target: str) -> tuple[str, ...]:
    """The cached records of `target` in the module `path` with this source; () when none."""
    if not path or path == "-" or path.endswith(".ipynb"):
        return ()
    try:
        file = _examples_folder(path, create=False) / f"{cache_key(source, target)}.json"
        if not file.is_file():
            return ()
        data = json.loads(file.read_text(encoding="utf-8"))
        if data.get("target") != target:
            return ()
        return tuple(json.dumps(r, sort_keys=True) for r in data["records"][:MAX_RECORDS])
    except (OSError, ValueError, KeyError, TypeError):
        return ()


# ---------------------------------------------------------------- which functions to record


def verify_targets(files: Iterable[Path], config: Config) -> list[TargetRef]:
    """The functions the verified-kind fixes of `files` would verify (first round)."""
    from jaxlint.analysis.source import mentions_jax
    from jaxlint.engine import suppression
    from jaxlint.engine.edits import Edit
    from jaxlint.engine.lint import analyze_module, enabled_rules

    refs: list[TargetRef] = []
    for file in files:
        path = str(file)
        if not path.endswith(".py"):
            continue
        try:
            source = file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        if suppression.file_is_skipped(source) or not mentions_jax(source, config.jit_decorators):
            continue
        try:
            analyzed, _ = analyze_module(source, path, config, enabled_rules(config, path))
        except Exception:  # noqa: BLE001 — a file the engine chokes on is linted (and reported) later
            continue
        names: list[str] = []
        for finding in analyzed.findings:
            edit = finding.fix
            if (
                finding.fix_kind == "verified"
                and isinstance(edit, Edit)
                and edit.verify_target
                and edit.verify_target not in names
            ):
                names.append(edit.verify_target)
        refs.extend(TargetRef(path, source, name) for name in names)
    return refs


# ---------------------------------------------------------------- running CMD


@dataclass(frozen=True)
class Shim:
    """A stdlib-only module loaded, by file path, in every Python process a command starts:
    its name in `sys.modules`, its file, and the environment variables it reads."""

    name: str
    path: Path
    environment: dict[str, str]


def command_argv(command: str, label: str) -> tuple[list[str], str]:
    """The command split as a shell would, or a problem to report."""
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        return [], f"{label}: cannot parse the command: {exc}"
    return argv, "" if argv else f"{label}: empty command"


def run_with_shims(
    argv: list[str], shims: Sequence[Shim], work: str, timeout_s: float, cwd: str | None
) -> str:
    """Run `argv` once, each of its Python processes loading `shims` from a `sitecustomize` in
    `work`; the problem to report (it failed, timed out), or ''."""
    shim_dir = os.path.join(work, "site")
    os.makedirs(shim_dir, exist_ok=True)
    listed = [(shim.name, str(shim.path)) for shim in shims]
    with open(os.path.join(shim_dir, "sitecustomize.py"), "w", encoding="utf-8") as handle:
        handle.write(_SITECUSTOMIZE.format(shims=listed))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (shim_dir, env.get("PYTHONPATH", "")) if p)
    for shim in shims:
        env.update(shim.environment)
    return _run(_shim_first(argv, shim_dir), env, timeout_s, cwd, os.path.join(work, "output.log"))


def recording_shim(refs: Sequence[TargetRef], work: str) -> Shim:
    """The shim that wraps `refs` and writes their calls under `work`."""
    out_dir = os.path.join(work, "records")
    os.makedirs(out_dir, exist_ok=True)
    targets_file = os.path.join(work, "targets.json")
    with open(targets_file, "w", encoding="utf-8") as handle:
        json.dump([{"path": os.path.abspath(r.path), "target": r.target} for r in refs], handle)
    environment = {"JAXLINT_RECORD_TARGETS": targets_file, "JAXLINT_RECORD_DIR": out_dir}
    return Shim("_jaxlint_record_shim", _SHIM, environment)


def record_examples(
    command: str,
    refs: Sequence[TargetRef],
    *,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    cwd: str | None = None,
) -> RecordingOutcome:
    """Run `command` once with every target wrapped; never raises for the command's problems."""
    label = f"--examples-from {command!r}"
    argv, problem = command_argv(command, label)
    if problem or not refs:
        return RecordingOutcome(messages=[problem] if problem else [])
    with tempfile.TemporaryDirectory(prefix="jaxlint-record-") as work:
        shim = recording_shim(refs, work)
        problem = run_with_shims(argv, [shim], work, timeout_s, cwd)
        return collected_records(refs, work, problem, label)


def collected_records(
    refs: Sequence[TargetRef], work: str, problem: str, label: str
) -> RecordingOutcome:
    """What the recording shim wrote under `work`, and what to say about it."""
    outcome = RecordingOutcome()
    raw = _read_records(os.path.join(work, "records"))
    by_key = {f"{os.path.realpath(r.path)}::{r.target}": r for r in refs}
    for key, records in raw.items():
        ref = by_key.get(key)
        if ref is not None and records:
            outcome.records[ref] = records
    count = sum(len(r) for r in outcome.records.values())
    opaque = sum(1 for rs in outcome.records.values() for r in rs if '"opaque"' in r)
    got = (
        f"{count} signature{'s' if count != 1 else ''} of "
        f"{len(outcome.records)}/{len(refs)} function{'s' if len(refs) != 1 else ''}"
    )
    if opaque:
        got += f" ({opaque} with arguments it cannot rebuild)"
    if problem:
        kept = f"kept the {got} recorded before" if count else "nothing recorded"
        outcome.messages.append(f"{label}: {problem}; {kept}; other example inputs are used")
    elif not count:
        outcome.messages.append(
            f"{label}: the command ran but called none of the {len(refs)} function"
            f"{'s' if len(refs) != 1 else ''} to verify; nothing recorded"
        )
    else:
        outcome.messages.append(f"{label}: recorded {got}")
    return outcome


def _shim_first(argv: list[str], shim_dir: str) -> list[str]:
    """`env PYTHONPATH=src pytest` sets its own PYTHONPATH, which would drop the shim's folder:
    the shim goes first in that one too."""
    if os.path.basename(argv[0]) != "env":
        return argv
    changed = list(argv)
    tokens = iter(enumerate(argv[1:], start=1))
    for position, token in tokens:
        if token in ("-u", "--unset", "-C", "--chdir"):
            next(tokens, None)  # the option's argument
        elif token.startswith("-"):
            continue
        elif "=" in token:
            name, _, value = token.partition("=")
            if name == "PYTHONPATH":
                paths = os.pathsep.join(p for p in (shim_dir, value) if p)
                changed[position] = f"PYTHONPATH={paths}"
        else:
            break  # the command env runs
    return changed


def _run(argv: list[str], env: dict[str, str], timeout_s: float, cwd: str | None, log: str) -> str:
    """Run the command, its output in a file; a problem to report, or ''."""
    with open(log, "w+b") as output:
        try:
            process = subprocess.Popen(
                argv,
                cwd=cwd,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=output,
                stderr=subprocess.STDOUT,
                start_new_session=os.name == "posix",
            )
        except OSError as exc:
            return f"cannot run {argv[0]!r}: {exc.strerror or exc}"
        try:
            code = process.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            _kill(process)
            return f"did not finish within {timeout_s:g} s (--examples-timeout) and was stopped"
        except KeyboardInterrupt:
            _kill(process)
            raise
        if code != 0:
            return f"exited with code {code}{_last_line(output)}"
    return ""


def _kill(process: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        if os.name == "posix":
            os.killpg(process.pid, signal.SIGKILL)
        else:
            process.kill()
    process.wait()


def _last_line(output: IO[bytes]) -> str:
    """` (its last line of output)`, or '' when it printed nothing."""
    try:
        output.seek(0, os.SEEK_END)
        output.seek(max(0, output.tell() - 2000))
        lines = output.read().decode("utf-8", "replace").strip().splitlines()
    except OSError:
        return ""
    return f" ({lines[-1].strip()[:200]})" if lines else ""


def _read_records(folder: str) -> dict[str, list[str]]:
    """Merge every process's records: distinct ones per target, at most MAX_RECORDS."""
    merged: dict[str, list[str]] = {}
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".json"):
            continue
        try:
            with open(os.path.join(folder, name), encoding="utf-8") as handle:
                data = json.load(handle)
        except (OSError, ValueError):
            continue
        if not isinstance(data, dict):
            continue
        for key, records in data.items():
            kept = merged.setdefault(key, [])
            for record in records if isinstance(records, list) else ():
                text = json.dumps(record, sort_keys=True)
                if text not in kept and len(kept) < MAX_RECORDS:
                    kept.append(text)
    return merged


# ---------------------------------------------------------------- the entry point


def prepare_examples(
    files: Sequence[Path], config: Config, command: str, timeout_s: float = DEFAULT_TIMEOUT_S
) -> RecordingOutcome:
    """Record the verify targets of `files` by running `command`; store them in the cache.

    Says what happened on stderr; never raises for the command's or the cache's problems.
    """
    from jaxlint.verify.runner import jax_available

    refs = verify_targets(files, config)
    if refs and not jax_available():
        outcome = RecordingOutcome()
        outcome.messages.append(
            f"--examples-from {command!r}: not run: verification needs jaxlint[verify]"
        )
    elif not refs:
        outcome = RecordingOutcome()
        outcome.messages.append(
            f"--examples-from {command!r}: no function needs verification; the command was not run"
        )
    else:
        if sys.stderr.isatty():
            print(f"jaxlint: recording signatures with {command!r}…", file=sys.stderr, flush=True)
        outcome = record_examples(command, refs, timeout_s=timeout_s, cwd=os.getcwd())
    store_outcome(outcome)
    for message in outcome.messages:
        print(f"jaxlint: {message}", file=sys.stderr)
    return outcome


def store_outcome(outcome: RecordingOutcome) -> None:
    """Cache every target's records; a cache that cannot be written becomes a message."""
    for ref, records in outcome.records.items():
        try:
            store(ref, records)
        except OSError as exc:
            outcome.messages.append(f"cannot write the examples cache: {exc.strerror or exc}")
            break
