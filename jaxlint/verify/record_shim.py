"""Recording shim: loaded by a `sitecustomize` in every Python process `--examples-from CMD` runs.

Stdlib only, and loaded by file path (the user's interpreter need not have jaxlint installed; it
never imports the `jaxlint` package). It installs an import hook: when a module whose file is a
verify target's file is executed, the named functions and methods are wrapped. A wrapper records
each call's argument structure (arrays as shape and dtype, Python scalars, strings and None as
their values, tuples/lists/dicts as trees, other registered pytrees as their pickled structure and
leaves, other objects pickled when they hold no tracer), and for methods the arguments `self`
was built with, then calls through unchanged. Distinct signatures, at most MAX_RECORDS per
target, are written as JSON to `$JAXLINT_RECORD_DIR/records-<pid>.json` after each new one (so a
killed or `os._exit`-ing process keeps what it saw). Nothing here may change what the program
does: every recording step swallows its own errors.

Environment: JAXLINT_RECORD_TARGETS — a JSON file `[{"path": ..., "target": ...}, ...]`;
JAXLINT_RECORD_DIR — the folder for the records.
"""

from __future__ import annotations

import base64
import contextlib
import functools
import importlib.abc
import json
import math
import os
import pickle
import sys
import threading
import weakref
from typing import Any

MAX_RECORDS = 8  # distinct signatures per target
MAX_CALLS = 10_000  # calls looked at per target before recording stops
MAX_LEAVES = 2_000  # a bigger argument tree is recorded as opaque
MAX_DEPTH = 20
MAX_PICKLE_BYTES = 1 << 20  # an object argument recorded by pickle, at most this big
MAX_CONTENT_ELEMENTS = 4096  # a concrete array this small is recorded with its contents
LEAF_MARK = "\0jaxlint-leaf:"  # placeholder leaf `i` of a pickled tree skeleton

_lock = threading.RLock()
_records: dict[str, list[dict[str, Any]]] = {}  # "path::target" → distinct records
_seen: dict[str, set[str]] = {}
_calls: dict[str, int] = {}
_init_args: dict[int, tuple[Any, dict[str, Any]]] = {}  # id(instance) → (weakref|None, record)
_out_dir = ""
_targets: dict[str, list[str]] = {}  # realpath → qualified names
_stems: set[str] = set()  # module names the target files can be imported as (last part)
_busy = threading.local()


class _Opaque(Exception):
    """An argument that cannot be recorded as a tree of arrays and static values."""


def _encode(value: Any, budget: list[int], depth: int = 0) -> dict[str, Any]:
    """A JSON description of one argument."""
    if depth > MAX_DEPTH:
        raise _Opaque("nested too deeply")
    if value is None or isinstance(value, (bool, str)):
        return {"t": "value", "v": value}
    if isinstance(value, int) and type(value) is int:
        return {"t": "value", "v": value}
    if isinstance(value, float) and type(value) is float:
        if math.isfinite(value):
            return {"t": "value", "v": value}
        return {"t": "value", "float": repr(value)}
    shape = getattr(value, "shape", None)
    dtype = getattr(value, "dtype", None)
    package = type(value).__module__.split(".")[0]
    if shape is not None and dtype is not None and package in ("jax", "jaxlib", "numpy"):
        budget[0] -= 1
        if budget[0] < 0:
            raise _Opaque("too many leaves")
        encoded = {"t": "array", "shape": [int(d) for d in shape], "dtype": str(dtype)}
        contents = _contents(value)
        if contents is not None:
            encoded["data"] = contents
        return encoded
    if type(value) in (tuple, list):
        return {
            "t": type(value).__name__,
            "items": [_encode(item, budget, depth + 1) for item in value],
        }
    if type(value) is dict:
        keys = list(value)
        if not all(type(k) in (str, int) for k in keys):
            raise _Opaque("dict keys that are not str or int")
        return {
            "t": "dict",
            "keys": keys,
            "items": [_encode(value[k], budget, depth + 1) for k in keys],
        }
    return _encode_object(value, budget, depth)


