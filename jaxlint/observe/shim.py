"""Observation shim: loaded by a `sitecustomize` in every Python process `--observe CMD` runs.

Stdlib only, loaded by file path (the interpreter running CMD need not have jaxlint installed).
When `jax` has been imported it watches, without changing what the program computes:

- **traces**: every trace of a jitted function defined in the project (`pe.trace_to_jaxpr`, the
  one cache every `jax.jit` traces through, wrapped): how often, with which argument types, from
  where, and JAX's own explanation of each cache miss (`jax_explain_cache_misses`, turned on
  here, its log records kept from the program's logging unless it asked for them itself);
- **leaked tracers**: a trace still alive when its function has been traced (a tracer kept in a
  global, a list or `self`: without a leak the trace is freed by reference counting, so this
  costs one weak reference per trace), and a leaked tracer used later (`escaped_tracer_error`);
- **PRNG key reuse**: the samplers of `jax.random` (and `split`) wrapped; one key object
  consumed twice, eagerly or under a transformation, with the project's frames of both uses;
- **64-bit dtypes with x64 off**: JAX's "Explicitly requested dtype float64 … truncated"
  warning, at the project line that asked.

Events go as JSON to `$JAXLINT_OBSERVE_DIR/observed-<pid>.json`, written when something new is
seen (at most once a second after the first of each kind) and at exit, so a failing or killed
command keeps what it showed. Every hook swallows its own errors: observing must never break
the program. Frames "of the project" are those under `$JAXLINT_OBSERVE_ROOT` outside any
site-packages.
"""

from __future__ import annotations

import atexit
import contextlib
import gc
import importlib.abc
import json
import logging
import os
import sys
import threading
import time
import types
import weakref
from typing import Any

MAX_SIGNATURES = 8  # distinct argument signatures kept per traced function
MAX_REASONS = 6  # distinct cache-miss explanations kept per traced function
MAX_SITES = 6
MAX_LOG = 200  # traces listed per function, with their call site and argument types
MAX_KEYS = 20_000  # consumed keys remembered before the oldest are forgotten
STACK_DEPTH = 6  # project frames kept per key use
WRITE_EVERY_S = 1.0

# jax.random functions that take a key and do not consume it
NOT_CONSUMING = frozenset({"fold_in", "key_data", "key_impl", "clone", "wrap_key_data"})
TRUNCATED = "Explicitly requested dtype"

_lock = threading.RLock()
_state: dict[str, Any] = {"traces": {}, "reuse": {}, "leaks": {}, "float64": {}, "errors": []}
_out_dir = ""
_root = ""
_last_write = [0.0]
_dirty = [False]
_local = threading.local()
_user_files: dict[str, bool] = {}
_consumed: dict[int, tuple[Any, list[list[Any]], str]] = {}  # id(key) → (ref, stack, api)
_own_flag = [False]  # jax_explain_cache_misses turned on by this shim (its logs are ours)


# ---------------------------------------------------------------- where in the project


def _is_project(filename: str) -> bool:
    known = _user_files.get(filename)
    if known is None:
        path = os.path.realpath(filename) if filename and not filename.startswith("<") else ""
        known = bool(
            path
            and path.startswith(_root)
            and "site-packages" not in path
            and "dist-packages" not in path
            and path != os.path.realpath(__file__)
        )
        _user_files[filename] = known
    return known


def _project_stack(skip: int = 2) -> list[list[Any]]:
    """The project's frames on the stack, outermost first: [path, line, function]."""
    frames: list[list[Any]] = []
    frame: types.FrameType | None = sys._getframe(skip)
    while frame is not None and len(frames) < 64:
        code = frame.f_code
        if _is_project(code.co_filename):
            frames.append([os.path.realpath(code.co_filename), frame.f_lineno, code.co_name])
        frame = frame.f_back
    frames.reverse()
    return frames[-STACK_DEPTH:]


# ---------------------------------------------------------------- writing


