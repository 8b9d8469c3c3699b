"""How to make one example argument: the value kinds verification builds inputs from."""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any, Literal

import jax
import jax.numpy as jnp
import numpy as np

Kind = Literal[
    "array", "float", "int", "bool", "key", "dict", "value", "struct", "tuple", "tree", "pickled"
]


@dataclass(frozen=True)
class ArgKind:
    """How to make one argument: an array of a shape and dtype, a Python scalar, a PRNG key, or
    a container built field by field (a dataclass, NamedTuple or pytree class, a tuple, a dict)."""

    kind: Kind
    shape: tuple[int, ...] = ()
    dtype: str = "float32"
    keys: tuple[str, ...] = ()  # a dict of arrays with these keys (`batch["x"]` in the body)
    # kind "value": this Python value (a default or a call site's literal); kind "array": the
    # recorded contents (bytes, C order) of a concrete argument `--examples-from` saw, or None
    value: Any = None
    # kinds "struct", "tuple" and per-key "dict": each field (key, index) and its kind
    items: tuple[tuple[str, ArgKind], ...] = ()
    # kind "struct": the class called with the fields as keywords; "tuple": list; "tree": the
    # PyTreeDef the leaves (items) are unflattened with; "pickled": the loader of `value` (bytes)
    cls: Any = None
    origin: str = ""  # where the kind comes from when not the ladder: "call at line 12"

    def describe(self) -> str:
        """Short text like `float32[5,3]`, `float`, `{x, y: float32[7]}` or `P(w: float32[3])`."""
        text = self._describe()
        return f"{text} ({self.origin})" if self.origin else text

    def _describe(self) -> str:
        if self.kind == "array":
            return f"{self.dtype}[{','.join(map(str, self.shape))}]"
        if self.kind == "dict" and self.items:
            described = [k.describe() for _, k in self.items]
            if len(set(described)) == 1:  # the same kind for every key: `{x, y: float32[7]}`
                return f"{{{', '.join(name for name, _ in self.items)}: {described[0]}}}"
            pairs = zip(self.items, described, strict=True)
            return "{" + ", ".join(f"{name}: {text}" for (name, _), text in pairs) + "}"
        if self.kind == "dict":
            return f"{{{', '.join(self.keys)}: {self.dtype}[{','.join(map(str, self.shape))}]}}"
        if self.kind == "struct":
            fields_ = ", ".join(f"{name}: {k.describe()}" for name, k in self.items)
            return f"{getattr(self.cls, '__name__', 'object')}({fields_})"
        if self.kind == "tuple":
            inner = ", ".join(k.describe() for _, k in self.items)
            if self.cls is list:
                return f"[{inner}]"
            return f"({inner},)" if len(self.items) == 1 else f"({inner})"
        if self.kind == "tree":
            leaves = ", ".join(k.describe() for _, k in self.items)
            return f"{_node_name(self.cls)}({leaves})"
        if self.kind == "pickled":
            return "a recorded object"
        if self.kind == "key" and self.dtype.startswith("key<"):
            return f"{self.dtype}[{','.join(map(str, self.shape))}]"
        if self.kind == "value":
            shape, dtype = getattr(self.value, "shape", None), getattr(self.value, "dtype", None)
            if isinstance(shape, tuple) and dtype is not None:  # a call site's PRNG key
                return f"{dtype}[{','.join(map(str, shape))}]"
            return repr(self.value)
        return self.kind

    def _mapped(self, transform: Any) -> ArgKind:
        items = tuple((name, transform(k)) for name, k in self.items)
        return self if items == self.items else replace(self, items=items)

    def resized(self, old: int, new: int) -> ArgKind:
        """The same kind with every axis of size `old` made `new` (named dims stay consistent)."""
        if self.items:
            return self._mapped(lambda k: k.resized(old, new))
        if self.kind not in ("array", "dict") or old not in self.shape:
            return self
        shape = tuple(new if d == old else d for d in self.shape)
        return replace(self, shape=shape, value=None)

    def retyped(self, dtype: str) -> ArgKind:
        """The same kind with float32 data made `dtype`."""
        if self.items:
            return self._mapped(lambda k: k.retyped(dtype))
        if self.kind not in ("array", "dict") or self.dtype != "float32":
            return self
        return replace(self, dtype=dtype, value=None)

    def shapes(self) -> Iterator[tuple[int, ...]]:
        """The shapes of the arrays this kind makes (inside containers too)."""
        if self.items:
            for _, k in self.items:
                yield from k.shapes()
        elif self.kind in ("array", "dict"):
            yield self.shape

    def has_float32(self) -> bool:
        """Does it make float32 data (so dtype variants change something)?"""
        if self.items:
            return any(k.has_float32() for _, k in self.items)
        return self.kind in ("array", "dict") and self.dtype == "float32"

    def profile(self) -> tuple[Any, ...]:
        """Kind, rank and dtype (per field for containers): another profile is another signature."""
        if self.items:
            label = getattr(self.cls, "__qualname__", "")
            return (self.kind, label, tuple((n, k.profile()) for n, k in self.items))
        return (self.kind, len(self.shape), self.dtype)

    def make(self, set_index: int, seed: int) -> Any:
        """The argument value for an input set: the same every run."""
        if self.kind == "value":
            return self.value
        if self.kind == "float":
            return _FLOATS[set_index % len(_FLOATS)]
        if self.kind == "int":
            return _INTS[set_index % len(_INTS)]
        if self.kind == "bool":
            return set_index % 2 == 0
        if self.kind == "key" and self.dtype.startswith("key<"):  # a typed key array
            key = jax.random.key(seed, impl=_key_impl(self.dtype))
            count = int(np.prod(self.shape))
            return jax.random.split(key, count).reshape(self.shape) if self.shape else key
        if self.kind == "key":
            return jax.random.PRNGKey(seed)
        if self.kind == "pickled":
            return self.cls(self.value)
        if self.kind == "tree":
            leaves = [k.make(set_index, seed + 7 * i + 1) for i, (_, k) in enumerate(self.items)]
            return jax.tree_util.tree_unflatten(self.cls, leaves)
        if self.items:
            fields = {n: k.make(set_index, seed + 7 * i + 1) for i, (n, k) in enumerate(self.items)}
            if self.kind == "struct":
                return self.cls(**fields)
            if self.kind == "tuple":
                return (self.cls or tuple)(fields.values())
            return fields
        if self.kind == "struct":
            return self.cls()
        if self.kind == "tuple":
            return (self.cls or tuple)()
        if self.kind == "dict":
            leaf = ArgKind("array", self.shape, self.dtype)
            return {key: leaf.make(set_index, seed + 7 * n) for n, key in enumerate(self.keys)}
        rng = np.random.RandomState(seed)
        dtype = jnp.dtype(self.dtype)
        if self.value is not None:
            return jax.device_put(_near(self.value, dtype, self.shape, set_index, rng))
        values: np.ndarray[Any, Any]  # drawn in float64 or int, cast to `dtype` below
        if jnp.issubdtype(dtype, jnp.bool_):
            values = rng.rand(*self.shape) > 0.5
        elif jnp.issubdtype(dtype, jnp.integer):
            low = 0 if jnp.issubdtype(dtype, jnp.unsignedinteger) else -4
            values = rng.randint(low, 5, self.shape)
        elif jnp.issubdtype(dtype, jnp.complexfloating):
            values = rng.standard_normal(self.shape) + 1j * rng.standard_normal(self.shape)
        else:
            values = rng.standard_normal(self.shape)
        return jax.device_put(_cast_on_host(values, dtype))


