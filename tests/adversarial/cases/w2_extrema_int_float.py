"""Builtin max/min between traced values and Python numbers of another kind (JAX102).

The traps: Python's `max(a, b)` returns the winning operand untouched (`b` only when `b > a`),
so NaN on either side, `-0.0` ties and int/float mixes all have an exact answer a rewrite to
`jnp.maximum` / `jnp.minimum` gets wrong; `min(steps, limit)` of an int32 count and a float32
limit returns an int32 or a float32 depending on which wins; `max(floor, x)` has the Python
number first; `num / max(den, 1e-6)` guards a division where `den` may be NaN or -0.0."""

import jax


@jax.jit
def surplus(n_pos, n_neg):
    return max(n_pos - n_neg, 0)


@jax.jit
def safe_ratio(num, den):
    return num / max(den, 1e-6)


@jax.jit
def clip_steps(steps, limit):
    return min(steps, limit) * 2


@jax.jit
def lower_bound(x, floor):
    return max(floor, x) * x
