"""Prints in functions jitted with static arguments and in a lax.cond branch."""

from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnums=(1,))
def log_power(x, p):
    y = x**p
    print("power", p, "sum", jnp.sum(y))
    return y


def _pos(x):
    print("positive branch", x)
    return x * 2


def _neg(x):
    print("negative branch", x)
    return -x


@jax.jit
def branch(x):
    return jax.lax.cond(x > 0, _pos, _neg, x)