def _contents(value: Any) -> str | None:
    """The bytes of a small concrete array (a time grid, an index table), base64; None for a
    tracer, a PRNG key or a big array, of which only shape and dtype are recorded."""
    if any(c.__name__.endswith("Tracer") for c in type(value).__mro__):
        return None
    numpy = sys.modules.get("numpy")
    size = getattr(value, "size", None)
    if numpy is None or not isinstance(size, int) or size > MAX_CONTENT_ELEMENTS:
        return None
    try:
        array = numpy.asarray(value)
        if array.dtype.kind not in "biufc":
            return None
        return base64.b64encode(numpy.ascontiguousarray(array).tobytes()).decode("ascii")
    except Exception:  # noqa: BLE001 — a deleted buffer, an exotic array type: shape only
        return None


def _encode_object(value: Any, budget: list[int], depth: int) -> dict[str, Any]:
    """A registered pytree (dataclass, NamedTuple, flax.struct, equinox Module…) as its structure
    and encoded leaves; any other object whose pickle holds no tracer, pickled."""
    name = f"a {type(value).__module__}.{type(value).__qualname__}"
    jax = sys.modules.get("jax")
    tree_util = getattr(jax, "tree_util", None)
    try:
        leaves, treedef = tree_util.tree_flatten(value) if tree_util is not None else ([], None)
    except Exception:  # noqa: BLE001 — a flatten rule that fails: treated as any other object
        treedef = None
    if treedef is not None and treedef.num_nodes > 1:
        encoded = [_encode(leaf, budget, depth + 1) for leaf in leaves]
        return {**_structure(tree_util, treedef, len(leaves), name), "leaves": encoded}
    try:
        data = pickle.dumps(value)
    except Exception as exc:  # a tracer inside, a lock, a generator…
        raise _Opaque(name) from exc
    if len(data) > MAX_PICKLE_BYTES:
        raise _Opaque(f"{name} of {len(data)} bytes pickled")
    return {"t": "pickle", "data": base64.b64encode(data).decode("ascii")}


def _structure(tree_util: Any, treedef: Any, count: int, name: str) -> dict[str, Any]:
    """A tree structure that loads back as the same structure.

    First the object itself with placeholder leaves, pickled (its class's own pickling keeps
    what the tree's aux data holds by identity, such as equinox's `MISSING`); else the
    PyTreeDef pickled, when it compares equal once loaded.
    """
    marks = [f"{LEAF_MARK}{i}" for i in range(count)]
    with contextlib.suppress(Exception):
        data = pickle.dumps(treedef.unflatten(marks))
        if len(data) <= MAX_PICKLE_BYTES and tree_util.tree_leaves(pickle.loads(data)) == marks:
            return {"t": "skeleton", "data": base64.b64encode(data).decode("ascii")}
    with contextlib.suppress(Exception):
        data = pickle.dumps(treedef)
        if pickle.loads(data) == treedef:
            return {"t": "tree", "treedef": base64.b64encode(data).decode("ascii")}
    raise _Opaque(f"{name} whose tree structure cannot be recorded")


