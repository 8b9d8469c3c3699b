"""A jitted method containing a loop over its input (JAX301 and JAX101 together)."""

import jax
import jax.numpy as jnp


class RNN:
    def __init__(self, W, U, h0):
        self.W = W
        self.U = U
        self.h0 = h0

    @jax.jit
    def final_state(self, xs):
        h = self.h0
        for x in xs:
            h = jnp.tanh(self.W @ h + self.U @ x)
        return h

    @jax.jit
    def total_input(self, xs):
        acc = 0.0
        for x in xs:
            acc = acc + jnp.sum(self.U @ x)
        return acc
