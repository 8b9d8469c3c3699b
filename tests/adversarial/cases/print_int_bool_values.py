"""Printing integer counters, booleans and uint8 pixels."""

import jax
import jax.numpy as jnp


@jax.jit
def count_positive(x):
    n = jnp.sum(x > 0)
    print("positive:", n, "any:", jnp.any(x > 0))
    return n


@jax.jit
def pixel_info(img):
    print(f"max pixel {img.max()} mean {img.mean():.2f}")
    return img.max()


@jax.jit
def flags(mask):
    print("all", jnp.all(mask), "count", mask.sum())
    return mask
