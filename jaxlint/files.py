"""The file layer: read and decode a file, lint it (alone or in a process pool), write its fixes
atomically, and show them as a unified diff."""

from __future__ import annotations

import contextlib
import difflib
import errno
import functools
import gc
import hashlib
import io
import json
import multiprocessing
import os
import signal
import stat
import tempfile
import tokenize
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jaxlint.analysis.source import special_file_kind
from jaxlint.cache import Store, code_version, key_of
from jaxlint.diagnostics import Diagnostic
from jaxlint.engine.backend import detected_backend
from jaxlint.engine.config import Config
from jaxlint.engine.edits import Edit
from jaxlint.output.escape import printable

if TYPE_CHECKING:
    from jaxlint.analysis.project import ParsedModule, ProjectIndex
    from jaxlint.analysis.project_view import ProjectView
    from jaxlint.output.progress import Progress


@dataclass(frozen=True)
class LintOptions:
    """What the engine is asked to do with each file."""

    fix: bool = False
    unsafe_fixes: bool = False
    verify: bool = True
    project: ProjectIndex | None = None  # functions other modules trace, per file
    cache_root: Path | None = None  # where `.jaxlint_cache` is; None: no cache
    # path as named → the check made while the project index parsed the file
    checked: Mapping[str, EarlyCheck] = field(default_factory=dict)
    # resolved path → what an observation run saw the module's jitted functions called with
    # (ProjectView.observed_params)
    observed_params: Mapping[str, Mapping[int, Mapping[str, str]]] = field(default_factory=dict)


@dataclass(frozen=True)
class EarlyCheck:
    """A check made while the project index parsed a file: the text it read, its diagnostics,
    and the codes whose diagnostics must be made again (the index learnt more after it)."""

    text: str
    diagnostics: tuple[Diagnostic, ...]
    redo: frozenset[str] = frozenset()
    # a finding has an edit: a `--fix` run fixes the file (it reports the check otherwise),
    # starting from the index's parse of it, kept for that (`parsed`)
    has_edits: bool = False
    parsed: ParsedModule | None = None


@dataclass(frozen=True)
class FileOutcome:
    """What became of one file: its diagnostics and rewrite, or why it could not be linted."""

    path: str
    diagnostics: tuple[Diagnostic, ...] = ()
    source: str | None = None
    fixed_source: str | None = None
    encoding: str = "utf-8"
    digest: str | None = None  # sha256 of the bytes read, to detect a change before writing
    error: str | None = None  # could not be linted: exit code 2
    note: str | None = None  # skipped for a reason that is not the user's fault

    @property
    def changed(self) -> bool:
        return self.fixed_source is not None and self.fixed_source != self.source


def source_linter(path: str) -> Callable[..., Any] | None:
    """The function that lints a file's text: the notebook adapter for `.ipynb`, else the engine.

    Both take `(text, path, config, *, fix, unsafe_fixes, verify)` and return a LintResult whose
    `fixed_source` is the whole new file text. None means the file kind is not supported here.
    """
    if path.endswith(".ipynb"):
        try:
            from jaxlint.notebook import lint_notebook
        except ModuleNotFoundError as error:
            if error.name != "jaxlint.notebook":
                raise
            return None
        return lint_notebook
    from jaxlint.fixes.pipeline import lint_source

    return lint_source


def decode_source(data: bytes, path: str) -> tuple[str, str]:
    """Bytes → (text, encoding): PEP 263 for Python, UTF-8 for notebooks; ValueError if bad."""
    encoding = "utf-8"
    if not path.endswith(".ipynb"):
        try:
            encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        except SyntaxError as error:
            # Without a declaration, the complaint is about the bytes: decode them to say where.
            if "unknown encoding" in error.msg or "encoding problem" in error.msg:
                raise ValueError(f"bad encoding declaration: {error.msg}") from None
    try:
        return data.decode(encoding), encoding
    except UnicodeDecodeError as error:
        byte = data[error.start]
        raise ValueError(
            f"not valid {encoding} text (byte 0x{byte:02x} at offset {error.start})"
        ) from None


