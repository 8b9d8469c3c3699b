"""Welford's streaming mean and variance."""

import jax


@jax.jit
def welford(x):
    count = 0
    mean = 0.0
    m2 = 0.0
    for v in x:
        count += 1
        delta = v - mean
        mean += delta / count
        m2 += delta * (v - mean)
    return count, mean, m2 / count
