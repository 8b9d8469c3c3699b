"""Lists passed at static argument positions of jitted functions (JAX304).

Each call site passes a list literal where jit needs a hashable value. The traps: a tuple in
its place works where the function only iterates, indexes and takes `len` (`multi_pool`), but
`pad_to` tests `isinstance(widths, list)` and takes another branch for a tuple, `take_dims`
calls `.copy()` and `.sort()` (a tuple has neither), and `tail_mean` calls `.index()`, which
a tuple has too."""

from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnums=(1,))
def multi_pool(x, windows):
    outs = []
    for w in windows:
        n = x.shape[0] // w
        outs.append(x[: n * w].reshape(n, w).mean(axis=1).sum())
    return jnp.stack(outs) / len(windows)


@partial(jax.jit, static_argnums=(1,))
def pad_to(x, widths):
    if isinstance(widths, list):
        widths = widths + [0]
    return jnp.pad(x, (widths[0], widths[-1]))


@partial(jax.jit, static_argnames=("dims",))
def take_dims(x, dims):
    order = dims.copy()
    order.sort()
    return jnp.take(x, jnp.array(order), axis=-1)


@partial(jax.jit, static_argnums=(1,))
def tail_mean(x, marks):
    start = marks.index(max(marks))
    return jnp.mean(x[start:])


def pooled(x):
    return multi_pool(x, [1, 2, 3])


def padded(x):
    return pad_to(x, [2, 1])


def selected(x):
    return take_dims(x, dims=[2, 0])


def tail(x):
    return tail_mean(x, [0, 3, 1])
