"""Recorded signatures → bindings, in the verification child (see jaxlint.verify.recording).

Each record (`{"args": [...], "kwargs": {...}, "init": ...}`, one JSON string) becomes a
`RecordedBinding` over the parameters the call passed: arrays are made fresh with the recorded
shape and dtype from fixed seeds, Python values are passed as recorded, tuples, lists and dicts
become container kinds (`ArgKind("tuple" | "dict", items=...)`) with the same structure, so
resizing, retyping and describing work as for other bindings, leaves included.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from jaxlint.verify.inputs import ArgKind, Binding, Param

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


def decode(encoded: dict[str, Any]) -> ArgKind:
    """One recorded argument as an ArgKind."""
    tag = encoded.get("t")
    if tag == "array":
        dtype = str(encoded["dtype"])
        if dtype.startswith("key<"):
            raise NotRebuildable(f"a typed PRNG key ({dtype})")
        return ArgKind("array", tuple(int(d) for d in encoded["shape"]), dtype)
    if tag == "value":
        value = float(encoded["float"]) if "float" in encoded else encoded.get("v")
        return ArgKind("value", value=value)
    if tag in ("tuple", "list"):
        items = tuple((str(n), decode(item)) for n, item in enumerate(encoded["items"]))
        return ArgKind("tuple", items=items, cls=list if tag == "list" else tuple)
    if tag == "dict":
        keys = list(encoded["keys"])
        if not all(isinstance(k, str) for k in keys) or len(keys) != len(encoded["items"]):
            raise NotRebuildable("a dict with keys that are not strings")
        items = tuple((k, decode(item)) for k, item in zip(keys, encoded["items"], strict=True))
        return ArgKind("dict", items=items)
    raise NotRebuildable(f"an argument recorded as {tag!r}")


def binding(signature: inspect.Signature, call: dict[str, Any]) -> RecordedBinding:
    """The binding of one recorded call (`{"args": [...], "kwargs": {...}}`) of `signature`."""
    if "opaque" in call:
        raise NotRebuildable(str(call["opaque"]))
    args = [decode(a) for a in call.get("args", ())]
    kwargs = {str(k): decode(v) for k, v in call.get("kwargs", {}).items()}
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
) -> Iterator[tuple[RecordedBinding | None, RecordedBinding | None, str]]:
    """(init binding or None, call binding, '') per record; (None, None, why) when unusable.

    For a method, a record without constructor arguments gives init None: the caller finds a
    constructor another way.
    """
    for text in recorded:
        try:
            record = json.loads(text)
            call = binding(call_signature, record)
            init = None
            if init_signature is not None and record.get("init"):
                init = binding(init_signature, record["init"])
        except NotRebuildable as exc:
            yield None, None, str(exc)
            continue
        except (ValueError, TypeError, KeyError, AttributeError) as exc:
            yield None, None, f"an unreadable record ({type(exc).__name__}: {exc})"
            continue
        yield init, call, ""
