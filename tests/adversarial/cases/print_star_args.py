"""print with unpacked arguments, tabs and blank-line endings."""

import jax
import jax.numpy as jnp


@jax.jit
def log_all(x, y):
    values = (x.sum(), y.sum())
    print("sums:", *values)
    return x + y


@jax.jit
def log_tabbed(x):
    print("min", jnp.min(x), "max", jnp.max(x), sep="\t")
    return x


@jax.jit
def log_blank_line(x):
    print("mean", jnp.mean(x), end="\n\n")
    return x
