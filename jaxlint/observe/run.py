"""Run CMD once with the observation shim (and, when fixes will be verified, the recording shim
of `--examples-from`), read what it saw, and keep it per file under
`.jaxlint_cache/observed/`, keyed by the file's source: a later check of the unchanged file
shows the same run-time evidence without running CMD again."""

from __future__ import annotations

import functools
import hashlib
import json
import os
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from jaxlint.cache import cache_folder, project_root
from jaxlint.engine.config import Config
from jaxlint.observe.evidence import Seen, merge, observed_params, seen_in
from jaxlint.verify.recording import (
    Shim,
    collected_records,
    command_argv,
    recording_shim,
    run_with_shims,
    store_outcome,
    verify_targets,
)

OBSERVED_FOLDER = "observed"
_SHIM = Path(__file__).resolve().with_name("shim.py")


@dataclass
class Observation:
    """What one run of CMD showed: hazards by file (real paths), and what to tell the user."""

    command: str
    seen: dict[str, list[Seen]] = field(default_factory=dict)
    # resolved path → a jitted function's first line → parameter → "array" / "container"
    params: dict[str, dict[int, dict[str, str]]] = field(default_factory=dict)
    messages: list[str] = field(default_factory=list)


def observe(
    command: str,
    files: Sequence[Path],
    config: Config,
    *,
    timeout_s: float,
    record: bool,
    keep: bool = True,
) -> Observation:
    """Run `command` once with JAX watched; with `record`, also record the signatures of the
    functions the fixes of `files` will verify (as `--examples-from` does). With `keep`, keeps
    what it saw in the cache; says what happened on stderr; never raises for the command's
    problems."""
    label = f"--observe {command!r}"
    observation = Observation(command)
    argv, problem = command_argv(command, label)
    if problem:
        observation.messages.append(problem)
        _say(observation)
        return observation
    python_files = [f for f in files if f.suffix == ".py"]
    root = project_root(python_files[0] if python_files else Path.cwd())
    refs = verify_targets(python_files, config) if record else []
    if sys.stderr.isatty():
        print(f"jaxlint: observing {command!r}…", file=sys.stderr, flush=True)
    with tempfile.TemporaryDirectory(prefix="jaxlint-observe-") as work:
        out_dir = os.path.join(work, "observed")
        os.mkdir(out_dir)
        environment = {"JAXLINT_OBSERVE_DIR": out_dir, "JAXLINT_OBSERVE_ROOT": str(root)}
        shims = [Shim("_jaxlint_observe_shim", _SHIM, environment)]
        if refs:
            shims.append(recording_shim(refs, work))
        started = time.monotonic()
        problem = run_with_shims(argv, shims, work, timeout_s, os.getcwd())
        seconds = time.monotonic() - started
        raw = merge(_read_events(out_dir))
        if refs:
            recorded = collected_records(refs, work, problem, label)
            store_outcome(recorded)
            observation.messages.extend(recorded.messages)
    try:
        for seen in seen_in(raw):
            observation.seen.setdefault(os.path.realpath(seen.path), []).append(seen)
        observation.params = {
            os.path.realpath(path): params for path, params in observed_params(raw).items()
        }
    except (KeyError, TypeError, ValueError, IndexError) as exc:  # a shim of another version
        observation.seen, observation.params = {}, {}
        observation.messages.append(f"{label}: cannot read what the run showed: {exc!r}")
    observation.messages.insert(0, _report(label, raw, observation, seconds, problem))
    observation.messages.extend(f"{label}: not observed: {e}" for e in raw["errors"][:3])
    if keep:
        _store(observation, python_files)
    _say(observation)
    return observation


def _read_events(folder: str) -> list[dict[str, object]]:
    parts = []
    for name in sorted(os.listdir(folder)):
        if name.startswith("observed-") and name.endswith(".json"):
            try:
                with open(os.path.join(folder, name), encoding="utf-8") as handle:
                    data = json.load(handle)
            except (OSError, ValueError):
                continue
            if isinstance(data, dict):
                parts.append(data)
    return parts


def _report(
    label: str, raw: dict[str, object], observation: Observation, seconds: float, problem: str
) -> str:
    traces = raw["traces"]
    assert isinstance(traces, dict)
    compiles = sum(entry["count"] for entry in traces.values())
    hazards = sum(len(s) for s in observation.seen.values())
    saw = (
        f"{len(traces)} jitted function{'s' if len(traces) != 1 else ''} of the project traced "
        f"{compiles} time{'s' if compiles != 1 else ''}; {hazards} hazard"
        f"{'s' if hazards != 1 else ''} seen"
    )
    if problem:
        return f"{label}: {problem}; kept what it showed before: {saw}"
    return f"{label}: ran in {seconds:.1f} s: {saw}"


