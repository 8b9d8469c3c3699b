"""Loop variables and body temporaries used after the loop."""

import jax


@jax.jit
def sum_and_last_index(x):
    acc = 0.0
    for i in range(x.shape[0]):
        acc = acc + x[i]
    return acc, i


@jax.jit
def sum_and_last_delta(x):
    acc = 0.0
    for v in x:
        delta = v * 0.5
        acc = acc + delta
    return acc, delta


@jax.jit
def last_element(x):
    last = 0.0
    for v in x:
        last = v
    return last
