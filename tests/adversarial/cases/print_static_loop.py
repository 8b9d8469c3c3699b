"""Prints in a loop over a static range: several prints in one jitted call."""

import jax
import jax.numpy as jnp


@jax.jit
def per_layer(x, weights):
    for i in range(3):
        x = jnp.tanh(x @ weights[i])
        print("layer", i, "activation mean", jnp.mean(x))
    return x


@jax.jit
def before_after(x):
    print("before", x.sum())
    y = x * 2
    print("after", y.sum())
    z = y + 1
    print("final", z.sum())
    return z
