"""Prints mixing static values (shapes, Python constants) with traced values."""

from functools import partial

import jax
import jax.numpy as jnp


@jax.jit
def with_shape(x):
    print("shape", x.shape, "ndim", x.ndim, "mean", jnp.mean(x))
    return x


@partial(jax.jit, static_argnames=("lr",))
def sgd(w, g, lr=0.1):
    print("lr", lr, "update norm", jnp.linalg.norm(lr * g))
    return w - lr * g


@jax.jit
def dtype_and_sum(x):
    print(f"dtype={x.dtype} size={x.size} sum={x.sum()}")
    return x.sum()