def lint_bytes(data: bytes, path: str, config: Config, options: LintOptions) -> FileOutcome:
    """Decode and lint one file's content; never raises for bad input or an engine failure."""
    digest = hashlib.sha256(data).hexdigest()
    try:
        source, encoding = decode_source(data, path)
    except ValueError as error:
        return _problem(path, str(error), config)
    view = options.project.view(path) if options.project else None
    early = options.checked.get(path)
    results, key = None, ""
    if options.cache_root is not None and not options.fix:  # fixes run verification: not cached
        results = Store(options.cache_root, "results")
        # the fix forms shown with `auto` depend on the backend (jaxlint.engine.backend)
        key = key_of(
            code_version(), repr(config), detected_backend(), path, digest, _view_key(view)
        )
        cached = results.get(key)
        if cached is not None:
            diagnostics = tuple(Diagnostic.from_json(d) for d in cached)
            return FileOutcome(path, diagnostics, source, encoding=encoding, digest=digest)
    fix_from = {}
    if early is not None and options.fix and (early.redo or early.has_edits):
        # fixed (and analysed) from the whole text: from the index's parse where it kept one
        if early.parsed is not None and early.text == source:
            fix_from = {"parsed": early.parsed}
        early = None
    if early is not None and early.text == source and not early.redo:
        if results is not None:
            results.put(key, [d.to_json() for d in early.diagnostics])
        return FileOutcome(path, early.diagnostics, source, encoding=encoding, digest=digest)
    if early is not None and early.text == source:
        # only the rules whose findings the finished index changes run again
        config = _only_rules(config, early.redo)
    else:
        early = None
    try:
        lint = source_linter(path)
        if lint is None:
            note = f"{path}: skipped: notebook support (jaxlint.notebook) is not installed"
            return FileOutcome(path, source=source, digest=digest, note=note)
        result = lint(
            source,
            path,
            config,
            fix=options.fix,
            unsafe_fixes=options.unsafe_fixes,
            verify=options.verify,
            project=view,
            **fix_from,  # (a `.py` file: the project index parses no notebook)
        )
    except Exception as error:  # one broken file must not stop the others
        message = f"{path}: internal error: {type(error).__name__}: {error}"
        if os.environ.get("JAXLINT_DEBUG"):
            import traceback

            message += "\n" + traceback.format_exc()
        return FileOutcome(path, source=source, digest=digest, error=message)
    diagnostics = tuple(result.diagnostics)
    if early is not None:
        diagnostics = tuple(sorted(early.diagnostics + diagnostics, key=Diagnostic.sort_key))
    if results is not None:
        results.put(key, [d.to_json() for d in diagnostics])
    return FileOutcome(
        path,
        diagnostics=diagnostics,
        source=source,
        fixed_source=result.fixed_source,
        encoding=encoding,
        digest=digest,
    )


@contextlib.contextmanager
def fewer_collections() -> Iterator[Callable[[], object]]:
    """No automatic cyclic garbage collection inside; the caller collects with the function
    given, where the objects it made are garbage (between modules). What exists before is not
    looked at again.

    Collecting automatically, every few thousand new objects, scans the trees of the module
    being analysed over and over as they grow (a 10 MB module: 49.7 and 56.7 s, now 44.9 and
    37.6 s); between modules it scans what each module left behind once (the bench corpus:
    the same time, 86 MiB at most instead of 96). Not collecting at all would keep every
    module's trees, held in cycles (a function's entry and its parent's): 340 MiB."""
    enabled = gc.isenabled()
    gc.freeze()
    gc.disable()
    try:
        yield functools.partial(gc.collect, 1)
    finally:
        if enabled:
            gc.enable()
        gc.unfreeze()


