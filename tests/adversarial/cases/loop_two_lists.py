"""Running minimum and maximum, collected in two lists."""

import jax
import jax.numpy as jnp


@jax.jit
def running_bounds(x):
    lo = jnp.inf
    hi = -jnp.inf
    lows = []
    highs = []
    for v in x:
        lo = jnp.minimum(lo, v)
        hi = jnp.maximum(hi, v)
        lows.append(lo)
        highs.append(hi)
    return jnp.stack(lows), jnp.array(highs)


@jax.jit
def prefix_sums_and_squares(x):
    s = 0.0
    sums = []
    squares = []
    for i in range(x.shape[0]):
        s = s + x[i]
        sums.append(s)
        squares.append(x[i] ** 2)
    return jnp.stack(sums), jnp.stack(squares)
