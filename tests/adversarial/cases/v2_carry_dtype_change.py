"""Accumulators whose dtype changes in the first step, or stays narrow on purpose.

Traps for a loop → scan rewrite:
- `weighted_hits` starts two counters as the Python int 0: one becomes float (`w * x[i]`),
  the other an int32 array counting booleans (`hits + (x[i] > 0)`);
- `decayed_peak` starts from a STRONGLY typed `jnp.int32(0)` that `* decay` makes float;
- `narrow_sum` starts an int8 accumulator: int32 or uint8 data widens it (never narrow it);
- `nan_mean` counts the non-NaN entries with a boolean mask.
"""

import jax
import jax.numpy as jnp


@jax.jit
def weighted_hits(x, w):
    total = 0
    hits = 0
    for i in range(x.shape[0]):
        total = total + w * x[i]
        hits = hits + (x[i] > 0)
    return total, hits


@jax.jit
def decayed_peak(x: jax.Array, decay):
    best = jnp.int32(0)
    for row in x:
        best = jnp.maximum(best * decay, row)
    return best


@jax.jit
def narrow_sum(x: jax.Array):
    acc = jnp.zeros((), jnp.int8)
    for v in x:
        acc = acc + v
    return acc


@jax.jit
def nan_mean(x: jax.Array):
    total = 0.0
    count = 0
    for v in x:
        ok = ~jnp.isnan(v)
        total = total + jnp.where(ok, v, 0.0)
        count = count + ok
    return total / count