def _changed(new_kind: bool) -> None:
    _dirty[0] = True
    now = time.monotonic()
    if new_kind or now - _last_write[0] >= WRITE_EVERY_S:
        _write()


def _write() -> None:
    if not _out_dir or not _dirty[0]:
        return
    with _lock:
        _dirty[0] = False
        _last_write[0] = time.monotonic()
        path = os.path.join(_out_dir, f"observed-{os.getpid()}.json")
        with contextlib.suppress(Exception):
            temp = f"{path}.tmp"
            with open(temp, "w", encoding="utf-8") as handle:
                json.dump(_state, handle)
            os.replace(temp, path)


def _error(where: str, exc: BaseException) -> None:
    with contextlib.suppress(Exception), _lock:
        if len(_state["errors"]) < 20:
            _state["errors"].append(f"{where}: {type(exc).__name__}: {exc}"[:300])
            _changed(True)


# ---------------------------------------------------------------- traces and leaks


class _ExplanationFilter(logging.Filter):
    """Keeps JAX's cache-miss explanation for the trace being watched; drops the record from
    the program's logging when the flag was turned on by the shim."""

    def filter(self, record: logging.LogRecord) -> bool:
        with contextlib.suppress(Exception):
            message = record.getMessage()
            if message.startswith("TRACING CACHE MISS"):
                stack = getattr(_local, "explanations", None)
                if stack:
                    stack[-1].append(message)
                return not _own_flag[0]
        return True


def _avals(in_avals: Any, weak: bool = False) -> list[str]:
    """The argument types of a trace (`float32[3]`); with `weak`, a Python scalar's weakly
    typed value marked `~` (`float32[]~`), which JAX caches apart from an array's."""
    values = getattr(in_avals, "vals", None)
    if values is None:
        return []
    out = []
    for value in list(values)[:64]:
        short = getattr(value, "str_short", None)
        text = short() if callable(short) else str(value)
        out.append(text + "~" if weak and getattr(value, "weak_type", False) else text)
    return out


def _explanation_reason(message: str) -> str:
    """The why of one cache-miss explanation, without its first line (where it was called)."""
    lines = message.splitlines()[1:]
    if lines and lines[0].strip().startswith("never seen function"):
        again = any("re-defined repeatedly" in line for line in lines)
        return "a new function object" + (" on the line of an earlier one" if again else "")
    kept = [line.strip() for line in lines if line.strip().startswith("*") or "differ" in line]
    return " ".join(kept[-3:])[:1200] if kept else " ".join(x.strip() for x in lines)[:1200]


def _note_trace(debug_info: Any, in_avals: Any, explanations: list[str], new_kind: bool) -> None:
    filename = getattr(debug_info, "func_filename", None)
    if getattr(debug_info, "traced_for", "") != "jit" or not filename or not _is_project(filename):
        return
    line = getattr(debug_info, "func_lineno", None) or 0
    name = getattr(debug_info, "func_name", "") or "?"
    path = os.path.realpath(filename)
    key = f"{path}:{line}:{name}"
    with _lock:
        entry = _state["traces"].get(key)
        if entry is None:
            entry = _state["traces"][key] = {
                "path": path,
                "line": line,
                "name": name,
                "count": 0,
                "new_functions": 0,
                "reasons": [],
                "signatures": [],
                "call_sites": [],
                # [call site, argument types, for a new function object?] of each trace
                "log": [],
            }
            new_kind = True
        entry["count"] += 1
        fresh = False
        for message in explanations:
            reason = _explanation_reason(message)
            if reason.startswith("a new function object"):
                entry["new_functions"] += 1
                fresh = True
            elif reason and reason not in entry["reasons"] and len(entry["reasons"]) < MAX_REASONS:
                entry["reasons"].append(reason)
        arg_names = list(getattr(debug_info, "arg_names", None) or ())
        signature = {"args": arg_names[:64], "types": _avals(in_avals)}
        if signature not in entry["signatures"] and len(entry["signatures"]) < MAX_SIGNATURES:
            entry["signatures"].append(signature)
        stack = _project_stack(4)
        site = stack[-1][:2] if stack else None
        if site and site not in entry["call_sites"] and len(entry["call_sites"]) < MAX_SITES:
            entry["call_sites"].append(site)
        if len(entry["log"]) < MAX_LOG:
            entry["log"].append([site, _avals(in_avals, weak=True), fresh])
        _changed(new_kind)


