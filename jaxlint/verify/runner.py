"""Parent side of verification: a few child processes per run (JAX imported once in each), a
time limit per request."""

from __future__ import annotations

import contextlib
import ctypes
import importlib.util
import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import IO, Any

from jaxlint.verify.compile_settings import cheap_compile_environment
from jaxlint.verify.cpu_clock import RequestClock
from jaxlint.verify.memory import (
    ENVIRONMENT_NAME,
    ResidentMemoryWatch,
    descendants,
    describe_limit,
    limit_mb,
    process_limit,
)
from jaxlint.verify.protocol import (
    JAX_MISSING_REASON,
    READS_NAME,
    ChildError,
    Refused,
    Status,
    VerifyRequest,
    VerifyResult,
    plain_result,
    request_to_wire,
)
from jaxlint.verify.result_cache import ResultCache

# Importing JAX in a fresh child takes a few seconds; it is not charged to any request.
STARTUP_TIMEOUT_S = 180.0
# Children a session runs at most: each holds JAX (about 0.4 GB) and the code it verifies.
MAX_CHILDREN = 8
# The wall time of all of a run's verifications (the memory limit is in `memory`).
RUN_BUDGET_S = float(os.environ.get("JAXLINT_VERIFY_BUDGET_S", "1800"))
# The child's environment: what Python, JAX and the BLAS libraries read, nothing else (a secret
# in the user's environment must not reach user code, nor come back inside a report).
_CHILD_ENV_NAMES = frozenset(
    {
        "PATH", "LANG", "LANGUAGE", "TZ", "TERM",
        "SYSTEMROOT", "WINDIR", "COMSPEC", "PATHEXT",
        "LD_LIBRARY_PATH", "DYLD_LIBRARY_PATH", "VIRTUAL_ENV", "CONDA_PREFIX",
        "PYTHONPATH", "PYTHONHOME", "PYTHONHASHSEED", "PYTHONNOUSERSITE",
        "OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS",
    }
)  # fmt: skip
_CHILD_ENV_PREFIXES = ("JAX_", "XLA_", "TF_CPP_", "LC_")
_REASON_LIMIT = 600  # characters of a reason shown: user code's messages are cut there
_PACKAGE_ROOT = str(Path(__file__).resolve().parents[2])  # the folder holding `jaxlint/`
# One reply's characters at most: the outputs of the calls verification makes are small.
MAX_REPLY_CHARS = 64 << 20
_EOF = object()  # the child closed its stdout
_TIMEOUT = object()  # no message within the time allowed


