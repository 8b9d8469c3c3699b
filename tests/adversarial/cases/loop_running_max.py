"""Running maxima and minima, including over integer and bfloat16 data."""

import jax
import jax.numpy as jnp


@jax.jit
def running_max(x):
    best = -jnp.inf
    history = []
    for v in x:
        best = jnp.maximum(best, v)
        history.append(best)
    return jnp.stack(history)


@jax.jit
def peak_to_peak(x):
    hi = jnp.array(-1e9)
    lo = jnp.array(1e9)
    for i in range(x.shape[0]):
        hi = jnp.maximum(hi, x[i])
        lo = jnp.minimum(lo, x[i])
    return hi - lo
