"""A jitted method that calls another method and a module function."""

import jax
import jax.numpy as jnp


def _gelu(x):
    return 0.5 * x * (1 + jnp.tanh(0.79788456 * (x + 0.044715 * x**3)))


class Block:
    def __init__(self, w1, w2):
        self.w1 = w1
        self.w2 = w2

    def _mlp(self, x):
        return _gelu(x @ self.w1) @ self.w2

    @jax.jit
    def residual(self, x):
        return x + self._mlp(x)

    @jax.jit
    def plain(self, x):
        return _gelu(x @ self.w1) @ self.w2
