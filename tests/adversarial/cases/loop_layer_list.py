"""Residual blocks passed as a list of weight matrices, and as one stacked array.

`residual_list` is called with a list of matrices (a pytree jit accepts, whose matrices need not
share a shape): a scan over `blocks[:n]` would raise on it. `residual_stacked` says its blocks
are one array, and may be scanned."""

import jax
import jax.numpy as jnp


@jax.jit
def residual_list(blocks, h):
    n = len(blocks)
    for i in range(n):
        h = h + jnp.tanh(h @ blocks[i])[: h.shape[0]]
    return h


@jax.jit
def residual_stacked(blocks: jax.Array, h):
    for i in range(blocks.shape[0]):
        h = h + jnp.tanh(h @ blocks[i])
    return h