def jax_available(python: str | None = None) -> bool:
    """Whether `python` (default: this interpreter) can find JAX, without importing it here."""
    # Not realpath: a venv's python is a symlink to a base interpreter with other packages.
    if python is None or os.path.abspath(python) == os.path.abspath(sys.executable):
        return importlib.util.find_spec("jax") is not None
    probe = "import importlib.util, sys; sys.exit(importlib.util.find_spec('jax') is None)"
    try:
        done = subprocess.run([python, "-c", probe], capture_output=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0


def verify(
    requests: Sequence[VerifyRequest], *, time_limit_s: float = 60.0, python: str | None = None
) -> list[VerifyResult]:
    """Verify each request with real JAX in a child process; results in request order.

    Inside `shared_session()` the session's child (JAX already imported) is reused.
    """
    if _ACTIVE is not None and python is None:
        return _ACTIVE.verify(requests, time_limit_s=time_limit_s)
    with VerificationSession(python) as session:
        return session.verify(requests, time_limit_s=time_limit_s)


class VerificationSession:
    """Verification children kept alive across calls, so JAX is imported once per child.

    Up to `children` requests run at once, each in a child of its own: callers on several
    threads (the pool's workers, through `remote`) no longer wait for one another's functions
    to compile and run. One child per worker: `--fix --jobs 2` over the 127 adversarial cases
    took 213 s on a 2-core machine, where one child, leaving the second core idle, took 380 s
    (the same 157 fixes applied)."""

    def __init__(
        self,
        python: str | None = None,
        budget_s: float = RUN_BUDGET_S,
        cache_root: Path | None = None,
        listener: Callable[[VerifyResult], object] | None = None,
        children: int = 1,
    ) -> None:
        self.executable = python or sys.executable
        self._idle: list[_Child] = []  # started children waiting for a request
        self._slots = threading.Semaphore(max(1, children))  # requests running at once
        self._most = max(1, children)  # children kept idle at most
        self._lock = threading.Lock()  # the idle list, the time spent, the cache
        self._available: bool | None = None
        self._budget_s = budget_s
        self._spent_s = 0.0  # wall time of this session's requests so far
        self._cache = ResultCache(cache_root, self.executable) if cache_root else None
        self._in_flight: dict[str, threading.Event] = {}  # keys a thread is verifying now
        self._listener = listener  # told of every result (a progress line)
        self._started: list[_Child] = []  # every child, busy or idle, to end them all at once
        self._killed = False  # after kill_all(): no child is started again

    def __enter__(self) -> VerificationSession:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, *rest: object) -> None:
        if exc_type is not None:  # Ctrl-C or an error: no verification is waited for
            self.kill_all()
        self.close()

    def verify(
        self, requests: Sequence[VerifyRequest], *, time_limit_s: float = 60.0
    ) -> list[VerifyResult]:
        """Verify requests in order, restarting the child after a timeout or crash."""
        with self._slots:
            child: _Child | None = None
            try:
                results, child = self._verify(requests, time_limit_s)
            finally:
                if child is not None:
                    self._park(child)
        if self._listener is not None:
            with self._lock:  # one thread at a time counts and draws
                for result in results:
                    self._listener(result)
        return results

    def _take(self, reads: tuple[str, ...]) -> _Child | None:
        """An idle child that reads `reads` (a child reads one project), or None."""
        with self._lock:
            child = next((c for c in self._idle if c.reads == reads), None)
            if child is not None:
                self._idle.remove(child)
        return child

    def _park(self, child: _Child) -> None:
        """Keep `child` idle for later requests; the oldest idle one goes beyond `children`."""
        with self._lock:
            self._idle.append(child)
            spare = self._idle.pop(0) if len(self._idle) > self._most else None
        if spare is not None:
            spare.close()

    def _verify(
        self, requests: Sequence[VerifyRequest], time_limit_s: float
    ) -> tuple[list[VerifyResult], _Child | None]:
        """The results, and the child to keep (None when it is gone or was never needed)."""
        child: _Child | None = None
        if not requests:
            return [], child
        with self._lock:
            if self._available is None:
                self._available = jax_available(self.executable)
        if not self._available:
            return [plain_result(r, "jax-missing", JAX_MISSING_REASON) for r in requests], child
        results: list[VerifyResult] = []
        with self._lock:
            keys = self._cache.keys(requests) if self._cache else [None] * len(requests)
        roots: dict[str, tuple[str, ...]] = {}  # a file's requests share its project
        for index, (request, key) in enumerate(zip(requests, keys, strict=True)):
            cached = self._cached(key, request)
            if cached is not None:
                results.append(cached)
                continue
            try:
                if request.path not in roots:
                    roots[request.path] = read_roots(request.path)
                reads = roots[request.path]
                if child is not None and child.reads != reads:
                    self._park(child)
                    child = None
                problem, child = self._ready_child(child or self._take(reads), reads)
                if problem is not None:
                    results += [plain_result(r, *problem) for r in requests[index:]]
                    break
                assert child is not None
                result, child = self._run(request, time_limit_s, child)
                results.append(result)
                with self._lock:  # a request a Ctrl-C cut short proves nothing: not kept
                    if self._cache is not None and key is not None and not self._killed:
                        self._cache.put(key, result)
            finally:
                with self._lock:  # threads waiting for this function look at the cache again
                    waiting = self._in_flight.pop(key, None) if key is not None else None
                if waiting is not None:
                    waiting.set()
        return results, child

    def _ready_child(
        self, child: _Child | None, reads: tuple[str, ...]
    ) -> tuple[tuple[Status, str] | None, _Child | None]:
        """A child ready for a request (this one, or a new one that may read `reads`), or why
        there is none."""
        if self._killed:
            return ("unverifiable", "not verified: the run was interrupted"), None
        if self._budget_s - self._spent_s <= 0:
            reason = (
                f"not verified: this run's verification time ({self._budget_s:g} s,"
                " JAXLINT_VERIFY_BUDGET_S) is spent"
            )
            return ("timeout", reason), child
        if child is not None:
            return None, child
        try:
            child = _Child(self.executable, reads)
        except OSError as exc:
            return ("unverifiable", f"cannot start the verification child: {exc}"), None
        with self._lock:
            self._started = [c for c in self._started if c.running()] + [child]
            if self._killed:  # killed while this one started
                child.kill()
                return ("unverifiable", "not verified: the run was interrupted"), None
        problem = child.wait_ready()
        if problem is not None:
            child.close()
            return problem, None
        return None, child

    def _run(
        self, request: VerifyRequest, time_limit_s: float, child: _Child
    ) -> tuple[VerifyResult, _Child | None]:
        """The request's result, and the child if it can take another."""
        left = self._budget_s - self._spent_s
        started = time.monotonic()
        result, healthy = child.run(request, min(time_limit_s, left), left)
        with self._lock:
            self._spent_s += time.monotonic() - started
        if not healthy:
            child.close()
            return _shown(result), None
        return _shown(result), child

    def _cached(self, key: str | None, request: VerifyRequest) -> VerifyResult | None:
        """The kept result for `key`; where another thread is verifying the same function,
        its result once it has one (identical files are verified once, whichever worker asks
        first). None: this thread verifies it, and the key is marked in flight."""
        if self._cache is None or key is None:
            return None
        while True:
            with self._lock:
                cached = self._cache.get(key, request)
                if cached is not None:
                    return cached
                running = self._in_flight.get(key)
                if running is None:
                    self._in_flight[key] = threading.Event()
                    return None
            running.wait()  # the other thread's result, or none kept (a timeout): ask again

    def kill_all(self) -> None:
        """Kill every child now, those verifying included (their requests end as crashed)."""
        with self._lock:
            self._killed = True
            started = list(self._started)
        for child in started:
            child.kill()

    def close(self) -> None:
        """Stop the idle children (all of them, once no request runs)."""
        with self._lock:
            idle, self._idle = self._idle, []
        for child in idle:
            child.close()


