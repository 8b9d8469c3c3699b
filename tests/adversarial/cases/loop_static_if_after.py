"""Moments with options: some results are reassigned only under a static flag."""

from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnames=("center",))
def second_moment(x, center=False):
    s = 0.0
    sq = 0.0
    for v in x:
        s = s + v
        sq = sq + v * v
    mean = s / x.shape[0]
    if center:
        sq = sq - x.shape[0] * mean**2
    return mean, sq


@partial(jax.jit, static_argnames=("track_peak",))
def total_and_peak(x, track_peak):
    total = 0.0
    peak = jnp.zeros(x.shape[1:])
    for v in x:
        total = total + v
        if track_peak:
            peak = jnp.maximum(peak, v)
    return total, peak


@partial(jax.jit, static_argnames=("init_with_first",))
def accumulate_from(x, init_with_first=False):
    acc = 0.0
    if init_with_first:
        acc = x[0] * 10
    for i in range(x.shape[0]):
        acc = acc + x[i]
    return acc
