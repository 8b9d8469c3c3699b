"""A phase shifter holding complex64 coefficients."""

import jax
import jax.numpy as jnp


class PhaseShifter:
    def __init__(self, phases):
        self.coeffs = jnp.exp(1j * phases)

    @jax.jit
    def shift(self, signal):
        return signal * self.coeffs

    @jax.jit
    def power(self, signal):
        return jnp.abs(signal * self.coeffs) ** 2
