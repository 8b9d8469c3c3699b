"""Prints to stderr and prints of keyword-only formatting must be handled with care."""

import sys

import jax
import jax.numpy as jnp


@jax.jit
def warn(x):
    print("warning: large value", jnp.max(x), file=sys.stderr)
    return x


@jax.jit
def plain_and_stderr(x):
    print("sum", x.sum())
    print("debug", x.max(), file=sys.stderr)
    return x
