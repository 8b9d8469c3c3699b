"""Dominant eigenvector by power iteration, stopping when the vector settles."""

import jax
import jax.numpy as jnp


@jax.jit
def power_iteration(A, v, tol=1e-5, max_steps=500):
    v = v / jnp.linalg.norm(v)
    delta = jnp.inf
    steps = 0
    while (delta > tol) & (steps < max_steps):
        w = A @ v
        w = w / jnp.linalg.norm(w)
        delta = jnp.linalg.norm(w - v)
        v = w
        steps += 1
    return v, v @ A @ v, steps