def _cast_on_host(values: np.ndarray[Any, Any], dtype: Any) -> np.ndarray[Any, Any]:
    """`values` in `dtype`, cast by NumPy as JAX would cast them (float64 → float32 first where
    x64 is off, then to 16-bit floats, each rounding to nearest even): the same bits as
    `jnp.asarray(values, dtype)`, which casts on the device and so compiles a conversion for
    every shape and dtype an input set has (201 XLA programs over 42 adversarial cases);
    `jax.device_put` of the cast copy compiles nothing."""
    canonical = values.astype(jax.dtypes.canonicalize_dtype(values.dtype))
    return canonical.astype(dtype)


_KEY_IMPLS = ("threefry2x32", "rbg", "unsafe_rbg", "philox4x32", "threefry4x32")


@functools.cache
def _key_impl(dtype: str) -> str:
    """The PRNG implementation a typed key's dtype names (`key<fry>` → `threefry2x32`)."""
    for impl in _KEY_IMPLS:
        with contextlib.suppress(Exception):
            if str(jax.random.key(0, impl=impl).dtype) == dtype:
                return impl
    raise ValueError(f"no PRNG implementation has keys of dtype {dtype}")


def _near(data: bytes, dtype: Any, shape: tuple[int, ...], set_index: int, rng: Any) -> Any:
    """Recorded contents: as recorded in the first input set; floats within 1% in the others
    (a time grid with even steps stays sorted), integers and bools as recorded. Values the
    original rejects (a matrix that is no longer symmetric) only cost that input set."""
    values = np.frombuffer(data, dtype=dtype).reshape(shape).copy()
    if set_index and jnp.issubdtype(dtype, jnp.inexact):
        values = values * (1 + 0.01 * rng.standard_normal(shape)).astype(values.real.dtype)
    return values


def _node_name(treedef: Any) -> str:
    """The class name of a tree structure's root node (`State`), or `tree`."""
    node_data = getattr(treedef, "node_data", None)
    data = node_data() if callable(node_data) else None
    cls = data[0] if isinstance(data, tuple) and data else None
    return getattr(cls, "__name__", "tree")


_FLOATS = (2.0, 0.5, -1.25, 1.5, 3.0)
_INTS = (3, 2, 4, 5, 1)


def array_kind(*shape: int) -> ArgKind:
    return ArgKind("array", shape)


FLOAT, INT, BOOL, KEY = ArgKind("float"), ArgKind("int"), ArgKind("bool"), ArgKind("key")
