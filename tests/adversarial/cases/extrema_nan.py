"""Hinge losses and clipping with Python's max/min on traced scalars (JAX102).

Python's `max(a, b)` keeps `a` when a NaN makes `b > a` false; `jnp.maximum` returns NaN."""

import jax
import jax.numpy as jnp


@jax.jit
def hinge(margin, score):
    return max(margin - score, 0.0)


@jax.jit
def clip_ratio(ratio, epsilon):
    return min(ratio, 1.0 + epsilon)


@jax.jit
def floor_at(x, lo):
    return max(x, lo) * 2.0


@jax.jit
def int_cap(count, cap):
    return min(count, cap) + jnp.int32(1)
