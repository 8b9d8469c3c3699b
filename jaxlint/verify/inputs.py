"""Example inputs: argument kinds from annotations or a ladder of candidates, fixed seeds."""

from __future__ import annotations

import ast
import inspect
import itertools
import linecache
import math
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any, Literal

import jax
import jax.numpy as jnp
import numpy as np

from jaxlint.verify.namespace import last_name

Kind = Literal["array", "float", "int", "bool", "key", "dict", "value"]


@dataclass(frozen=True)
class ArgKind:
    """How to make one argument: an array of a shape and dtype, a Python scalar, or a PRNG key."""

    kind: Kind
    shape: tuple[int, ...] = ()
    dtype: str = "float32"
    keys: tuple[str, ...] = ()  # a dict of arrays with these keys (`batch["x"]` in the body)
    value: Any = None  # kind "value": this Python value (a default or a call site's literal)

    def describe(self) -> str:
        """Short text like `float32[5,3]`, `float` or `{x, y: float32[7]}`."""
        if self.kind == "array":
            return f"{self.dtype}[{','.join(map(str, self.shape))}]"
        if self.kind == "dict":
            return f"{{{', '.join(self.keys)}: {self.dtype}[{','.join(map(str, self.shape))}]}}"
        if self.kind == "value":
            return repr(self.value)
        return self.kind

    def resized(self, old: int, new: int) -> ArgKind:
        """The same kind with every axis of size `old` made `new` (named dims stay consistent)."""
        if self.kind not in ("array", "dict") or old not in self.shape:
            return self
        return replace(self, shape=tuple(new if d == old else d for d in self.shape))

    def retyped(self, dtype: str) -> ArgKind:
        """The same kind with float32 data made `dtype`."""
        if self.kind not in ("array", "dict") or self.dtype != "float32":
            return self
        return replace(self, dtype=dtype)

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
        if self.kind == "key":
            return jax.random.PRNGKey(seed)
        if self.kind == "dict":
            leaf = ArgKind("array", self.shape, self.dtype)
            return {key: leaf.make(set_index, seed + 7 * n) for n, key in enumerate(self.keys)}
        rng = np.random.RandomState(seed)
        dtype = jnp.dtype(self.dtype)
        if jnp.issubdtype(dtype, jnp.bool_):
            values = rng.rand(*self.shape) > 0.5
        elif jnp.issubdtype(dtype, jnp.integer):
            low = 0 if jnp.issubdtype(dtype, jnp.unsignedinteger) else -4
            values = rng.randint(low, 5, self.shape)
        elif jnp.issubdtype(dtype, jnp.complexfloating):
            values = rng.standard_normal(self.shape) + 1j * rng.standard_normal(self.shape)
        else:
            values = rng.standard_normal(self.shape)
        return jnp.asarray(values, dtype=dtype)


_FLOATS = (2.0, 0.5, -1.25, 1.5, 3.0)
_INTS = (3, 2, 4, 5, 1)


def _array(*shape: int) -> ArgKind:
    return ArgKind("array", shape)


FLOAT, INT, BOOL, KEY = ArgKind("float"), ArgKind("int"), ArgKind("bool"), ArgKind("key")
# Axis sizes are named dims, n = 7, d = 3, k = 4, the same in every parameter: `X[i] @ w - y[i]`
# finds X: (n, d), y: (n,), w: (d,) as well as the square w: (d, d).
ARRAY_LADDER = (_array(7), _array(7, 3), _array(3), _array(3, 3), _array(7, 3, 4), _array(4))
CALL_LADDER = ARRAY_LADDER + (FLOAT, INT, BOOL)
INIT_LADDER = (FLOAT, _array(7), INT, BOOL, _array(3), _array(3, 3))
# Data types tried on top of float32 where the original accepts them.
VARIANT_DTYPES = ("int32", "bool", "bfloat16", "float16", "complex64")
LONG_AXIS = 19
_KEY_NAMES = frozenset({"key", "rng", "prng", "prng_key", "rng_key", "subkey"})

