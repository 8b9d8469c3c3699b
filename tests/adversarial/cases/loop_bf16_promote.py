"""bfloat16 activations accumulated in float32, as mixed-precision code does."""

import jax
import jax.numpy as jnp


@jax.jit
def sum_in_f32(x):
    acc = 0.0
    for v in x:
        acc = acc + v.astype(jnp.float32)
    return acc


@jax.jit
def mean_sq_mixed(x):
    acc = jnp.float32(0)
    for i in range(x.shape[0]):
        acc = acc + x[i].astype(jnp.float32) ** 2
    return acc / x.shape[0]


@jax.jit
def half_sum(x):
    acc = 0.0
    for v in x:
        acc = acc + v * 0.5
    return acc
