"""Printing dicts and tuples of traced values."""

import jax
import jax.numpy as jnp


@jax.jit
def metrics(pred, target):
    loss = jnp.mean((pred - target) ** 2)
    acc = jnp.mean(jnp.sign(pred) == jnp.sign(target))
    print({"loss": loss, "acc": acc})
    return loss


@jax.jit
def pair(a, b):
    print((a.sum(), b.sum()))
    return a.sum() + b.sum()


@jax.jit
def listing(x):
    print("first two:", [x[0], x[1]])
    return x[:2]
