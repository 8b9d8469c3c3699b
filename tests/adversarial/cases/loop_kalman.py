"""A scalar Kalman filter over noisy measurements."""

import jax
import jax.numpy as jnp


@jax.jit
def kalman_1d(zs, q, r):
    mean = 0.0
    var = 1.0
    means = []
    for z in zs:
        var = var + q
        gain = var / (var + r)
        mean = mean + gain * (z - mean)
        var = (1.0 - gain) * var
        means.append(mean)
    return jnp.array(means), var


@jax.jit
def kalman_final(zs, r):
    mean = 0.0
    var = 1.0
    for i in range(len(zs)):
        gain = var / (var + r)
        mean = mean + gain * (zs[i] - mean)
        var = (1.0 - gain) * var
    return mean, var
