"""Printed text that itself contains braces: a format-string rewrite must escape them."""

import jax
import jax.numpy as jnp


@jax.jit
def log_set(x):
    print("labels {0, 1} ->", jnp.sum(x))
    return x


@jax.jit
def log_json(loss):
    print('{"loss":', loss, "}")
    return loss


@jax.jit
def log_fstring_braces(w):
    print(f"{{weights}} norm={jnp.linalg.norm(w)}")
    return w


@jax.jit
def log_percent_braces(x):
    print("{} mean %.3f" % jnp.mean(x))
    return x
