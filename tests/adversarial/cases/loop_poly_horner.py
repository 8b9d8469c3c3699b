"""Evaluate a polynomial with Horner's rule: the carry takes the shape of the points."""

import jax
import jax.numpy as jnp


@jax.jit
def horner(coeffs, x):
    y = 0.0
    for c in coeffs:
        y = y * x + c
    return y


@jax.jit
def chebyshev_terms(coeffs, x):
    t_prev = jnp.ones_like(x)
    t_cur = x
    total = coeffs[0] * t_prev
    for c in coeffs[1:]:
        total = total + c * t_cur
        t_prev, t_cur = t_cur, 2 * x * t_cur - t_prev
    return total
