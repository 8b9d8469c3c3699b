"""A line search that records every trial step: refused (the list grows each iteration)."""

import jax
import jax.numpy as jnp


@jax.jit
def backtracking(f_x, g, x, direction, t=1.0, beta=0.5):
    trials = []
    while jnp.sum((x + t * direction) ** 2) > f_x + 0.5 * t * jnp.dot(g, direction):
        trials.append(t)
        t = beta * t
    return t, len(trials)
