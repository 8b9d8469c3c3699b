"""Position-weighted sums using the enumerate index."""

from functools import partial

import jax


@partial(jax.jit, static_argnames=("gamma",))
def discounted(rewards, gamma=0.95):
    ret = 0.0
    for t, r in enumerate(rewards):
        ret = ret + gamma**t * r
    return ret


@jax.jit
def position_checksum(data):
    acc = 0
    for i, v in enumerate(data):
        acc = acc + i * v
    return acc


@jax.jit
def harmonic_weighted(x):
    acc = 0.0
    for t, v in enumerate(x, start=1):
        acc = acc + v / t
    return acc
