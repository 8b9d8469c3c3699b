"""Bisection for the quantile of a logistic distribution, with tunable brackets."""

import jax
import jax.numpy as jnp


@jax.jit
def logistic_quantile(p, lo=-20.0, hi=20.0, tol=1e-5):
    while hi - lo > tol:
        mid = (lo + hi) / 2
        below = jax.nn.sigmoid(mid) < p
        lo = jnp.where(below, mid, lo)
        hi = jnp.where(below, hi, mid)
    return (lo + hi) / 2
