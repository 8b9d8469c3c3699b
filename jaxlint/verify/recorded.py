"""Recorded signatures → bindings, in the verification child (see jaxlint.verify.recording).

Each record (`{"args": [...], "kwargs": {...}, "init": ...}`, one JSON string) becomes a
`RecordedBinding` over the parameters the call passed: arrays are made fresh with the recorded
shape and dtype from fixed seeds, or from their recorded contents when they were small and
concrete (typed PRNG keys as keys), Python values are passed as recorded,
tuples, lists and dicts become container kinds (`ArgKind("tuple" | "dict", items=...)`) and other
pytrees (dataclasses, NamedTuples, flax.struct, equinox Modules) their recorded tree structure over
fresh leaves, so resizing, retyping and describing work as for other bindings, leaves included.
Other objects come back from their pickle as recorded; the pickles were written into the project's
own cache by the user's command, so loading them runs nothing that command did not.
"""

from __future__ import annotations

import base64
import inspect
import io
import json
import math
import pickle
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp

from jaxlint.verify.inputs import ArgKind, Binding, Param
from jaxlint.verify.record_shim import LEAF_MARK

RECORDED_SALT = 29


class NotRebuildable(Exception):
    """A record holds something that cannot be made again (an object, *args, a typed key)."""


@dataclass(frozen=True)
class RecordedBinding(Binding):
    """A binding from a recorded call: positional arguments stay positional, values included."""

    def make(self, set_index: int) -> tuple[tuple[Any, ...], dict[str, Any]]:
        """Fresh (args, kwargs) with the recorded structure for an input set."""
        args: list[Any] = []
        kwargs: dict[str, Any] = {}
        for position, (param, kind) in enumerate(zip(self.params, self.kinds, strict=True)):
            if kind is None:
                continue
            value = kind.make(set_index, 1000 * set_index + 37 * position + self.salt)
            if param.keyword:
                kwargs[param.name] = value
            else:
                args.append(value)
        return tuple(args), kwargs


class _Unpickler(pickle.Unpickler):
    """Loads a recorded object; a class of the module being verified is taken from the module
    verification built (its `State` is the original's), not imported again."""

    def __init__(self, data: bytes, home: Home | None) -> None:
        super().__init__(io.BytesIO(data))
        self.home = home

    def find_class(self, module: str, name: str) -> Any:
        home = self.home
        if home is not None and module == home.module and name in home.names:
            return home.names[name]
        return super().find_class(module, name)


@dataclass(frozen=True)
class Home:
    """The module being verified: the dotted name its package gives it, and its namespace."""

    module: str
    names: dict[str, Any]


def _loader(home: Home | None) -> Callable[[bytes], Any]:
    return lambda data: _Unpickler(data, home).load()


@dataclass(frozen=True)
class InstanceBinding(Binding):
    """The `self` a recorded method call had, rebuilt as recorded (its pytree structure over fresh
    leaves, or its pickle) instead of calling the constructor again."""

    def make(self, set_index: int) -> tuple[tuple[Any, ...], dict[str, Any]]:
        return (self.instance(set_index),), {}

    def instance(self, set_index: int) -> Any:
        kind = self.kinds[0]
        assert kind is not None
        return kind.make(set_index, 1000 * set_index + self.salt)


def _treedef(encoded: dict[str, Any], home: Home | None, count: int) -> Any:
    """The PyTreeDef of a recorded tree: pickled as such, or a skeleton with marked leaves."""
    if encoded["t"] == "tree":
        return _loader(home)(base64.b64decode(encoded["treedef"]))
    skeleton = _loader(home)(base64.b64decode(encoded["data"]))
    leaves, treedef = jax.tree_util.tree_flatten(skeleton)
    if leaves != [f"{LEAF_MARK}{i}" for i in range(count)]:
        raise ValueError("the skeleton's leaves are not the recorded ones")
    return treedef