def _shown(result: VerifyResult) -> VerifyResult:
    """The result as reports may show it: the reason cut short, environment values hidden."""
    reason = redact_environment(result.reason)
    if len(reason) > _REASON_LIMIT:
        reason = reason[: _REASON_LIMIT - 1] + "…"
    return result if reason == result.reason else replace(result, reason=reason)


def redact_environment(text: str) -> str:
    """`text` with the value of each environment variable the child was not given replaced by
    `$NAME` (a token read by user code from somewhere else must not be shown either way);
    paths (`PWD`, `HOME`) are not secrets and stay as they are."""
    for name, value in os.environ.items():
        if len(value) < 8 or _passed_to_child(name) or os.path.isabs(value):
            continue
        if value in text:
            text = text.replace(value, f"${name}")
    return text


def _passed_to_child(name: str) -> bool:
    return name in _CHILD_ENV_NAMES or name.startswith(_CHILD_ENV_PREFIXES)


def child_environment(home: str, reads: Sequence[str] = ()) -> dict[str, str]:
    """The scrubbed environment of the verification child, with `home` as HOME and TMPDIR, and
    the project folders it may read (`reads`, for its Landlock fence)."""
    env = {name: value for name, value in os.environ.items() if _passed_to_child(name)}
    env[READS_NAME] = json.dumps(list(reads))
    env.update(HOME=home, TMPDIR=home, TEMP=home, TMP=home)
    env["JAX_PLATFORMS"] = "cpu"
    env["PYTHONUNBUFFERED"] = "1"
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # no __pycache__ written into the user's project
    env["PYTHONPATH"] = os.pathsep.join(p for p in (_PACKAGE_ROOT, env.get("PYTHONPATH", "")) if p)
    return cheap_compile_environment(env)


SANDBOX_NAME = "JAXLINT_VERIFY_SANDBOX"
_PROJECT_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", ".git")


