"""Collatz stopping times: integer state, integer counter, a traced test."""

import jax
import jax.numpy as jnp


@jax.jit
def stopping_time(n):
    n = jnp.asarray(n, jnp.int32)
    steps = 0
    while n > 1:
        n = jnp.where(n % 2 == 0, n // 2, 3 * n + 1)
        steps = steps + 1
    return steps
