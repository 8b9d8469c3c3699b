"""Counting and combining boolean masks."""

import jax
import jax.numpy as jnp


@jax.jit
def count_true(mask):
    count = 0
    for m in mask:
        count = count + m
    return count


@jax.jit
def any_and_all(mask):
    hit = False
    every = True
    for m in mask:
        hit = hit | m
        every = every & m
    return hit, every


@jax.jit
def masked_mean(x, mask):
    num = 0.0
    den = 0
    for i in range(x.shape[0]):
        num = num + jnp.where(mask[i], x[i], 0.0)
        den = den + mask[i].astype(jnp.int32)
    return num / jnp.maximum(den, 1)