def read_roots(path: str) -> tuple[str, ...]:
    """The folders the child verifying the module at `path` may read, beside the Python
    installation and the system: the module's project (the nearest folder above it holding
    pyproject.toml, setup.py, setup.cfg or .git), and any folder its imports need outside it.
    Without a project, the folders its imports need (its package root's parent, or its own)."""
    from jaxlint.verify.namespace import package_context  # here: the launcher imports runner

    folder = os.path.dirname(os.path.abspath(path))
    entries = [os.path.abspath(entry) for entry in package_context(path)[0]] or [folder]
    probe = folder
    while not any(os.path.exists(os.path.join(probe, name)) for name in _PROJECT_MARKERS):
        if os.path.dirname(probe) == probe:
            return tuple(sorted(set(entries)))
        probe = os.path.dirname(probe)
    outside = {e for e in entries if e != probe and not e.startswith(os.path.join(probe, ""))}
    return tuple(sorted({probe, *outside}))


CHILD_MODULE = "jaxlint.verify.child"
_SANDBOX_POLICIES = ("auto", "require", "off")


def sandbox_policy() -> str:
    """JAXLINT_VERIFY_SANDBOX: `auto` (the default: namespaces where the kernel offers them, a
    warning where it does not), `require` (no verification without every fence), `off` (no
    namespaces: Landlock and the launcher's reaping alone, to debug a child)."""
    value = os.environ.get(SANDBOX_NAME, "auto").strip().lower()
    return value if value in _SANDBOX_POLICIES else "auto"


_WARNED: set[str] = set()


def _warn_once(message: str) -> None:
    if message not in _WARNED:
        _WARNED.add(message)
        print(message, file=sys.stderr)


