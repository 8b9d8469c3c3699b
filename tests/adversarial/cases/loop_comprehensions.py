"""Comprehensions and builtin sum over traced arrays."""

import jax
import jax.numpy as jnp


@jax.jit
def sum_of_squares(x):
    return sum(v**2 for v in x)


@jax.jit
def row_norms(X):
    return jnp.stack([jnp.sqrt(jnp.sum(r * r)) for r in X])


@jax.jit
def builtin_sum_rows(X):
    return sum(X)