def index_project(
    python_files: Sequence[Path], config: Config, options: LintOptions, *, check: bool = True
) -> LintOptions:
    """Build the project index of the files and return `options` with it.

    With `check`, each file is also linted as the index parses it, which saves parsing and
    indexing it again (when fixing, for the files with nothing to fix; in one process: a pool
    lints in parallel instead); a check is kept where the finished index confirms what it was
    told, and made again for the rules that read the project's key consumers where only those
    turned out different (unless the index's pass following keys through other modules made
    them with what it finally knows)."""
    from jaxlint.analysis.project import Premise, build_project_index
    from jaxlint.engine.registry import ENGINE_CODES, all_rules

    wanted = {os.path.realpath(p): str(p) for p in python_files} if check else {}
    # per file checked: its premise, text, diagnostics, and its parse when a fix needs it
    done: list[tuple[Premise, str, str, tuple[Diagnostic, ...], ParsedModule | None]] = []
    key_rules = {code for code, rule in all_rules().items() if rule.reads_key_consumers}
    rules = list(all_rules().values())
    key_config = _only_rules(config, key_rules)
    # the latest key-rule check of a file: its premise, diagnostics and whether it has edits
    again: dict[str, tuple[Premise, tuple[Diagnostic, ...], bool]] = {}

    def check_parsed(parsed: ParsedModule) -> None:
        path = wanted.get(parsed.key)
        if path is None:
            return
        from jaxlint.fixes.pipeline import lint_source

        chosen = key_config if parsed.key_rules_only else config
        try:
            result = lint_source(parsed.text, path, chosen, project=parsed.view, parsed=parsed)
        except Exception:  # linted again, and reported, the ordinary way
            again.pop(path, None)
            return
        edits = any(isinstance(f.fix, Edit) for f in result.findings)
        if parsed.key_rules_only:
            again[path] = (parsed.premise(), tuple(result.diagnostics), edits)
        else:
            kept = parsed if edits and options.fix else None  # fixed from it, later
            diagnostics = tuple(result.diagnostics)
            done.append((parsed.premise(), path, parsed.text, diagnostics, kept))

    with fewer_collections() as collect:
        project = build_project_index(
            python_files,
            config.jit_decorators,
            options.cache_root,
            on_parsed=check_parsed if wanted else None,
            between_modules=collect,
            observed_params=options.observed_params,
        )
    checked = {}
    for premise, path, text, diagnostics, parse in done:
        if any(rule.needs_finished_index(text, project.view(path)) for rule in rules):
            continue  # checked again, with what only the finished index knows
        if project.confirms(premise):
            checked[path] = EarlyCheck(text, diagnostics, has_edits=parse is not None, parsed=parse)
        # a unit libcst cannot parse ends a check: only a whole check again says the same
        elif project.confirms(premise, key_consumers=False) and not any(
            d.code in ENGINE_CODES for d in diagnostics
        ):
            kept = tuple(d for d in diagnostics if d.code not in key_rules)
            later, found, more_edits = again.get(path, (None, (), False))
            if later is not None and project.confirms(later):
                merged = sorted(kept + found, key=Diagnostic.sort_key)
                edits = parse is not None or more_edits
                checked[path] = EarlyCheck(text, tuple(merged), has_edits=edits, parsed=parse)
            else:
                checked[path] = EarlyCheck(text, kept, frozenset(key_rules))
    return replace(options, project=project, checked=checked)


def _only_rules(config: Config, codes: Iterable[str]) -> Config:
    """`config` with every rule but those of `codes` ignored."""
    from jaxlint.engine.registry import all_rules

    return replace(config, ignore=config.ignore + tuple(sorted(set(all_rules()) - set(codes))))


def _view_key(view: ProjectView | None) -> str:
    if view is None:
        return ""
    marks = sorted(
        (name, int(kind), reason.to_json())
        for name, (kind, reason) in view.traced_from_outside.items()
    )
    consumers = sorted((name, list(map(list, c))) for name, c in view.key_consumers.items())
    members = sorted(view.async_members)
    looped = sorted(view.looped_methods)
    observed = sorted(
        (line, sorted(params.items())) for line, params in view.observed_params.items()
    )
    return json.dumps([view.package, marks, view.enables_x64, consumers, members, looped, observed])


def lint_path(path: Path, config: Config, options: LintOptions = LintOptions()) -> FileOutcome:
    """Read and lint one file (the single entry point for `.py` and `.ipynb` alike)."""
    display = str(path)
    kind = special_file_kind(path)
    if kind is not None:  # named by a caller other than discovery: reading a FIFO blocks
        return FileOutcome(display, note=f"{display}: skipped: {kind}, not a file")
    try:
        data = path.read_bytes()
    except OSError as error:
        reason = error.strerror or str(error)
        if os.path.islink(path) and not os.path.exists(path) and error.errno == errno.ENOENT:
            reason = "a symbolic link to a missing file"
        return _problem(display, f"cannot read file: {reason}", config)
    return lint_bytes(data, display, config, options)


