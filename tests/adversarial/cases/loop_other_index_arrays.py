"""The loop ranges over one array and indexes others, with multi-axis indexing."""

import jax
import jax.numpy as jnp


@jax.jit
def weighted_first_column(X, w):
    acc = 0.0
    for i in range(X.shape[0]):
        acc = acc + w[i] * X[i, 0]
    return acc


@jax.jit
def nested_index(X):
    acc = 0.0
    for i in range(len(X)):
        acc = acc + X[i][1] - X[i][0]
    return acc


@jax.jit
def pair_products(a, b):
    out = []
    for i in range(a.shape[0]):
        out.append(a[i] * b[i])
    return jnp.stack(out)