_ARRAY_TYPES = frozenset({"Array", "ndarray", "ArrayLike", "array", "asarray", "Tensor"})
_JAXTYPING_DTYPES = {
    "Float": "float32",
    "Float16": "float16",
    "BFloat16": "bfloat16",
    "Float32": "float32",
    "Float64": "float64",
    "Inexact": "float32",
    "Real": "float32",
    "Num": "float32",
    "Shaped": "float32",
    "Int": "int32",
    "Integer": "int32",
    "Int8": "int8",
    "Int16": "int16",
    "Int32": "int32",
    "Int64": "int64",
    "UInt": "uint32",
    "UInt8": "uint8",
    "UInt16": "uint16",
    "UInt32": "uint32",
    "UInt64": "uint64",
    "Bool": "bool",
    "Complex": "complex64",
    "Complex64": "complex64",
    "Complex128": "complex128",
}
_DIM_SIZES = (7, 3, 5, 4, 6, 2, 8, 9)


@dataclass
class DimTable:
    """Sizes for named jaxtyping dimensions, shared by every parameter of one check."""

    sizes: dict[str, int] = field(default_factory=dict)

    def size(self, name: str) -> int:
        """The size of dimension `name`, picking the next distinct size on first use."""
        if name not in self.sizes:
            self.sizes[name] = _DIM_SIZES[len(self.sizes) % len(_DIM_SIZES)]
        return self.sizes[name]


@dataclass(frozen=True)
class Param:
    """One parameter to fill: its candidate kinds, or none to leave it at its default."""

    name: str
    keyword: bool
    candidates: tuple[ArgKind, ...]


@dataclass(frozen=True)
class Binding:
    """A chosen kind for each parameter (None: default); makes fresh arguments per input set."""

    params: tuple[Param, ...]
    kinds: tuple[ArgKind | None, ...]
    salt: int

    def make(self, set_index: int) -> tuple[tuple[Any, ...], dict[str, Any]]:
        """Fresh (args, kwargs) for an input set; fresh so donated or mutated inputs do not leak."""
        args: list[Any] = []
        kwargs: dict[str, Any] = {}
        for position, (param, kind) in enumerate(zip(self.params, self.kinds, strict=True)):
            if kind is None:
                continue
            value = kind.make(set_index, 1000 * set_index + 37 * position + self.salt)
            if param.keyword or kind.kind == "value":  # earlier defaults may be left out
                kwargs[param.name] = value
            else:
                args.append(value)
        return tuple(args), kwargs

    def sizes(self) -> list[int]:
        """The distinct axis sizes of the array arguments, in order of appearance."""
        found: list[int] = []
        for kind in self.kinds:
            if kind is not None and kind.kind in ("array", "dict"):
                found.extend(d for d in kind.shape if d not in found)
        return found

    def leading_sizes(self) -> set[int]:
        """Sizes of the first axis of array arguments (the axes loops run over)."""
        return {
            k.shape[0]
            for k in self.kinds
            if k is not None and k.kind in ("array", "dict") and k.shape
        }

    def has_float32_data(self) -> bool:
        """Does any array argument hold float32 data (so dtype variants change something)?"""
        return any(k is not None and k.retyped("int32") != k for k in self.kinds)

    def resized(self, old: int, new: int) -> Binding:
        """Every axis of size `old` made `new`, in every array argument."""
        kinds = tuple(k.resized(old, new) if k else None for k in self.kinds)
        return replace(self, kinds=kinds)

    def retyped(self, dtype: str) -> Binding:
        """Float32 data made `dtype` in every array argument."""
        return replace(self, kinds=tuple(k.retyped(dtype) if k else None for k in self.kinds))

    def with_value(self, name: str, value: Any) -> Binding:
        """Parameter `name` (one left at its default) given `value` explicitly."""
        kinds = tuple(
            ArgKind("value", value=value) if p.name == name else k
            for p, k in zip(self.params, self.kinds, strict=True)
        )
        return replace(self, kinds=kinds)

    def profile(self) -> tuple[tuple[str, int, str], ...]:
        """Kind, rank and dtype per argument: signatures with another profile are worth trying."""
        return tuple(
            (k.kind, len(k.shape), k.dtype) if k else ("default", 0, "") for k in self.kinds
        )

    def defaulted(self) -> list[str]:
        """Parameters left at their defaults."""
        return [p.name for p, k in zip(self.params, self.kinds, strict=True) if k is None]

    def describe(self) -> str:
        """`x: float32[7], n: int` for messages."""
        pairs = zip(self.params, self.kinds, strict=True)
        return ", ".join(f"{p.name}: {k.describe()}" for p, k in pairs if k)


