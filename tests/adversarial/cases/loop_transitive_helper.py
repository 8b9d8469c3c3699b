"""The loop lives in a helper that is only traced because a jitted function calls it."""

import jax
import jax.numpy as jnp


def _cumulative(x):
    acc = 0.0
    out = []
    for v in x:
        acc = acc + v
        out.append(acc)
    return jnp.stack(out)


def _weighted_total(x, w):
    total = 0.0
    for i in range(x.shape[0]):
        total = total + w[i] * x[i]
    return total


@jax.jit
def normalized_cumsum(x):
    c = _cumulative(x)
    return c / (jnp.abs(c[-1]) + 1.0)


@jax.jit
def weighted_score(x, w):
    return _weighted_total(x, w) * 2.0
