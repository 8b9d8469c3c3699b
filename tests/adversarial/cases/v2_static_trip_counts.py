"""Trip counts from static ints: a static default argument, a call-site constant, a schedule.

Traps for a loop → scan rewrite:
- `scheduled_sgd` reads a Python tuple of learning rates with the loop index
  (`LR_SCHEDULE[i % len(LR_SCHEDULE)]`): the index must stay a Python int (a traced index
  into a tuple raises);
- `truncated_return` runs `min(horizon, rewards.shape[0])` steps with `horizon` static and uses
  the index as an exponent (`gamma ** t`);
- `window_means` slices `x[i : i + window]` with `window` a default argument that the jitted
  caller `smooth` passes as a constant: the index is a slice bound;
- `poly_eval` loops `range(degree + 1)` over a static default: nothing to flag.
"""

from functools import partial

import jax
import jax.numpy as jnp

LR_SCHEDULE = (0.1, 0.05, 0.02)


@jax.jit
def scheduled_sgd(w, grads):
    for i in range(grads.shape[0]):
        lr = LR_SCHEDULE[i % len(LR_SCHEDULE)]
        w = w - lr * grads[i]
    return w


@partial(jax.jit, static_argnames=("horizon",))
def truncated_return(rewards, gamma, horizon=5):
    ret = 0.0
    for t in range(min(horizon, rewards.shape[0])):
        ret = ret + gamma**t * rewards[t]
    return ret


def window_means(x, window=3):
    out = []
    for i in range(x.shape[0] - window + 1):
        out.append(jnp.mean(x[i : i + window], axis=0))
    return jnp.stack(out)


@jax.jit
def smooth(x):
    return window_means(x, 4)


@partial(jax.jit, static_argnames=("degree",))
def poly_eval(coeffs, x, degree=3):
    acc = jnp.zeros_like(x)
    for i in range(degree + 1):
        acc = acc * x + coeffs[i]
    return acc
