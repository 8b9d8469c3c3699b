"""A loop over data that also prints inside its body (JAX101 and JAX201 together)."""

import jax


@jax.jit
def noisy_cumsum(x):
    acc = 0.0
    for v in x:
        acc = acc + v
        print("running total", acc)
    return acc


@jax.jit
def logged_steps(x):
    acc = 0.0
    for i in range(x.shape[0]):
        acc = acc * 0.9 + x[i]
    print("final", acc)
    return acc
