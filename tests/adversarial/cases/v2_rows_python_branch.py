"""Per-row helpers that need CONCRETE row values (JAX305).

- `route` branches on `float(row.sum()) > 0`: vmap cannot trace that branch;
- `positive_mean` takes `row[row > 0]`, a data-dependent shape (fine row by row, not batched);
- `lookup_scaled` picks a Python list entry with `int(jnp.argmax(row))`.
Each works row by row in plain Python; the batched form cannot run at all.
"""

import jax.numpy as jnp

WEIGHTS = [0.5, 1.0, 2.0, 4.0]


def route(row):
    if float(row.sum()) > 0:
        return row / row.sum()
    return jnp.zeros_like(row)


def route_batch(X):
    X = jnp.asarray(X)
    return jnp.stack([route(r) for r in X])


def positive_mean(row):
    return jnp.mean(row[row > 0])


def positive_means(X):
    X = jnp.asarray(X)
    return jnp.array([positive_mean(r) for r in X])


def lookup_scaled(row):
    j = int(jnp.argmax(row))
    return row * WEIGHTS[j % len(WEIGHTS)]


def lookup_batch(X):
    X = jnp.asarray(X)
    return jnp.stack([lookup_scaled(r) for r in X])
