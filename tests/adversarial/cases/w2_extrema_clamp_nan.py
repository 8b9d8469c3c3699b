"""Nested and three-argument builtin max/min in numeric kernels (JAX102).

The traps: `clamp` chains a `max` into a `min` (the second compares the first's result, which
is `lo` itself when a NaN `x` loses, and `x` when a NaN `lo` does); `max(mag - lam, 0.0)` and
`min(1.0, max_norm / norm)` meet NaN and inf (a zero gradient makes the ratio inf, a NaN
gradient makes it NaN: Python's `min` keeps `1.0` then); `max(a, b, c)` has three operands;
and a single-element array beside a 0-d bound comes back with the winner's own shape."""

import jax
import jax.numpy as jnp


@jax.jit
def clamp(x, lo, hi):
    above = max(x, lo)
    return min(above, hi)


@jax.jit
def soft_threshold(x, lam):
    mag = jnp.abs(x)
    shrunk = max(mag - lam, 0.0)
    return jnp.sign(x) * shrunk


@jax.jit
def grad_clip(g, max_norm):
    norm = jnp.sqrt(jnp.sum(g * g))
    factor = min(1.0, max_norm / norm)
    return g * factor


@jax.jit
def best_of_three(a, b, c):
    return max(a, b, c)


@jax.jit
def floor_last(xs, lo):
    last = xs[-1:]
    return max(last, lo)
