"""Functions jitted by assignment: an explicit-Euler heat equation and a leaky integrator."""

import jax
import jax.numpy as jnp


def heat_steps(u0, forcing, dt):
    u = u0
    for f in forcing:
        lap = jnp.roll(u, 1) - 2 * u + jnp.roll(u, -1)
        u = u + dt * lap + dt * f
    return u


def leaky_integrate(currents, tau):
    v = 0.0
    spikes = []
    for c in currents:
        v = v + (c - v) / tau
        spikes.append(v > 1.0)
    return jnp.array(spikes), v


heat_steps_jit = jax.jit(heat_steps)
leaky_integrate_jit = jax.jit(leaky_integrate)
