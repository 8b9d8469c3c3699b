"""A cast layer whose compute dtype is an attribute."""

import jax
import jax.numpy as jnp


class MixedPrecision:
    def __init__(self, scale, compute_dtype=jnp.bfloat16):
        self.scale = scale
        self.compute_dtype = compute_dtype

    @jax.jit
    def apply(self, x):
        y = x.astype(self.compute_dtype) * self.scale.astype(self.compute_dtype)
        return y.astype(x.dtype)