def decode(encoded: dict[str, Any], home: Home | None = None) -> ArgKind:
    """One recorded argument as an ArgKind."""
    tag = encoded.get("t")
    if tag == "array":
        dtype = str(encoded["dtype"])
        shape = tuple(int(d) for d in encoded["shape"])
        if dtype.startswith("key<"):
            return ArgKind("key", shape, dtype)
        data = encoded.get("data")
        contents = base64.b64decode(data) if isinstance(data, str) else None
        if contents is not None and len(contents) != jnp.dtype(dtype).itemsize * math.prod(shape):
            raise NotRebuildable(f"recorded contents that do not fit {dtype}{list(shape)}")
        return ArgKind("array", shape, dtype, value=contents)
    if tag in ("tree", "skeleton"):
        try:
            treedef = _treedef(encoded, home, len(encoded["leaves"]))
        except Exception as exc:  # noqa: BLE001 — any unpickling failure: not rebuildable
            raise NotRebuildable(f"a tree structure that cannot be loaded ({exc})") from exc
        leaves = tuple((str(n), decode(leaf, home)) for n, leaf in enumerate(encoded["leaves"]))
        return ArgKind("tree", items=leaves, cls=treedef)
    if tag == "pickle":
        data = base64.b64decode(encoded["data"])
        load = _loader(home)
        try:
            load(data)
        except Exception as exc:  # noqa: BLE001
            raise NotRebuildable(f"a recorded object that cannot be loaded ({exc})") from exc
        return ArgKind("pickled", value=data, cls=load)
    if tag == "value":
        value = float(encoded["float"]) if "float" in encoded else encoded.get("v")
        return ArgKind("value", value=value)
    if tag in ("tuple", "list"):
        items = tuple((str(n), decode(item, home)) for n, item in enumerate(encoded["items"]))
        return ArgKind("tuple", items=items, cls=list if tag == "list" else tuple)
    if tag == "dict":
        keys = list(encoded["keys"])
        if not all(isinstance(k, str) for k in keys) or len(keys) != len(encoded["items"]):
            raise NotRebuildable("a dict with keys that are not strings")
        items = tuple(
            (k, decode(item, home)) for k, item in zip(keys, encoded["items"], strict=True)
        )
        return ArgKind("dict", items=items)
    raise NotRebuildable(f"an argument recorded as {tag!r}")


def binding(
    signature: inspect.Signature, call: dict[str, Any], home: Home | None = None
) -> RecordedBinding:
    """The binding of one recorded call (`{"args": [...], "kwargs": {...}}`) of `signature`."""
    if "opaque" in call:
        raise NotRebuildable(str(call["opaque"]))
    args = [decode(a, home) for a in call.get("args", ())]
    kwargs = {str(k): decode(v, home) for k, v in call.get("kwargs", {}).items()}
    try:
        bound = signature.bind(*range(len(args)), **dict.fromkeys(kwargs, None))
    except TypeError as exc:
        raise NotRebuildable(f"the recorded call does not fit the signature: {exc}") from exc
    params: list[Param] = []
    kinds: list[ArgKind | None] = []
    for name, parameter in signature.parameters.items():
        if parameter.kind == parameter.VAR_POSITIONAL:
            if bound.arguments.get(name):
                raise NotRebuildable("a call through *args")
            continue
        if parameter.kind == parameter.VAR_KEYWORD:
            for key in bound.arguments.get(name, {}):
                params.append(Param(key, True, ()))
                kinds.append(kwargs[key])
            continue
        if name not in bound.arguments:
            params.append(Param(name, True, ()))  # left at its default: variants may set it
            kinds.append(None)
        elif name in kwargs:
            params.append(Param(name, True, ()))
            kinds.append(kwargs[name])
        else:
            params.append(Param(name, False, ()))
            kinds.append(args[bound.arguments[name]])
    return RecordedBinding(tuple(params), tuple(kinds), RECORDED_SALT)


def recorded_calls(
    call_signature: inspect.Signature,
    init_signature: inspect.Signature | None,
    recorded: Sequence[str],
    home: Home | None = None,
) -> Iterator[tuple[RecordedBinding | InstanceBinding | None, RecordedBinding | None, str]]:
    """(init binding or None, call binding, '') per record; (None, None, why) when unusable.

    For a method, the init binding is the constructor's recorded arguments (made outside any
    trace, so small arrays come with their contents), else the recorded `self` itself (an
    InstanceBinding: a pytree's structure over fresh leaves, or its pickle); a record with
    neither gives init None: the caller finds a constructor another way.
    """
    for text in recorded:
        try:
            record = json.loads(text)
            call = binding(call_signature, record, home)
            init: RecordedBinding | InstanceBinding | None = None
            if init_signature is not None and record.get("init"):
                init = binding(init_signature, record["init"], home)
            elif init_signature is not None and record.get("self"):
                kind = decode(record["self"], home)
                init = InstanceBinding((Param("self", False, ()),), (kind,), RECORDED_SALT)
        except NotRebuildable as exc:
            yield None, None, str(exc)
            continue
        except (ValueError, TypeError, KeyError, AttributeError) as exc:
            yield None, None, f"an unreadable record ({type(exc).__name__}: {exc})"
            continue
        yield init, call, ""
