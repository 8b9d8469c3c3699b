"""The seed article's ScaleClass: jax.jit on a method (JAX301); calling it raises TypeError."""

import jax
import jax.numpy as jnp


class ScaleClass:
    def __init__(self, scale: jnp.array):
        self.scale = scale

    @jax.jit
    def apply(self, x: jnp.array):
        return self.scale * x
