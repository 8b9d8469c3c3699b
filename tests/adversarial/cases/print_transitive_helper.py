"""A print in a helper only traced because jitted code calls it."""

import jax
import jax.numpy as jnp


def _check(name, value):
    print(name, "=", value)
    return value


def _norm(v):
    n = jnp.sqrt(jnp.sum(v * v))
    print("norm:", n)
    return n


@jax.jit
def normalize(v):
    return v / (_norm(v) + 1e-6)


@jax.jit
def checked_mean(x):
    return _check("mean", jnp.mean(x))
