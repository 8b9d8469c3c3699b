"""What the checked code returned, as the wire form of `jaxlint.verify.observed`: built in the
verification child, where JAX values live."""

from __future__ import annotations

import hashlib
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxlint.verify.observed import MAX_LEAVES, MAX_PRINTED, leaf_to_wire

_SCALARS = (bool, int, float, complex)
_NATIVE = frozenset(
    ["bool", "float16", "float32", "float64", "complex64", "complex128"]
    + [f"{sign}int{bits}" for sign in ("", "u") for bits in (8, 16, 32, 64)]
)


def output_to_wire(value: Any) -> dict[str, Any]:
    """A returned value: its pytree structure and its leaves as data."""
    leaves, tree = jax.tree_util.tree_flatten(value)
    if len(leaves) > MAX_LEAVES:
        raise ValueError(f"an output of more than {MAX_LEAVES} leaves")
    return {"structure": str(tree), "leaves": [_leaf_to_wire(leaf) for leaf in leaves]}


def printed_to_wire(text: str) -> str:
    return text[:MAX_PRINTED]


def _leaf_to_wire(value: Any) -> dict[str, Any]:
    if isinstance(value, jax.Array) and jnp.issubdtype(value.dtype, jax.dtypes.prng_key):
        value = jax.random.key_data(value)
    if isinstance(value, (jax.Array, np.ndarray, np.generic, *_SCALARS)):
        try:
            # through jnp, so a Python scalar gets the dtype JAX gives it (float → float32)
            array = np.asarray(jnp.asarray(value))
        except (TypeError, ValueError, OverflowError):  # an object array, a huge Python int
            array = None
        if array is not None and array.dtype != object:
            weak = isinstance(value, _SCALARS) or bool(getattr(value, "weak_type", False))
            name = array.dtype.name
            values = array if name in _NATIVE else array.astype(_widened(name))
            return leaf_to_wire(name, values, weak)
    kind = type(value)
    text = f"{kind.__module__}.{kind.__qualname__}:{value!r}"
    return {"digest": hashlib.sha256(text.encode("utf-8", "replace")).hexdigest()}


def _widened(name: str) -> type:
    """A NumPy dtype that holds every value of one of ml_dtypes' (`bfloat16`, `float8_e4m3fn`,
    `int4`) exactly."""
    if name.startswith("int"):
        return np.int8
    if name.startswith("uint"):
        return np.uint8
    return np.float32
