"""Backward recurrences: discounted returns computed from the end."""

import jax
import jax.numpy as jnp


@jax.jit
def backward_discount(rewards, gamma):
    ret = 0.0
    for r in rewards[::-1]:
        ret = r + gamma * ret
    return ret


@jax.jit
def returns_to_go(rewards, gamma):
    ret = 0.0
    outs = []
    for t in reversed(range(rewards.shape[0])):
        ret = rewards[t] + gamma * ret
        outs.append(ret)
    return jnp.stack(outs[::-1])
