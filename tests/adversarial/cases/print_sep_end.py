"""print with sep=, end= and flush=."""

import jax
import jax.numpy as jnp


@jax.jit
def stats(x):
    mu = jnp.mean(x)
    sd = jnp.std(x)
    print("mu", mu, "sd", sd, sep=", ", end="!\n")
    return (x - mu) / (sd + 1e-6)


@jax.jit
def two_part(x):
    print(x.sum(), end="")
    print(" | ", x.max(), flush=True)
    return x


@jax.jit
def no_sep(a, b):
    print(a, b, sep="")
    return a + b
