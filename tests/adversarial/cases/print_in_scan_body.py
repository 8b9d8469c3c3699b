"""A print inside a lax.scan body (traced by scan)."""

import jax
import jax.numpy as jnp


def _step(carry, x):
    carry = carry * 0.9 + x
    print("carry", carry)
    return carry, carry


@jax.jit
def smooth(xs):
    final, path = jax.lax.scan(_step, jnp.zeros(xs.shape[1:]), xs)
    return final, path


def _body(i, acc):
    print("i", i, "acc", acc)
    return acc + i


@jax.jit
def count_up(n0):
    return jax.lax.fori_loop(0, 4, _body, n0)
