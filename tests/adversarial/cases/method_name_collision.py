"""A module that already defines the helper name a rewrite would pick, and two similar classes."""

import jax
import jax.numpy as jnp


def _model_apply(x):
    """An unrelated module-level function that happens to use the name."""
    return x - 1000.0


class Model:
    def __init__(self, w):
        self.w = w

    @jax.jit
    def apply(self, x):
        return jnp.tanh(x * self.w)

    def legacy(self, x):
        return _model_apply(x)


class model:  # noqa: N801 - lowercase on purpose: the helper name of both classes may collide
    def __init__(self, w):
        self.w = w

    @jax.jit
    def apply(self, x):
        return x * self.w + 1.0
