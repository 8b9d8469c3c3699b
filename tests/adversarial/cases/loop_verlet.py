"""Velocity-Verlet integration of a spring with per-step time steps."""

import jax
import jax.numpy as jnp


def _force(pos, k):
    return -k * pos


@jax.jit
def integrate(pos, vel, dts, k):
    traj = []
    for dt in dts:
        acc = _force(pos, k)
        pos = pos + vel * dt + 0.5 * acc * dt**2
        vel = vel + 0.5 * (acc + _force(pos, k)) * dt
        traj.append(pos)
    return jnp.stack(traj), vel


@jax.jit
def total_energy_drift(pos, vel, dts):
    energy = 0.0
    for i in range(dts.shape[0]):
        vel = vel - pos * dts[i]
        pos = pos + vel * dts[i]
        energy = energy + jnp.sum(vel**2 + pos**2) * dts[i]
    return energy
