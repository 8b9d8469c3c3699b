"""Dropout with a static `training` flag and a float rate attribute."""

from functools import partial

import jax
import jax.numpy as jnp


class Dropout:
    def __init__(self, rate):
        self.rate = rate

    @partial(jax.jit, static_argnames=("training",))
    def __call__(self, x, key, training=False):
        if not training or self.rate == 0.0:
            return x
        keep = jax.random.bernoulli(key, 1.0 - self.rate, x.shape)
        return jnp.where(keep, x / (1.0 - self.rate), 0.0)
