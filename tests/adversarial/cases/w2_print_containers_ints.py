"""Prints of integer counts, booleans, a dict of arrays and a tuple of arrays (JAX201).

The traps: an int32 count and a bool flag print as `3` / `True`, not `3.0` / `1`; a dict
argument and a tuple argument print with `repr` of each leaf (`{'acc': Array(0.5, ...)}`), as
`str` of a container does, not `str` of the leaves; a tuple *literal* of traced values prints
the same way; and a tuple mixing a static shape with traced values cannot be one field."""

import jax
import jax.numpy as jnp


@jax.jit
def class_counts(labels, n_valid):
    counts = jnp.bincount(labels, length=4)
    print("counts", counts, "valid", n_valid)
    print("any empty:", jnp.any(counts == 0), "all seen:", jnp.all(counts > 0))
    return counts


@jax.jit
def log_stats(stats):
    print("stats:", stats)
    return stats["loss"] * 2


@jax.jit
def log_pair(pair):
    a, b = pair
    print("pair", pair)
    print((a.sum(), b.max()))
    return a.sum() + b.max()


@jax.jit
def log_shape_and_sum(x):
    print("info", (x.shape, x.sum()))
    return x.sum()