def _undumpable() -> None:
    """Make this process undumpable, so that a child of the same user cannot read its memory or
    environment through /proc (where it can see it at all: not from a PID namespace)."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE


_ACTIVE: VerificationSession | None = None


@contextmanager
def shared_session(
    python: str | None = None,
    cache_root: Path | None = None,
    listener: Callable[[VerifyResult], object] | None = None,
    children: int = 1,
) -> Iterator[VerificationSession]:
    """Within this block, every `verify()` call shares the session's children (up to
    `children`, started as requests need them; with `cache_root` the results kept in its
    `.jaxlint_cache/` are reused); `listener` hears of every result."""
    global _ACTIVE
    previous = _ACTIVE
    with VerificationSession(
        python, cache_root=cache_root, listener=listener, children=children
    ) as session:
        _ACTIVE = session
        try:
            yield session
        finally:
            _ACTIVE = previous


class _Child:
    """A running `python -m jaxlint.verify.child`, read by a thread so reads can time out."""

    def __init__(self, executable: str, reads: tuple[str, ...] = ()) -> None:
        # Its own working folder (HOME and TMPDIR too): what user code writes lands there.
        self._home = tempfile.mkdtemp(prefix="jaxlint-verify-")
        self.reads = reads  # the project folders it may read, beside Python and the system
        # User output is not read: a file, unlike a pipe, cannot fill up and block the child.
        self._stderr: IO[bytes] = tempfile.TemporaryFile()  # noqa: SIM115 — closed in close()
        command = [executable, "-m", CHILD_MODULE]
        if sys.platform.startswith("linux"):  # elsewhere: no launcher, the process group alone
            launcher = [executable, "-m", "jaxlint.verify.sandbox"]
            launcher.append(f"--processes={process_limit()}")
            if sandbox_policy() == "off":
                launcher.append("--no-namespaces")
            command = launcher + command
        _undumpable()
        try:
            self._process = subprocess.Popen(
                command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self._stderr,
                env=child_environment(self._home, reads),
                cwd=self._home,
                text=True,
                encoding="utf-8",
                start_new_session=os.name == "posix",  # a process group to kill with its children
            )
        except OSError:
            self._stderr.close()
            shutil.rmtree(self._home, ignore_errors=True)
            raise
        self._lines: queue.Queue[Any] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self._memory_mb = limit_mb()
        self._memory: ResidentMemoryWatch | None = None
        if self._memory_mb > 0 and os.path.isdir("/proc"):
            limit = self._memory_mb * 1024 * 1024
            self._memory = ResidentMemoryWatch(self._process.pid, limit, self.kill)

    def _read(self) -> None:
        """Queue the child's lines; one longer than MAX_REPLY_CHARS (a runaway or hostile child
        filling jaxlint's memory) is garbled, and nothing after it is read."""
        assert self._process.stdout is not None
        while line := self._process.stdout.readline(MAX_REPLY_CHARS):
            if len(line) >= MAX_REPLY_CHARS and not line.endswith("\n"):
                self._lines.put("a reply too long to read\n")
                break
            self._lines.put(line)
        self._lines.put(_EOF)

    def _receive(self, timeout: float) -> Any:
        """The next protocol message (a dict), or _TIMEOUT, or _EOF when the child has gone."""
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            return _TIMEOUT
        if line is _EOF:
            self._lines.put(_EOF)
            return _EOF
        try:
            return json.loads(line)
        except json.JSONDecodeError:
            return {"type": "garbled", "line": line[:200]}

    def wait_ready(self) -> tuple[Status, str] | None:
        """Wait for JAX to import in the child: None when ready, else (status, reason)."""
        message = self._receive(STARTUP_TIMEOUT_S)
        if message is _TIMEOUT or message is _EOF:
            self.kill()
            reason = self._memory_breach() or self._stderr_tail()
            return "unverifiable", f"verification child did not start: {reason}"
        if message.get("type") == "jax-missing":
            return "jax-missing", f"{JAX_MISSING_REASON} ({message.get('error')})"
        if message.get("type") != "ready":
            return "unverifiable", f"verification child said {message!r}"
        fences = message.get("sandbox")
        missing = sorted(n for n, up in (fences or {}).items() if not up) if fences else ["all"]
        if missing and sandbox_policy() == "require":
            self.kill()
            reason = (
                f"not verified: {SANDBOX_NAME}=require and the sandbox lacks {', '.join(missing)}"
            )
            return "unverifiable", reason
        if missing and sandbox_policy() == "auto":
            _warn_once(
                f"jaxlint: warning: fixes are verified with a weaker sandbox here (no"
                f" {', '.join(missing)}); see SECURITY.md, or set {SANDBOX_NAME}=require to"
                " refuse"
            )
        return None

    def run(
        self, request: VerifyRequest, time_limit_s: float, most_wall_s: float | None = None
    ) -> tuple[VerifyResult, bool]:
        """Verify one request with this child: jaxlint judges what its calls return
        (`verdict.judge`); (the result, whether the child can take another).

        A line that is not a reply to what was asked (user code writing to the protocol's
        stream, a forged verdict) breaks the protocol: the request is unverifiable and the
        child is not trusted again."""
        # Here, not at the top: the judge's NumPy starts BLAS threads, and the sandbox's
        # launcher, which imports this package, cannot make a user namespace once it has threads.
        from jaxlint.verify.verdict import judge

        start = time.perf_counter()
        trial = _ChildTrial(self, request, RequestClock(self.pid, time_limit_s, most_wall_s))
        try:
            result = judge(request, trial)
        except _Stopped as stop:
            return stop.result, False
        except Refused as refused:
            return self._crashed(request, str(refused)), False
        trial.close()
        return replace(result, seconds=round(time.perf_counter() - start, 3)), True

    def send(self, message: dict[str, Any]) -> bool:
        """Send one op; False when the child's stdin is closed (it has gone)."""
        try:
            assert self._process.stdin is not None
            self._process.stdin.write(json.dumps(message) + "\n")
            self._process.stdin.flush()
        except OSError:
            return False
        return True

    def ask(self, message: dict[str, Any], clock: RequestClock) -> Any:
        """Send one op; its reply (a dict), or _EOF, or _TIMEOUT once `clock` says the
        request's time is spent."""
        if not self.send(message):
            return _EOF
        while (wait := clock.wait_s()) > 0:
            reply = self._receive(wait)
            if reply is not _TIMEOUT:
                return reply
        return _TIMEOUT

    @property
    def pid(self) -> int:
        return self._process.pid

    def _crashed(self, request: VerifyRequest, protocol_problem: str = "") -> VerifyResult:
        self.kill()
        code = self._process.returncode
        if protocol_problem:
            reason = f"verification stopped: the child sent {protocol_problem}"
        elif self._memory_breach():
            reason = self._memory_breach()
        elif code == -getattr(signal, "SIGXCPU", 0):
            reason = "verification exceeded its CPU time limit"
        else:
            # not its output: that is the checked code's, which no report shows
            reason = f"verification child exited unexpectedly (code {code})"
        return plain_result(request, "unverifiable", reason)

    def _memory_breach(self) -> str:
        """Why the child was stopped for its memory, or '' when it was not."""
        if self._memory is None or not self._memory.breached:
            return ""
        return (
            f"verification used more than {describe_limit(self._memory_mb)} of memory"
            f" ({ENVIRONMENT_NAME}={self._memory_mb})"
        )

    def _stderr_tail(self, limit: int = 400) -> str:
        self._stderr.seek(0, os.SEEK_END)
        size = self._stderr.tell()
        self._stderr.seek(max(0, size - limit))
        text = self._stderr.read().decode("utf-8", "replace").strip()
        return text.splitlines()[-1] if text else "no output"

    def running(self) -> bool:
        return self._process.poll() is None

    def kill(self) -> None:
        """Stop the child and anything it started (its process group) now."""
        if self._memory is not None:
            self._memory.close()
        with contextlib.suppress(ProcessLookupError, PermissionError):
            if os.name == "posix":  # even after the child exited: its children may run on
                # the whole tree, those in sessions of their own too, first process first
                # (in a PID namespace that ends all the others)
                tree = descendants(self._process.pid) if os.path.isdir("/proc") else []
                for pid in tree:
                    with contextlib.suppress(ProcessLookupError, PermissionError):
                        os.kill(pid, signal.SIGKILL)
                os.killpg(self._process.pid, signal.SIGKILL)
            elif self._process.poll() is None:
                self._process.kill()
        self._process.wait()

    def close(self) -> None:
        """Let the child finish by closing its stdin; kill it if it does not."""
        if self._process.stdin is not None:
            with contextlib.suppress(OSError):  # a dead child's pipe: nothing left to flush
                self._process.stdin.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._process.wait(timeout=10)
        self.kill()
        self._reader.join(timeout=5)  # it ends at the EOF of the dead child's stdout
        if self._process.stdout is not None:
            self._process.stdout.close()
        self._stderr.close()
        shutil.rmtree(self._home, ignore_errors=True)


