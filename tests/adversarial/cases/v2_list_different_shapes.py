"""Multi-scale smoothing with a Python list of kernels of DIFFERENT lengths.

`multiscale` indexes `kernels` by position over `range(len(kernels))`. Its callers pass a list
of kernels of lengths 3, 5, 9: every step still returns an array of the signal's shape, so a
scan's carry would type-check, but the list cannot be scanned or stacked (and a traced index
into a Python list raises). `band_energies` does the same over a pyramid of maps of different
sizes, and `pyramid` calls it with a list display built in the module. `level_gain` loops over
an ARRAY of gains (one per level) and reads the list of levels with the same index: the rows of
`gains` may be scanned, `levels[i]` may not.
"""

import jax
import jax.numpy as jnp


@jax.jit
def multiscale(signal, kernels):
    out = jnp.zeros_like(signal, dtype=jnp.float32)
    for i in range(len(kernels)):
        k = kernels[i] / jnp.sum(kernels[i])
        out = out + jnp.convolve(signal, k, mode="same")
    return out / len(kernels)


@jax.jit
def band_energies(levels):
    energies = []
    for i in range(len(levels)):
        energies.append(jnp.mean(levels[i] ** 2))
    return jnp.stack(energies)


def downsample(x):
    return 0.5 * (x[0::2] + x[1::2])


@jax.jit
def pyramid(x):
    x1 = downsample(x)
    x2 = downsample(x1)
    return band_energies([x, x1, x2])


@jax.jit
def level_gain(levels, gains: jax.Array):
    total = 0.0
    for i in range(gains.shape[0]):
        total = total + gains[i] * jnp.mean(levels[i] ** 2)
    return total
