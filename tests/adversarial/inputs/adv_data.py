"""Deterministic inputs for the adversarial fix suite (seeds differ from jaxlint's own ladder)."""

import jax.numpy as jnp
import numpy as np


def arr(*shape, dtype="float32", seed=11, low=-3, high=4):
    """An array of `shape` and `dtype` drawn from a fixed seed."""
    rng = np.random.default_rng(seed + 97 * len(shape) + sum(shape))
    dt = jnp.dtype(dtype)
    if jnp.issubdtype(dt, jnp.bool_):
        values = rng.random(shape) > 0.4
    elif jnp.issubdtype(dt, jnp.unsignedinteger):
        values = rng.integers(0, max(high, 1) + 250 * (dt.itemsize == 1), shape)
    elif jnp.issubdtype(dt, jnp.integer):
        values = rng.integers(low, high, shape)
    elif jnp.issubdtype(dt, jnp.complexfloating):
        values = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    else:
        values = rng.standard_normal(shape) * 0.7 + 0.1
    return jnp.asarray(values, dtype=dt)


def u8(*shape, seed=5):
    """uint8 data spread over the whole range, so wrap-around matters."""
    rng = np.random.default_rng(seed + sum(shape))
    return jnp.asarray(rng.integers(0, 256, shape), dtype=jnp.uint8)
