"""Printing built by string concatenation and str()."""

import jax
import jax.numpy as jnp


@jax.jit
def evaluate(pred, target):
    err = jnp.mean(jnp.abs(pred - target))
    print("mean abs error: " + str(err))
    return err


@jax.jit
def describe(x):
    print("min " + str(jnp.min(x)) + " max " + str(jnp.max(x)))
    return x - jnp.min(x)


@jax.jit
def tagged(x, tag_value):
    print("value:", str(x.sum()), "tag", tag_value)
    return x * tag_value