def _note_leak(debug_info: Any, trace: Any) -> None:
    """The trace outlived its function's tracing: find the tracers that keep it."""
    gc.collect()
    if trace() is None:
        return  # only garbage in a cycle held it
    core = sys.modules.get("jax._src.core")
    tracer_type = getattr(core, "Tracer", None)
    if tracer_type is None:
        return
    alive = trace()
    tracers = [r for r in gc.get_referrers(alive) if isinstance(r, tracer_type)] if alive else []
    del alive
    if not tracers:
        return
    filename = getattr(debug_info, "func_filename", "") or ""
    created = _line_info_site(getattr(tracers[0], "_line_info", None))
    _leak_event(
        {
            "function": getattr(debug_info, "func_name", "") or "?",
            "path": os.path.realpath(filename) if filename else "",
            "line": getattr(debug_info, "func_lineno", None) or 0,
            "created": created,
            "tracers": len(tracers),
            "type": str(getattr(getattr(tracers[0], "aval", None), "str_short", lambda: "")()),
            "how": "kept",
        }
    )


def _line_info_site(line_info: Any) -> list[Any] | None:
    """The project frame a tracer was created at (`Tracer._line_info`, a source_info)."""
    traceback = getattr(line_info, "traceback", None)
    frames = getattr(traceback, "frames", None) if traceback is not None else None
    with contextlib.suppress(Exception):
        for frame in frames or ():
            filename = getattr(frame, "file_name", "")
            if _is_project(filename):
                return [os.path.realpath(filename), int(getattr(frame, "line_num", 0))]
    return None


def _leak_event(event: dict[str, Any]) -> None:
    if not event.get("path") or not _is_project(event["path"]):
        if event.get("created"):
            event["path"], event["line"] = event["created"][0], event["created"][1]
        else:
            return
    key = f"{event['path']}:{event['line']}:{event['function']}:{event['how']}"
    with _lock:
        kept = _state["leaks"].get(key)
        if kept is not None:
            kept["count"] += 1
            _changed(False)
            return
        event["count"] = 1
        _state["leaks"][key] = event
        _changed(True)


class _TraceWatcher:
    """Stands in for `pe.trace_to_jaxpr`: calls it, then notes the trace and checks for a leak."""

    def __init__(self, wrapped: Any) -> None:
        self._wrapped = wrapped

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        # (fun, in_avals, debug_info, *context): JAX passes them by position; any other way
        # of calling is passed through as it came
        in_avals = args[1] if len(args) > 1 else kwargs.get("in_avals")
        debug_info = args[2] if len(args) > 2 else kwargs.get("debug_info")
        explanations: list[str] = []
        stack = getattr(_local, "explanations", None)
        if stack is None:
            stack = _local.explanations = []
        traces = getattr(_local, "traces", None)
        if traces is None:
            traces = _local.traces = []
        misses = self._misses()
        stack.append(explanations)
        first_trace = len(traces)
        try:
            result = self._wrapped(*args, **kwargs)
        finally:
            stack.pop()
            made = traces[first_trace:]
            del traces[first_trace:]
        with contextlib.suppress(Exception):
            if self._misses() != misses:
                _note_trace(debug_info, in_avals, explanations, False)
                if made and made[0]() is not None:
                    _note_leak(debug_info, made[0])
        return result

    def _misses(self) -> int:
        with contextlib.suppress(Exception):
            return int(self._wrapped.cache_info().misses)
        return -1

    def __getattr__(self, name: str) -> Any:  # cache_clear, cache_info, …
        return getattr(self._wrapped, name)