def _say(observation: Observation) -> None:
    for message in observation.messages:
        print(f"jaxlint: {message}", file=sys.stderr)


# ---------------------------------------------------------------- the cache


def _key(source: str) -> str:
    return hashlib.sha256(source.encode("utf-8", "surrogatepass")).hexdigest()[:40]


@functools.lru_cache(maxsize=256)
def _root(folder: str) -> Path:
    return project_root(folder)


def _folder(path: Path | str, create: bool) -> Path:
    folder = cache_folder(_root(os.path.dirname(os.path.abspath(path))), create) / OBSERVED_FOLDER
    if create:
        folder.mkdir(parents=True, exist_ok=True)
    return folder


def _store(observation: Observation, files: Sequence[Path]) -> None:
    """Each checked file's hazards and parameter kinds under its source's key; an older entry
    of a file the run saw nothing in goes."""
    for file in files:
        real = os.path.realpath(file)
        seen, params = observation.seen.get(real), observation.params.get(real)
        try:
            source = file.read_text(encoding="utf-8")
            target = _folder(file, create=bool(seen or params)) / f"{_key(source)}.json"
            if not (seen or params):
                target.unlink(missing_ok=True)
                continue
            data = {
                "path": str(file),
                "command": observation.command,
                "seen": [s.to_json() for s in seen or ()],
                "params": {str(line): kinds for line, kinds in (params or {}).items()},
            }
            target.write_text(json.dumps(data, indent=1), encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            message = f"cannot keep what --observe saw in {file}: {exc}"
            observation.messages.append(message)
            print(f"jaxlint: {message}", file=sys.stderr)
            return


@dataclass(frozen=True)
class Kept:
    """What an earlier observation run saw in one module, kept for its source."""

    command: str
    seen: list[Seen]
    params: dict[int, dict[str, str]]


def cached_observation(path: str | Path, source: str) -> Kept | None:
    """What an earlier observation run saw in the module at `path` with this very source;
    None when no run saw anything there."""
    if not str(path).endswith(".py") or not os.path.isfile(path):
        return None
    try:
        folder = _folder(path, create=False)
        if not _exists(folder):
            return None  # no observation run in this project: the common case, one stat
        file = folder / f"{_key(source)}.json"
        if not file.is_file():
            return None
        data = json.loads(file.read_text(encoding="utf-8"))
        params = {int(line): dict(kinds) for line, kinds in data.get("params", {}).items()}
        return Kept(data["command"], [Seen.from_json(s) for s in data["seen"]], params)
    except (OSError, ValueError, KeyError, TypeError):
        return None


@functools.lru_cache(maxsize=64)
def _exists(folder: Path) -> bool:
    return folder.is_dir()


def cached_params(files: Sequence[Path]) -> dict[str, dict[int, dict[str, str]]]:
    """The parameter kinds earlier observation runs saw in the unchanged ones of `files`."""
    _exists.cache_clear()  # a run since the last check (--watch) may have made the folder
    found: dict[str, dict[int, dict[str, str]]] = {}
    for file in files:
        if not _exists(_folder(file, create=False)):
            continue
        try:
            source = file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        kept = cached_observation(file, source)
        if kept is not None and kept.params:
            found[os.path.realpath(file)] = kept.params
    return found


def params_for(
    observation: Observation | None, files: Sequence[Path], *, use_cache: bool
) -> dict[str, dict[int, dict[str, str]]]:
    """What the value analysis learns from this run's observation, or from an earlier one's
    kept for the unchanged files: what jitted functions' parameters held."""
    if observation is not None:
        return observation.params
    return cached_params(files) if use_cache else {}


def seen_for(
    path: str, source: str, observation: Observation | None, *, use_cache: bool
) -> tuple[str, list[Seen]] | None:
    """The command and the hazards this run's observation (else an earlier one, kept for this
    very source) showed in the module at `path`; None when none did."""
    if observation is not None:
        found = observation.seen.get(os.path.realpath(path))
        return (observation.command, found) if found else None
    kept = cached_observation(path, source) if use_cache else None
    return (kept.command, kept.seen) if kept is not None and kept.seen else None
