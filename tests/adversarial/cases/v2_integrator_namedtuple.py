"""Symplectic integrators whose state is a `typing.NamedTuple`, stepped over a time grid.

Traps for a loop → scan rewrite:
- the carry is a NamedTuple rebuilt every step (`State(q, p)`, `state._replace(...)`): the
  returned state must still be a `State`, not a plain tuple;
- the step size comes from two neighbouring rows of the grid (`ts[i + 1] - ts[i]`) over
  `range(ts.shape[0] - 1)`, or from `zip(ts[:-1], ts[1:])`;
- `verlet_positions` loops directly over an array of step sizes with the NamedTuple as carry;
- callers start from Python floats (`State(1.0, 0.0)`) or integer positions: the first step
  turns them into float arrays.
"""

from typing import NamedTuple

import jax
import jax.numpy as jnp


class State(NamedTuple):
    q: jax.Array
    p: jax.Array


def force(q, k):
    return -k * q


@jax.jit
def leapfrog(state: State, ts: jax.Array, k):
    traj = []
    for i in range(ts.shape[0] - 1):
        dt = ts[i + 1] - ts[i]
        p_half = state.p + 0.5 * dt * force(state.q, k)
        q = state.q + dt * p_half
        p = p_half + 0.5 * dt * force(q, k)
        state = State(q, p)
        traj.append(state.q)
    return state, jnp.stack(traj)


@jax.jit
def euler_energy(state: State, ts: jax.Array, k=1.0):
    energy = []
    for t0, t1 in zip(ts[:-1], ts[1:]):
        dt = t1 - t0
        state = state._replace(p=state.p + dt * force(state.q, k))
        state = state._replace(q=state.q + dt * state.p)
        energy.append(0.5 * jnp.sum(state.p**2) + 0.5 * k * jnp.sum(state.q**2))
    return state, jnp.array(energy)


@jax.jit
def verlet_positions(state: State, dts: jax.Array, k):
    qs = []
    for dt in dts:
        q_next = state.q + dt * state.p + 0.5 * dt**2 * force(state.q, k)
        p_next = state.p + 0.5 * dt * (force(state.q, k) + force(q_next, k))
        state = State(q_next, p_next)
        qs.append(state.q)
    return state, jnp.stack(qs)
