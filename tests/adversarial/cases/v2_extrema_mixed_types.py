"""Builtin max/min whose operands have different dtypes or are not scalars.

Python returns the winning operand unchanged. `best_score` starts at `-jnp.inf` (a Python
float) and takes `max(best, s)` over int32 scores: the loop returns an int32 score, a
`jnp.where` returns a float32. `scaled_relu` applies `max(x, 0.0)` to what is, for some
callers, a vector: Python raises on the truth of a multi-element array (run eagerly),
`jnp.where` would silently compute an elementwise clip; for an int32 `x` and an int `scale`
Python returns an int32 product when `x` wins, a `where` against the literal `0.0` a float32.
"""

import jax
import jax.numpy as jnp


@jax.jit
def best_score(scores):
    best = -jnp.inf
    for s in scores:
        best = max(best, s)
    return best


@jax.jit
def scaled_relu(x, scale):
    y = max(x, 0.0)
    return y * scale


@jax.jit
def huber(residual, delta=1.0):
    a = jnp.abs(residual)
    quad = min(a, delta)
    return 0.5 * quad**2 + delta * (a - quad)
