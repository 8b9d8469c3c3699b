"""Accumulators that are dicts, zeros_like of a row, and |complex| of data."""

import jax
import jax.numpy as jnp


@jax.jit
def running_stats(x):
    state = {"total": 0.0, "count": 0}
    for v in x:
        state = {"total": state["total"] + v, "count": state["count"] + 1}
    return state


@jax.jit
def sum_rows_like(X):
    acc = jnp.zeros_like(X[0])
    for i in range(X.shape[0]):
        acc = acc + X[i]
    return acc


@jax.jit
def total_magnitude(z):
    acc = 0.0
    for v in z:
        acc = acc + jnp.abs(v)
    return acc


@jax.jit
def int8_squares(x):
    total = 0
    for v in x:
        total += v * v
    return total
