"""A quantizer over uint8 images, with integer levels."""

import jax
import jax.numpy as jnp


class Quantizer:
    def __init__(self, levels, offset):
        self.levels = levels
        self.offset = offset

    @jax.jit
    def quantize(self, img):
        step = 256 // self.levels
        return (img // step) * step + self.offset

    @jax.jit
    def histogram(self, img):
        step = 256 // self.levels
        bins = (img // step).astype(jnp.int32)
        return jnp.zeros(self.levels, jnp.int32).at[bins.ravel()].add(1)