def _problem(path: str, message: str, config: Config) -> FileOutcome:
    """A file that cannot be read or decoded: a JAX000 finding, and the run goes on."""
    from jaxlint.engine.lint import file_problems

    return FileOutcome(path, diagnostics=tuple(file_problems(path, message, config)))


@contextlib.contextmanager
def _verification(options: LintOptions, progress: Progress | None, jobs: int) -> Iterator[Any]:
    """Within: in a `--fix` run, every `verify()` shares one session (a child per job up to
    MAX_CHILDREN, JAX imported once in each, results kept); yields that session, or None when
    nothing is verified."""
    if not options.fix:
        yield None
        return
    from jaxlint.verify import shared_session
    from jaxlint.verify.runner import MAX_CHILDREN

    listener = progress.verification_done if progress is not None else None
    children = min(jobs, MAX_CHILDREN)
    with shared_session(
        cache_root=options.cache_root, listener=listener, children=children
    ) as session:
        yield session


def _lint_each(
    paths: Sequence[Path], config: Config, options: LintOptions, progress: Progress | None = None
) -> list[FileOutcome]:
    outcomes = []
    for path in paths:
        outcomes.append(lint_path(path, config, options))
        if progress is not None:
            progress.files_done()
    return outcomes


def lint_paths(
    paths: Sequence[Path],
    config: Config,
    options: LintOptions,
    jobs: int = 1,
    progress: Progress | None = None,
) -> list[FileOutcome]:
    """Lint files, in a process pool when `jobs` > 1; outcomes come back in the order of `paths`.
    Verification stays in this process: workers send their requests to its one session."""
    with _verification(options, progress, jobs) as session:
        if jobs <= 1 or len(paths) <= 1:
            return _lint_each(paths, config, options, progress)
        with contextlib.ExitStack() as stack:
            initializer: Callable[..., object] | None = None
            initargs: tuple[Any, ...] = ()
            if session is not None:
                from jaxlint.verify import remote

                if not remote.available():  # no channel to the one session: stay in-process
                    return _lint_each(paths, config, options, progress)
                initializer = remote.forward_to
                initargs = (stack.enter_context(remote.served(session)),)
            return _lint_in_pool(paths, config, options, jobs, progress, initializer, initargs)


