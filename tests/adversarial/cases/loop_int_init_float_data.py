"""Accumulators started from strongly typed integers."""

import jax
import jax.numpy as jnp


@jax.jit
def int_start_sum(x):
    total = jnp.int32(0)
    for v in x:
        total = total + v
    return total


@jax.jit
def positive_count(x):
    n = jnp.int32(0)
    for v in x:
        n = n + (v > 0)
    return n


@jax.jit
def int8_accumulate(x):
    acc = jnp.zeros((), jnp.int8)
    for i in range(x.shape[0]):
        acc = acc + x[i]
    return acc
