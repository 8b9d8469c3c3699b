"""A method that reads a property computed from array attributes."""

import jax
import jax.numpy as jnp


class Gaussian:
    def __init__(self, mu, log_sigma):
        self.mu = mu
        self.log_sigma = log_sigma

    @property
    def sigma(self):
        return jnp.exp(self.log_sigma)

    @jax.jit
    def log_prob(self, x):
        z = (x - self.mu) / self.sigma
        return -0.5 * z**2 - self.log_sigma - 0.5 * jnp.log(2 * jnp.pi)
