"""Python's builtin max/min on traced scalars, in loops and jitted helpers (JAX102, JAX101).

Python's `max(a, b)` is `b if b > a else a`: a NaN in `b` is skipped, a NaN in `a` sticks, and
ties keep `a` (`max(-0.0, 0.0)` is `-0.0`). Traps: a running peak whose first element may be
NaN; `min(1.0, ratio)` with the constant first; a count floor `max(mask.sum(), 1)` on int
data; a warmup ramp `min(step, warmup)` on an int32 step.
"""

import jax
import jax.numpy as jnp


@jax.jit
def running_peak(x):
    peak = x[0]
    peaks = []
    for i in range(x.shape[0]):
        peak = max(peak, x[i])
        peaks.append(peak)
    return jnp.stack(peaks)


@jax.jit
def clip_by_norm(g, max_norm=1.0):
    norm = jnp.sqrt(jnp.sum(g * g))
    ratio = max_norm / (norm + 1e-12)
    scale = min(1.0, ratio)
    return g * scale


@jax.jit
def masked_mean(x, mask):
    n = max(mask.sum(), 1)
    return jnp.sum(jnp.where(mask, x, 0)) / n


@jax.jit
def warmup_lr(step, base_lr, warmup=100):
    ramp = min(step, warmup)
    return base_lr * ramp / warmup
