"""An accumulator whose initial value may come from an optional argument."""

from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnames=("start",))
def sum_from(x, start=None):
    acc = 0.0
    if start is not None:
        acc = jnp.full(x.shape[1:], start)
    for v in x:
        acc = acc + v
    return acc


@jax.jit
def sum_onto(x, init):
    acc = init
    for i in range(x.shape[0]):
        acc = acc + x[i]
    return acc
