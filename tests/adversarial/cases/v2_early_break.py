"""Loops that stop early or skip steps with `break` / `continue` on static conditions.

A scan runs every step: a rewrite that drops the `break` or the `continue` computes over
steps the loop never ran. `truncated_ema` stops after `max_steps` (static), `skip_warmup`
skips the first `warmup` rows, `first_pass` breaks out of an inner static loop only.
`tail_sum`, after a loop with a break, is a plain accumulation.
"""

from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnames=("max_steps",))
def truncated_ema(x, alpha, max_steps=None):
    ema = x[0]
    for t in range(x.shape[0]):
        if max_steps is not None and t >= max_steps:
            break
        ema = alpha * x[t] + (1.0 - alpha) * ema
    return ema


@partial(jax.jit, static_argnames=("warmup",))
def skip_warmup(x, warmup=2):
    total = 0.0
    for t in range(x.shape[0]):
        if t < warmup:
            continue
        total = total + x[t]
    return total / max(x.shape[0] - warmup, 1)


@partial(jax.jit, static_argnames=("order",))
def first_pass(x, order=1):
    acc = jnp.zeros_like(x[0])
    for i in range(x.shape[0]):
        term = x[i]
        for k in range(3):
            if k >= order:
                break
            term = term * x[i]
        acc = acc + term
    return acc


@partial(jax.jit, static_argnames=("stop",))
def tail_sum(x, stop=3):
    head = 0.0
    for t in range(x.shape[0]):
        if t == stop:
            break
        head = head + x[t]
    tail = 0.0
    for t in range(x.shape[0]):
        tail = tail * 0.5 + x[t]
    return head, tail
