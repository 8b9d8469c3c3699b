"""A damped fixed-point iteration whose last step is reported only in debug mode."""

from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnames=("debug",))
def damped_cos_fixed_point(x, damping=0.5, tol=1e-6, debug=False):
    last_step = jnp.zeros_like(x)
    gap = jnp.abs(jnp.cos(x) - x)
    while jnp.max(gap) > tol:
        step = damping * (jnp.cos(x) - x)
        x = x + step
        last_step = step
        gap = jnp.abs(jnp.cos(x) - x)
    if debug:
        return x, last_step
    return x