def parameters(
    signature: inspect.Signature,
    dims: DimTable,
    ladder: tuple[ArgKind, ...],
    keys: dict[str, tuple[str, ...]] | None = None,
) -> tuple[Param, ...]:
    """The parameters to fill, with candidate kinds from annotations or from `ladder`.

    A parameter the body subscripts with strings (`batch["x"]`, in `keys`) is tried as a dict of
    arrays first.
    """
    params: list[Param] = []
    for p in signature.parameters.values():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        keyword = p.kind == p.KEYWORD_ONLY
        if p.default is not p.empty:  # left at its default (positional ones after it have one too)
            params.append(Param(p.name, keyword, ()))
            continue
        kinds = kinds_from_annotation(annotation_text(p.annotation), dims)
        if kinds is None:
            kinds = (KEY,) + ladder if p.name in _KEY_NAMES else ladder
            if keys and p.name in keys:
                dicts = tuple(
                    ArgKind("dict", a.shape, a.dtype, keys[p.name]) for a in ARRAY_LADDER[:2]
                )
                kinds = dicts + kinds
        params.append(Param(p.name, keyword, kinds))
    return tuple(params)


def subscript_keys(function: object) -> dict[str, tuple[str, ...]]:
    """Parameter name → the string keys its module subscripts that name with (`batch["x"]`).

    The whole module is read, not only the function: `train_step(params, batch)` usually hands
    `batch` to a `loss_fn(params, batch)` that does the indexing.
    """
    try:
        names = set(inspect.signature(function).parameters)  # type: ignore[arg-type]
        code = function.__code__  # type: ignore[attr-defined]
        tree = ast.parse("".join(linecache.getlines(code.co_filename)))
    except (AttributeError, TypeError, SyntaxError, ValueError):
        return {}
    found: dict[str, list[str]] = {}
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Subscript)
            and isinstance(node.value, ast.Name)
            and node.value.id in names
            and isinstance(node.slice, ast.Constant)
            and isinstance(node.slice.value, str)
        ):
            keys = found.setdefault(node.value.id, [])
            if node.slice.value not in keys:
                keys.append(node.slice.value)
    return {name: tuple(keys) for name, keys in found.items()}


def call_site_values(function: object, name: str, skip_first: bool) -> dict[str, list[Any]]:
    """Parameter → the literal values its module's calls of `name(...)` pass for it.

    Static flags and modes (`normalize=True`, `mode="mean"`) are varied over these, so both
    branches a caller can take are verified. `skip_first` drops `self` for methods.
    """
    try:
        names = list(inspect.signature(function).parameters)  # type: ignore[arg-type]
        code = function.__code__  # type: ignore[attr-defined]
        tree = ast.parse("".join(linecache.getlines(code.co_filename)))
    except (AttributeError, TypeError, SyntaxError, ValueError):
        return {}
    if skip_first:
        names = names[1:]
    found: dict[str, list[Any]] = {}
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and last_name(node.func) == name):
            continue
        pairs = list(zip(names, node.args, strict=False))
        pairs += [(k.arg, k.value) for k in node.keywords if k.arg in names]
        for param, argument in pairs:
            if isinstance(argument, ast.Starred):
                break
            try:
                value = ast.literal_eval(argument)
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                continue
            values = found.setdefault(param, [])
            if value not in values:
                values.append(value)
    return found


def annotation_text(annotation: object) -> str | None:
    """An annotation as source text, whether it is a string or a runtime object."""
    if annotation is inspect.Parameter.empty:
        return None
    if isinstance(annotation, str):
        return annotation
    if isinstance(annotation, type) or inspect.isfunction(annotation):
        return annotation.__qualname__
    return repr(annotation)


def kinds_from_annotation(text: str | None, dims: DimTable) -> tuple[ArgKind, ...] | None:
    """Candidate kinds an annotation allows, or None when it says nothing usable."""
    if not text:
        return None
    try:
        node = ast.parse(text, mode="eval").body
    except SyntaxError:
        return None
    return _kinds_from_node(node, dims)


