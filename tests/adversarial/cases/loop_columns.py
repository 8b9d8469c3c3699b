"""Loops over the columns of a matrix via its transpose."""

import jax
import jax.numpy as jnp


@jax.jit
def column_norms_sq(X):
    acc = 0.0
    for col in X.T:
        acc = acc + col * col
    return acc


@jax.jit
def gram_diag(X):
    diag = []
    for col in X.T:
        diag.append(jnp.dot(col, col))
    return jnp.array(diag)