def _lint_in_pool(
    paths: Sequence[Path],
    config: Config,
    options: LintOptions,
    jobs: int,
    progress: Progress | None,
    initializer: Callable[..., object] | None,
    initargs: tuple[Any, ...],
) -> list[FileOutcome]:
    size = max(1, len(paths) // (jobs * 4))
    chunks = [paths[i : i + size] for i in range(0, len(paths), size)]
    if multiprocessing.get_start_method() == "fork":
        # Load the engine and its rules once here: forked workers inherit them instead of each
        # paying the start-up (about half a second) again.
        with contextlib.suppress(Exception):
            warm_up = source_linter("warm-up.py")
            if warm_up is not None:
                warm_up("import jax\n", "warm-up.py", config)
    try:
        pool = ProcessPoolExecutor(
            max_workers=min(jobs, len(chunks)),
            initializer=_start_worker,
            initargs=(_worker_parent(), initializer, *initargs),
        )
    except (OSError, NotImplementedError, ValueError):
        return _lint_each(paths, config, options, progress)
    with pool:
        try:
            return _collect(pool, chunks, config, options, progress)
        except BaseException:  # Ctrl-C: the workers go now, not once their chunks are done
            _kill_workers(pool)
            raise


def _collect(
    pool: ProcessPoolExecutor,
    chunks: list[Sequence[Path]],
    config: Config,
    options: LintOptions,
    progress: Progress | None,
) -> list[FileOutcome]:
    outcomes: list[FileOutcome] = []
    lost_worker = False
    futures = [_submitted(pool, chunk, config, options) for chunk in chunks]
    for chunk, future in zip(chunks, futures, strict=True):
        try:
            done = _settled(pool, future)
        except Exception:  # a result would not pickle: lint it here
            done = _lint_each(chunk, config, options)
        if done is None:  # a worker was killed (OOM killer, a signal): say so once
            done = _lint_each(chunk, config, options)
            if not lost_worker and done:
                done[0] = replace(done[0], note=_join_notes(LOST_WORKER, done[0]))
            lost_worker = True
        outcomes.extend(done)
        if progress is not None:
            progress.files_done(len(chunk))
    return outcomes


def _submitted(
    pool: ProcessPoolExecutor, chunk: Sequence[Path], config: Config, options: LintOptions
) -> Future[list[FileOutcome]] | None:
    """The chunk handed to the pool; None when the pool broke before it could be (a worker
    killed while the chunks were still being handed out)."""
    try:
        return pool.submit(_lint_each, chunk, config, options)
    except BrokenProcessPool:
        return None


def _settled(
    pool: ProcessPoolExecutor, future: Future[list[FileOutcome]] | None
) -> list[FileOutcome] | None:
    """The chunk's outcomes; None when its worker was lost. A chunk handed out just as the pool
    broke may never be settled: CPython fails the pending chunks of a broken pool without the
    lock `submit` takes, so one submitted in between is left pending for ever (a killed worker
    hung a run for 300 s here). Once the pool is broken, a chunk not settled is lost."""
    if future is None:
        return None
    while True:
        try:
            return future.result(timeout=_POLL_S)
        except BrokenProcessPool:
            return None
        except FutureTimeout:
            if getattr(pool, "_broken", False):  # not public: set once a worker is lost
                return None


_POLL_S = 1.0


def _worker_parent() -> int | None:
    """The pid a pool worker's parent has: this process's, where workers are forked or spawned
    from it (not from a fork server)."""
    return os.getpid() if multiprocessing.get_start_method() in ("fork", "spawn") else None


def _start_worker(parent: int | None, then: Callable[..., object] | None, *args: Any) -> None:
    """A pool worker leaves Ctrl-C to the main process (which ends it), and ends when the main
    process does, even by SIGKILL (Linux), instead of linting on as an orphan."""
    from jaxlint.verify.lifetime import die_with_parent  # only where a pool is started

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with_parent(parent)
    if then is not None:
        then(*args)


def _kill_workers(pool: ProcessPoolExecutor) -> None:
    workers = list((getattr(pool, "_processes", None) or {}).values())  # shutdown forgets them
    for process in workers:
        with contextlib.suppress(OSError, ValueError):
            process.kill()
    pool.shutdown(wait=False, cancel_futures=True)


LOST_WORKER = (
    "jaxlint: a worker process ended abruptly; the files not yet reported were linted in the"
    " main process"
)


def _join_notes(note: str, outcome: FileOutcome) -> str:
    return note if outcome.note is None else f"{note}\n{outcome.note}"


def _file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


TEMP_MARK = ".jaxlint-"  # `.{name}.jaxlint-{pid}.{random}.tmp`: whose it was, to clean up


def write_atomically(path: Path, text: str, encoding: str, expected_digest: str | None) -> None:
    """Replace `path` with `text` via a temp file in its folder, keeping its mode, owner and
    group; a file with other hard links, or whose owner cannot be kept, is rewritten in place
    (same inode) instead.

    Raises OSError, or ValueError when the file no longer holds the bytes it was linted from.
    """
    target = Path(os.path.realpath(path))  # write through a symlink, never over it
    data = text.encode(encoding)
    status = target.stat()
    if status.st_nlink > 1:
        _write_in_place(target, data, expected_digest)
        return
    handle, temp_name = tempfile.mkstemp(
        dir=target.parent, prefix=f".{target.name}{TEMP_MARK}{os.getpid()}.", suffix=".tmp"
    )
    try:
        with os.fdopen(handle, "wb") as temp:
            temp.write(data)
            temp.flush()
            os.fsync(temp.fileno())
        os.chmod(temp_name, stat.S_IMODE(status.st_mode))
        if not _keeps_owner(temp_name, status):
            os.unlink(temp_name)
            _write_in_place(target, data, expected_digest)
            return
        if expected_digest is not None and _file_digest(target) != expected_digest:
            raise ValueError(CHANGED_ON_DISK)
        os.replace(temp_name, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp_name)
        raise


CHANGED_ON_DISK = "the file changed on disk since it was read; fixes not written"


def _keeps_owner(temp_name: str, status: os.stat_result) -> bool:
    """Give the temp file the target's owner and group; False when that is not allowed."""
    if not hasattr(os, "chown"):
        return True
    temp = os.stat(temp_name)
    if (temp.st_uid, temp.st_gid) == (status.st_uid, status.st_gid):
        return True
    try:
        os.chown(temp_name, status.st_uid, status.st_gid)
    except PermissionError:
        return False
    return True


def _write_in_place(target: Path, data: bytes, expected_digest: str | None) -> None:
    """Overwrite the file through its own inode (hard links and owner stay as they are)."""
    with open(target, "r+b") as file:
        read = hashlib.sha256(file.read()).hexdigest()
        if expected_digest is not None and read != expected_digest:
            raise ValueError(CHANGED_ON_DISK)
        file.seek(0)
        file.write(data)
        file.truncate()
        file.flush()
        os.fsync(file.fileno())


def remove_stale_temps(folders: Iterable[Path]) -> list[Path]:
    """Delete the temp files a killed jaxlint left in `folders` (its pid no longer runs)."""
    removed = []
    for folder in sorted(set(folders)):
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        for name in names:
            pid = _temp_owner(name)
            if pid is None or pid == os.getpid() or _is_running(pid):
                continue
            with contextlib.suppress(OSError):
                os.unlink(folder / name)
                removed.append(folder / name)
    return removed


def _temp_owner(name: str) -> int | None:
    if not (name.startswith(".") and name.endswith(".tmp") and TEMP_MARK in name):
        return None
    pid, _, rest = name.rpartition(TEMP_MARK)[2].partition(".")
    return int(pid) if pid.isdigit() and rest else None


def _is_running(pid: int) -> bool:
    if os.name != "posix":  # signal 0 is a probe only on POSIX
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True  # someone else's process: leave its files alone
    return True


def unapply_fixes(diagnostics: Sequence[Diagnostic], note: str) -> tuple[Diagnostic, ...]:
    """Mark applied fixes as not applied (nothing was written), saying why."""
    out = []
    for diagnostic in diagnostics:
        if diagnostic.fix is not None and diagnostic.fix.applied:
            diagnostic = diagnostic.with_fix(replace(diagnostic.fix, applied=False, note=note))
        out.append(diagnostic)
    return tuple(out)


def write_fixes(outcome: FileOutcome, roots: Sequence[str] = ()) -> FileOutcome:
    """Write a changed file; on refusal or failure, its fixes become not applied with an error.

    With `roots` (the real folders the user named), a file whose real path lies outside all of
    them (a symbolic link, or a linked folder, leading out of the project) is not written."""
    if not outcome.changed:
        return outcome
    assert outcome.fixed_source is not None
    real = os.path.realpath(outcome.path)
    if roots and not any(real == root or real.startswith(os.path.join(root, "")) for root in roots):
        reason = f"it is a link to {real}, outside the folders checked"
        return _not_written(outcome, reason)
    try:
        write_atomically(Path(outcome.path), outcome.fixed_source, outcome.encoding, outcome.digest)
    except (OSError, ValueError, UnicodeEncodeError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        return _not_written(outcome, reason)
    return outcome


def _not_written(outcome: FileOutcome, reason: str) -> FileOutcome:
    return replace(
        outcome,
        diagnostics=unapply_fixes(outcome.diagnostics, f"not written: {reason}"),
        fixed_source=None,
        error=f"{outcome.path}: cannot write fixes: {reason}",
    )


def checked_roots(paths: Sequence[str]) -> list[str]:
    """The real folders behind the paths named on the command line: a named folder itself, a
    named file's folder (so a named link that leads elsewhere is not written through either)."""
    roots = []
    for path in paths:
        absolute = os.path.abspath(path)
        folder = absolute if os.path.isdir(absolute) else os.path.dirname(absolute)
        roots.append(os.path.realpath(folder))
    return roots


def unified_diff(outcome: FileOutcome) -> str:
    """The `--diff` text for one file (`--- a/path` / `+++ b/path`), empty when unchanged."""
    if not outcome.changed or outcome.source is None or outcome.fixed_source is None:
        return ""
    name = printable(outcome.path.replace(os.sep, "/").lstrip("/"))  # a header line stays one
    lines = difflib.unified_diff(
        outcome.source.splitlines(keepends=True),
        outcome.fixed_source.splitlines(keepends=True),
        fromfile=f"a/{name}",
        tofile=f"b/{name}",
    )
    out = []
    for line in lines:
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)
