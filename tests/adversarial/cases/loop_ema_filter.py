"""Exponential moving average of a time series (scalar or per-feature)."""

from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnames=("alpha",))
def ema(x, alpha=0.3):
    s = x[0]
    smoothed = []
    for t in range(x.shape[0]):
        s = alpha * x[t] + (1.0 - alpha) * s
        smoothed.append(s)
    return jnp.stack(smoothed)


@jax.jit
def ema_last(x, decay):
    s = 0.0
    for row in x:
        s = decay * s + (1 - decay) * row
    return s