def _watch_traces(jax: Any) -> None:
    from jax._src.interpreters import partial_eval as pe

    trace_type = pe.DynamicJaxprTrace
    original_init = trace_type.__init__

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:  # noqa: N807
        original_init(self, *args, **kwargs)
        traces = getattr(_local, "traces", None)
        if traces is not None:
            with contextlib.suppress(TypeError):
                traces.append(weakref.ref(self))

    trace_type.__init__ = __init__  # type: ignore[method-assign]  # jax's class, patched
    pe.trace_to_jaxpr = _TraceWatcher(pe.trace_to_jaxpr)
    if not jax.config.jax_explain_cache_misses:
        _own_flag[0] = True
        jax.config.update("jax_explain_cache_misses", True)
    logging.getLogger(pe.__name__).addFilter(_ExplanationFilter())


def _watch_escapes() -> None:
    from jax._src import core

    original = core.escaped_tracer_error

    def escaped_tracer_error(tracer: Any, detail: Any = None) -> Any:
        with contextlib.suppress(Exception):
            debug_info = getattr(tracer, "_debug_info", None)
            filename = getattr(debug_info, "func_filename", "") or ""
            stack = _project_stack(2)
            _leak_event(
                {
                    "function": getattr(debug_info, "func_name", "") or "?",
                    "path": os.path.realpath(filename) if filename else "",
                    "line": getattr(debug_info, "func_lineno", None) or 0,
                    "created": _line_info_site(getattr(tracer, "_line_info", None)),
                    "used": stack[-1][:2] if stack else None,
                    "tracers": 1,
                    "type": str(getattr(getattr(tracer, "aval", None), "str_short", lambda: "")()),
                    "how": "used",
                }
            )
        return original(tracer, detail) if detail is not None else original(tracer)

    core.escaped_tracer_error = escaped_tracer_error


# ---------------------------------------------------------------- PRNG keys


def _consume(key: Any, api: str) -> None:
    if getattr(_local, "busy", False):
        return  # a sampler calling another one (split inside permutation…)
    stack = _project_stack(3)
    if not stack:
        return  # drawn inside a library (its own keys)
    with _lock:
        kept = _consumed.get(id(key))
        if kept is not None and kept[0]() is key:
            _reuse_event(kept[1], kept[2], stack, api, _is_tracer(key))
            return
        try:
            ref: Any = weakref.ref(key)
        except TypeError:
            return
        if len(_consumed) >= MAX_KEYS:
            stale = [k for k, v in _consumed.items() if v[0]() is None]
            for old in stale or list(_consumed)[:1000]:
                del _consumed[old]
        _consumed[id(key)] = (ref, stack, api)


def _is_tracer(value: Any) -> bool:
    return any(c.__name__.endswith("Tracer") for c in type(value).__mro__)


def _reuse_event(
    first: list[list[Any]], first_api: str, second: list[list[Any]], api: str, traced: bool
) -> None:
    key = json.dumps([first, second])
    entry = _state["reuse"].get(key)
    if entry is not None:
        entry["count"] += 1
        _changed(False)
        return
    _state["reuse"][key] = {
        "first": first,
        "second": second,
        "first_api": first_api,
        "second_api": api,
        "traced": traced,
        "count": 1,
    }
    _changed(True)


def _sampler(function: Any, api: str) -> Any:
    import functools

    @functools.wraps(function)
    def sampler(*args: Any, **kwargs: Any) -> Any:
        if not getattr(_local, "busy", False):
            key = args[0] if args else kwargs.get("key")
            if key is not None:
                with contextlib.suppress(Exception):
                    _consume(key, api)
        _local.busy = True
        try:
            return function(*args, **kwargs)
        finally:
            _local.busy = False

    sampler._jaxlint_observed = True  # type: ignore[attr-defined]
    return sampler


