"""Hyperparameters as Python scalars, and an attribute that is a JAX scalar."""

import jax
import jax.numpy as jnp


class Huber:
    def __init__(self, delta=1.0, weight=None):
        self.delta = delta
        self.weight = jnp.float32(1.0) if weight is None else weight

    @jax.jit
    def loss(self, pred, target):
        r = jnp.abs(pred - target)
        quad = 0.5 * r**2
        lin = self.delta * (r - 0.5 * self.delta)
        return self.weight * jnp.mean(jnp.where(r <= self.delta, quad, lin))
