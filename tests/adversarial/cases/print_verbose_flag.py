"""Logging guarded by a static verbose flag."""

from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnames=("verbose",))
def step(w, x, verbose=False):
    y = jnp.tanh(x @ w)
    if verbose:
        print("activations", y)
    return y


@partial(jax.jit, static_argnums=(1,))
def scaled(x, level):
    if level > 1:
        print("level", level, "x max", jnp.max(x))
    elif level == 1:
        print("x min", jnp.min(x))
    return x * level
