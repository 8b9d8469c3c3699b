"""Prints guarded by a static flag and by a module constant (JAX201).

The traps: a print under `if verbose:` (a static argument) mixes a static shape with a traced
mean formatted `:.4f`; a module-level `DEBUG` print shows the static flag itself (`verbose =
False`: Python text, not an array) beside a traced value; and `{factor=}` of a *parameter*
prints `factor=0.5` when the caller passes a Python float, but `factor=Array(0.5, ...)` once
jit has made it an array: no single template prints both, so it must be left alone."""

from functools import partial

import jax

DEBUG = True


@partial(jax.jit, static_argnames=("verbose",))
def layer(x, w, verbose=False):
    y = jax.nn.gelu(x @ w)
    if verbose:
        print(f"layer out {y.shape}: mean={y.mean():.4f}")
    if DEBUG:
        print("verbose =", verbose, "| max", y.max())
    return y


@jax.jit
def scale(x, factor):
    print(f"{factor=}")
    return x * factor
