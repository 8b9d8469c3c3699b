"""Cumulative product of complex phases, e.g. a rotation accumulated step by step."""

import jax
import jax.numpy as jnp


@jax.jit
def cumulative_product(z):
    p = 1.0
    out = []
    for v in z:
        p = p * v
        out.append(p)
    return jnp.stack(out)


@jax.jit
def accumulated_phase(thetas):
    phase = 1.0 + 0.0j
    reals = []
    for theta in thetas:
        phase = phase * jnp.exp(1j * theta)
        reals.append(phase.real)
    return jnp.array(reals), phase
