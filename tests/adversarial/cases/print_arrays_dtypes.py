"""Printing whole arrays of various dtypes."""

import jax
import jax.numpy as jnp


@jax.jit
def show(x):
    print(x)
    return x


@jax.jit
def show_labelled(name_id, x):
    print("tensor", name_id, "=", x, "dtype-cast", x.astype(jnp.float32))
    return x


@jax.jit
def show_complex(z):
    print(f"z={z}, |z|={jnp.abs(z)}")
    return jnp.abs(z)