def _watch_keys() -> None:
    import inspect

    random = sys.modules.get("jax.random")
    if random is None:
        import jax.random as random
    for name in dir(random):
        if name.startswith("_") or name in NOT_CONSUMING:
            continue
        function = getattr(random, name)
        if not callable(function) or isinstance(function, type):
            continue
        if getattr(function, "_jaxlint_observed", False):
            continue
        with contextlib.suppress(TypeError, ValueError):
            parameters = list(inspect.signature(function).parameters)
            if parameters and parameters[0] == "key":
                setattr(random, name, _sampler(function, name))


# ---------------------------------------------------------------- float64 with x64 off


def _watch_float64() -> None:
    import warnings

    original = warnings.warn

    def warn(
        message: Any, category: Any = None, stacklevel: int = 1, *args: Any, **kwargs: Any
    ) -> None:
        with contextlib.suppress(Exception):
            text = str(message)
            if text.startswith(TRUNCATED) and "not available" in text:
                _float64_event(text)
        original(message, category, stacklevel + 1, *args, **kwargs)

    warn._jaxlint_observed = True  # type: ignore[attr-defined]
    warnings.warn = warn


def _float64_event(text: str) -> None:
    stack = _project_stack(3)
    if not stack:
        return
    path, line, function = stack[-1]
    words = text.split()
    dtype = words[3] if len(words) > 3 else "float64"
    api = words[6] if len(words) > 6 and words[4:6] == ["requested", "in"] else ""
    key = f"{path}:{line}:{dtype}"
    with _lock:
        entry = _state["float64"].get(key)
        if entry is not None:
            entry["count"] += 1
            _changed(False)
            return
        _state["float64"][key] = {
            "path": path,
            "line": line,
            "function": function,
            "dtype": dtype,
            "api": api,
            "count": 1,
        }
        _changed(True)


# ---------------------------------------------------------------- installing


def _patch_jax() -> None:
    jax = sys.modules.get("jax")
    if jax is None or getattr(jax, "_jaxlint_observed", False):
        return
    jax._jaxlint_observed = True  # type: ignore[attr-defined]  # marks the module patched
    for step in (lambda: _watch_traces(jax), _watch_escapes, _watch_keys, _watch_float64):
        try:
            step()
        except Exception as exc:  # noqa: BLE001 — one event kind unobserved, say so
            _error(getattr(step, "__name__", "watch"), exc)


class _Finder(importlib.abc.MetaPathFinder):
    """Waits for `import jax`; once the package has run, the hooks go in."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if fullname != "jax" or getattr(_local, "finding", False):
            return None
        _local.finding = True
        try:
            spec = None
            for finder in list(sys.meta_path):
                if finder is self or not hasattr(finder, "find_spec"):
                    continue
                spec = finder.find_spec(fullname, path, target)
                if spec is not None:
                    break
        except Exception:  # noqa: BLE001 — the import itself will report it
            return None
        finally:
            _local.finding = False
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return None
        spec.loader = _Loader(spec.loader)  # type: ignore[assignment]  # a loader by duck type
        return spec


class _Loader:
    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def create_module(self, spec: Any) -> Any:
        create = getattr(self._inner, "create_module", None)
        return create(spec) if create is not None else None

    def exec_module(self, module: Any) -> None:
        self._inner.exec_module(module)
        _patch_jax()

    def __getattr__(self, name: str) -> Any:
        inner = self.__dict__.get("_inner")
        if inner is None:
            raise AttributeError(name)
        return getattr(inner, name)


def install() -> None:
    """Read the environment; hook `import jax` (or patch it now if it is already loaded)."""
    global _out_dir, _root
    _out_dir = os.environ.get("JAXLINT_OBSERVE_DIR", "")
    _root = os.path.realpath(os.environ.get("JAXLINT_OBSERVE_ROOT", "") or os.getcwd())
    if not _out_dir:
        return
    _root = _root.rstrip(os.sep) + os.sep
    atexit.register(_write)
    if "jax" in sys.modules:
        _patch_jax()
    else:
        sys.meta_path.insert(0, _Finder())