def _encode_call(args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
    budget = [MAX_LEAVES]
    try:
        return {
            "args": [_encode(a, budget) for a in args],
            "kwargs": {str(k): _encode(v, budget) for k, v in kwargs.items()},
        }
    except _Opaque as exc:
        return {"opaque": str(exc)}


def _write() -> None:
    path = os.path.join(_out_dir, f"records-{os.getpid()}.json")
    temp = f"{path}.tmp"
    with open(temp, "w", encoding="utf-8") as handle:
        json.dump(_records, handle)
    os.replace(temp, path)


def _record(key: str, args: tuple[Any, ...], kwargs: dict[str, Any], owner: Any = None) -> None:
    """Remember one call of target `key` (never raises)."""
    if getattr(_busy, "active", False):  # a call made while recording (a __repr__): skip it
        return
    _busy.active = True
    try:
        with _lock:
            calls = _calls.get(key, 0)
            if calls >= MAX_CALLS or len(_records.get(key, ())) >= MAX_RECORDS:
                return
            _calls[key] = calls + 1
            record = _encode_call(args, kwargs)
            if owner is not None:
                record["init"] = _init_of(owner)
            text = json.dumps(_shape_only(record), sort_keys=True)
            seen = _seen.setdefault(key, set())
            if text in seen:
                return
            seen.add(text)
            if owner is not None:  # `self` as it is (a pytree, or pickled), once per signature
                with contextlib.suppress(_Opaque):
                    record["self"] = _encode_object(owner, [MAX_LEAVES], 0)
            _records.setdefault(key, []).append(record)
            _write()
    except BaseException:  # noqa: BLE001, S110 — recording must never break the program
        pass
    finally:
        _busy.active = False


def _shape_only(encoded: Any) -> Any:
    """A record without array contents: calls differing only in the data are one signature."""
    if isinstance(encoded, dict):
        array = encoded.get("t") == "array"
        return {k: _shape_only(v) for k, v in encoded.items() if not (array and k == "data")}
    if isinstance(encoded, list):
        return [_shape_only(v) for v in encoded]
    return encoded


def _init_of(instance: Any) -> dict[str, Any] | None:
    entry = _init_args.get(id(instance))
    if entry is None:
        return None
    ref, record = entry
    if ref is not None and ref() is not instance:
        return None  # another object that reused the id
    return record


def _remember_init(cls: type, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    if getattr(_busy, "active", False):
        return
    _busy.active = True
    try:
        if type(instance) is not cls or id(instance) in _init_args:
            return  # a subclass, or a nested super().__init__: the outermost call counts
        try:
            ref: Any = weakref.ref(instance)
        except TypeError:
            ref = None
        with _lock:
            if len(_init_args) > 10_000:
                _init_args.clear()
            _init_args[id(instance)] = (ref, _encode_call(args, kwargs))
    except BaseException:  # noqa: BLE001, S110
        pass
    finally:
        _busy.active = False


class _CallableProxy:
    """Stands in for a non-function callable (a jitted function): records, forwards the rest."""

    def __init__(self, wrapped: Any, key: str) -> None:
        object.__setattr__(self, "_jaxlint_wrapped", wrapped)
        object.__setattr__(self, "_jaxlint_key", key)
        for name in ("__module__", "__name__", "__qualname__", "__doc__"):
            with contextlib.suppress(AttributeError, TypeError):
                object.__setattr__(self, name, getattr(wrapped, name))
        object.__setattr__(self, "__wrapped__", wrapped)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        _record(self._jaxlint_key, args, kwargs)
        return self._jaxlint_wrapped(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(object.__getattribute__(self, "_jaxlint_wrapped"), name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self._jaxlint_wrapped, name, value)

    def __get__(self, instance: Any, owner: Any = None) -> Any:
        if instance is None:
            return self
        return functools.partial(self, instance)

    def __repr__(self) -> str:
        return repr(self._jaxlint_wrapped)


def _function_wrapper(function: Any, key: str) -> Any:
    if isinstance(function, type(_encode)):

        @functools.wraps(function)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            _record(key, args, kwargs)
            return function(*args, **kwargs)

        return wrapper
    return _CallableProxy(function, key)


def _method_wrapper(cls: type, attribute: Any, key: str) -> Any:
    if isinstance(attribute, staticmethod):
        return staticmethod(_function_wrapper(attribute.__func__, key))
    if isinstance(attribute, classmethod) or not callable(attribute):
        return None

    @functools.wraps(attribute)
    def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
        _record(key, args, kwargs, owner=self)
        bind = getattr(attribute, "__get__", None)
        if bind is not None:
            return bind(self, type(self))(*args, **kwargs)
        return attribute(self, *args, **kwargs)

    return wrapper


def _wrap_init(cls: type[Any]) -> None:
    if getattr(cls, "_jaxlint_init_wrapped", None) is cls:
        return
    original = cls.__init__

    @functools.wraps(original)
    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:  # noqa: N807
        _remember_init(cls, self, args, kwargs)
        original(self, *args, **kwargs)

    cls.__init__ = __init__
    cls._jaxlint_init_wrapped = cls


def _wrap_target(module: Any, qualname: str, key: str) -> None:
    parts = qualname.split(".")
    owner: Any = module
    for part in parts[:-1]:
        owner = getattr(owner, part)
    name = parts[-1]
    if isinstance(owner, type):
        attribute = owner.__dict__.get(name)
        if attribute is None:
            return
        wrapper = _method_wrapper(owner, attribute, key)
        if wrapper is None:
            return
        setattr(owner, name, wrapper)
        _wrap_init(owner)
        return
    function = getattr(owner, name, None)
    if function is None or not callable(function):
        return
    setattr(owner, name, _function_wrapper(function, key))


def _wrap_module(module: Any, path: str) -> None:
    for qualname in _targets.get(path, ()):
        try:
            _wrap_target(module, qualname, f"{path}::{qualname}")
        except BaseException:  # noqa: BLE001, S112 — a target we cannot wrap goes unrecorded
            continue


class _Finder(importlib.abc.MetaPathFinder):
    """Finds modules as usual; for a target's file, wraps the loader's exec_module."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if fullname.rpartition(".")[2] not in _stems:
            return None  # cheap: most imports are not a target's module
        spec = self._others(fullname, path, target)
        if spec is None or not spec.origin or spec.loader is None:
            return None
        try:
            origin = os.path.realpath(spec.origin)
        except (OSError, ValueError):
            return None
        if origin not in _targets:
            return None  # let the regular finders find it as they always do
        if not hasattr(spec.loader, "exec_module"):
            return None
        spec.loader = _Loader(spec.loader, origin)
        return spec

    def _others(self, fullname: str, path: Any, target: Any) -> Any:
        """The spec the finders after this one give (an editable install's finder included)."""
        if getattr(_busy, "finding", False):
            return None  # a finder that asks sys.meta_path again: do not go round in circles
        _busy.finding = True
        try:
            for finder in list(sys.meta_path):
                if finder is self or not hasattr(finder, "find_spec"):
                    continue
                spec = finder.find_spec(fullname, path, target)
                if spec is not None:
                    return spec
        except Exception:  # noqa: BLE001 — the import itself will find and report it
            return None
        finally:
            _busy.finding = False
        return None


class _Loader:
    """The module's own loader, and after it has run the module, the targets get wrapped."""

    def __init__(self, inner: Any, origin: str) -> None:
        self._inner = inner
        self._origin = origin

    def create_module(self, spec: Any) -> Any:
        create = getattr(self._inner, "create_module", None)
        return create(spec) if create is not None else None

    def exec_module(self, module: Any) -> None:
        self._inner.exec_module(module)
        _wrap_module(module, self._origin)

    def __getattr__(self, name: str) -> Any:  # get_source, get_data, get_resource_reader, …
        inner = self.__dict__.get("_inner")
        if inner is None:
            raise AttributeError(name)
        return getattr(inner, name)


def install() -> None:
    """Read the targets from the environment and put the finder first on sys.meta_path."""
    global _out_dir
    targets_file = os.environ.get("JAXLINT_RECORD_TARGETS")
    _out_dir = os.environ.get("JAXLINT_RECORD_DIR", "")
    if not targets_file or not _out_dir:
        return
    with open(targets_file, encoding="utf-8") as handle:
        for entry in json.load(handle):
            path = os.path.realpath(entry["path"])
            _targets.setdefault(path, []).append(entry["target"])
            stem = os.path.splitext(os.path.basename(path))[0]
            _stems.add(os.path.basename(os.path.dirname(path)) if stem == "__init__" else stem)
    if _targets:
        sys.meta_path.insert(0, _Finder())