def _kinds_from_node(node: ast.expr, dims: DimTable) -> tuple[ArgKind, ...] | None:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):  # `X | None`
        return _kinds_from_node(node.left, dims) or _kinds_from_node(node.right, dims)
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return kinds_from_annotation(node.value, dims)
    if isinstance(node, ast.Subscript):
        head = last_name(node.value)
        if head in ("Optional", "Union"):
            options = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            for option in options:
                kinds = _kinds_from_node(option, dims)
                if kinds:
                    return kinds
            return None
        if head in _JAXTYPING_DTYPES or head in ("Key", "PRNGKeyArray"):
            return _jaxtyping_kind(head, node.slice, dims)
        return None
    name = last_name(node)
    if name == "float":
        return (FLOAT,)
    if name == "int":
        return (INT,)
    if name == "bool":
        return (BOOL,)
    if name in ("PRNGKeyArray", "KeyArray"):
        return (KEY,)
    if name in _ARRAY_TYPES:
        return ARRAY_LADDER
    return None


def _jaxtyping_kind(head: str, index: ast.expr, dims: DimTable) -> tuple[ArgKind, ...] | None:
    if head in ("Key", "PRNGKeyArray"):
        return (KEY,)
    parts = index.elts if isinstance(index, ast.Tuple) else [index]
    if len(parts) != 2 or not isinstance(parts[1], ast.Constant):
        return None
    shape = _shape_from_dims(str(parts[1].value), dims)
    return (ArgKind("array", shape, _JAXTYPING_DTYPES[head]),)


def _shape_from_dims(spec: str, dims: DimTable) -> tuple[int, ...]:
    shape: list[int] = []
    for token in spec.split():
        token = token.lstrip("#")
        if token == "..." or token.startswith("*"):
            continue  # variadic dimensions: none
        if token.isdigit():
            shape.append(int(token))
        elif token.isidentifier():
            shape.append(4 if token == "_" else dims.size(token))
        else:
            shape.append(4)  # an expression like `n+1`: any size
    return tuple(shape)


def candidate_bindings(params: tuple[Param, ...], salt: int, limit: int) -> Iterator[Binding]:
    """Up to `limit` kind combinations, simplest first (lowest total ladder rank)."""
    choices: list[list[ArgKind | None]] = [list(p.candidates) or [None] for p in params]
    # Keep the product small: several-parameter functions get shorter ladders.
    while math.prod(len(c) for c in choices) > 5000:
        longest = max(choices, key=len)
        longest.pop()
    ranked = sorted(
        itertools.product(*(range(len(c)) for c in choices)),
        key=lambda ranks: (sum(ranks), max(ranks, default=0), ranks),
    )
    for ranks in ranked[:limit]:
        kinds = tuple(c[r] for c, r in zip(choices, ranks, strict=True))
        yield Binding(params, kinds, salt)


MAX_VARIANTS = 16


def variants(
    plan: Any, defaults: dict[str, list[Any]]
) -> Iterator[tuple[str, Binding | None, Binding, bool]]:
    """Variations of an accepted signature: (label, init, call, has an empty axis).

    Every axis size made 1 and long, loop axes (leading ones) made empty; float32 data made
    each of VARIANT_DTYPES; each defaulted parameter given the other values callers pass.
    """
    init, call = plan.init, plan.call
    both = [b for b in (init, call) if b is not None]
    sizes = list(dict.fromkeys(d for b in both for d in b.sizes()))
    leading = set().union(*(b.leading_sizes() for b in both))

    def vary(transform: Any) -> tuple[Binding | None, Binding]:
        return (transform(init) if init is not None else None), transform(call)

    found: list[tuple[str, Binding | None, Binding, bool]] = []
    for size in sizes:
        for new in (0, 1, LONG_AXIS):
            if new == size or (new == 0 and size not in leading):
                continue
            varied = vary(lambda b, size=size, new=new: b.resized(size, new))
            found.append((f"axis {size}→{new}", *varied, new == 0))
    if any(b.has_float32_data() for b in both):
        for dtype in VARIANT_DTYPES:
            found.append((f"{dtype} data", *vary(lambda b, dtype=dtype: b.retyped(dtype)), False))
    for name, values in defaults.items():
        if name not in call.defaulted():
            continue
        for value in values:
            with_value = call.with_value(name, value)
            found.append((f"{name}={value!r}", init, with_value, False))
    yield from found[:MAX_VARIANTS]
