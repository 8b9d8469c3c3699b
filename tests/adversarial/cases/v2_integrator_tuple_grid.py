"""RK4 / RK2 integration of an oscillator whose state is a plain tuple `(x, v)`.

Traps for a loop → scan rewrite:
- `rk4_traj` appends the TUPLE `(x, v)` each step and calls `jnp.array(traj)`: for a list of
  pairs that is an array `[T, 2, ...]`, while a scan stacks each part on its own (`[T, ...]`
  twice) — `jnp.array` of that pair gives `[2, T, ...]`;
- the step sizes come from `dts = jnp.diff(ts)` (an array made in the function) or from two rows of
  the grid (`ts[i] - ts[i - 1]` over `range(1, len(ts))`);
- the state may start as Python floats, an integer position, or a LIST `[x, v]` that the first
  step turns into a tuple (a scan carry must keep its pytree structure).
"""

import jax
import jax.numpy as jnp


def deriv(x, v, omega):
    return v, -(omega**2) * x


@jax.jit
def rk4_traj(state, ts, omega):
    x, v = state
    dts = jnp.diff(ts)
    traj = []
    for dt in dts:
        k1x, k1v = deriv(x, v, omega)
        k2x, k2v = deriv(x + 0.5 * dt * k1x, v + 0.5 * dt * k1v, omega)
        k3x, k3v = deriv(x + 0.5 * dt * k2x, v + 0.5 * dt * k2v, omega)
        k4x, k4v = deriv(x + dt * k3x, v + dt * k3v, omega)
        x = x + dt / 6.0 * (k1x + 2 * k2x + 2 * k3x + k4x)
        v = v + dt / 6.0 * (k1v + 2 * k2v + 2 * k3v + k4v)
        traj.append((x, v))
    return (x, v), jnp.array(traj)


def rk2_step(state, dt, omega):
    x, v = state
    kx, kv = deriv(x, v, omega)
    mx, mv = deriv(x + 0.5 * dt * kx, v + 0.5 * dt * kv, omega)
    return x + dt * mx, v + dt * mv


@jax.jit
def rk2_positions(state, ts: jax.Array, omega):
    xs = []
    for i in range(1, len(ts)):
        state = rk2_step(state, ts[i] - ts[i - 1], omega)
        xs.append(state[0])
    return state, jnp.stack(xs)
