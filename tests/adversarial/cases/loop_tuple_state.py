"""A symplectic step whose state is a plain tuple `(q, p)` unpacked in the body."""

import jax
import jax.numpy as jnp


@jax.jit
def oscillate(state, dt):
    q, p = state
    ts = jnp.arange(12)
    for _ in range(ts.shape[0]):
        p = p - 0.5 * dt * q
        q = q + dt * p
        p = p - 0.5 * dt * q
    return q, p