class _Stopped(Exception):
    """The child timed out or died during a request: verification ends with `result`."""

    def __init__(self, result: VerifyResult) -> None:
        super().__init__(result.reason)
        self.result = result


class _ChildTrial:
    """`verdict.Trial` over a child's pipes, within one request's time limit."""

    def __init__(self, child: _Child, request: VerifyRequest, clock: RequestClock) -> None:
        self._child = child
        self._request = request
        self._clock = clock

    def open(self, request: VerifyRequest) -> dict[str, Any]:
        wire = request_to_wire(request)
        wire["path"] = os.path.abspath(request.path)  # the child works in its own folder
        message = {"op": "open", "request": wire, "cpu_limit_s": 2 * self._clock.limit_s}
        return self._ask(message)

    def call(self, role: str, case: int, set_index: int) -> dict[str, Any] | None:
        return self._ask({"op": "call", "role": role, "case": case, "set": set_index}, "call")

    def mutations(self) -> list[dict[str, Any]]:
        return self._ask({"op": "mutations"}, "mutations")

    def close(self) -> None:
        self._child.send({"op": "close"})

    def _ask(self, message: dict[str, Any], field: str = "") -> Any:
        """The child's reply to `message` (its `field`, if named)."""
        reply = self._child.ask(message, self._clock)
        request = self._request
        if reply is _TIMEOUT:
            self._child.kill()
            reason = f"verification exceeded the {self._clock.limit_s:g} s time limit"
            raise _Stopped(plain_result(request, "timeout", reason))
        if reply is _EOF:
            raise _Stopped(self._child._crashed(request))
        if not isinstance(reply, dict) or reply.get("type") != "reply":
            raise Refused("a reply that does not answer this request")
        if "error" in reply:
            raise ChildError(reply["error"])
        if field and field not in reply:
            raise Refused(f"a malformed reply (no {field})")
        return reply[field] if field else reply
