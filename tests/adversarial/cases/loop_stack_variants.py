"""Lists turned into arrays in less common ways: dtype=, axis=, concatenate, list reuse."""

import jax
import jax.numpy as jnp


@jax.jit
def prefix_as_f32(x):
    acc = 0
    ys = []
    for v in x:
        acc = acc + v
        ys.append(acc)
    return jnp.array(ys, dtype=jnp.float32)


@jax.jit
def prefix_stacked_on_axis1(X):
    acc = jnp.zeros(X.shape[1:])
    ys = []
    for row in X:
        acc = acc + row
        ys.append(acc)
    return jnp.stack(ys, axis=1)


@jax.jit
def concatenated_chunks(X):
    scale = 1.0
    pieces = []
    for row in X:
        scale = scale * 0.5
        pieces.append(row * scale)
    return jnp.concatenate(pieces)


@jax.jit
def exclusive_prefix(x):
    acc = 0.0
    ys = []
    for v in x:
        ys.append(acc)
        acc = acc + v
    return jnp.stack(ys), acc


@jax.jit
def stacked_and_last(x):
    acc = 0.0
    ys = []
    for v in x:
        acc = acc * 0.5 + v
        ys.append(acc)
    return jnp.stack(ys), ys[-1], len(ys)
