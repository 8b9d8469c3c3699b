"""A Langevin sampler: the PRNG key is threaded through the loop as part of the carry."""

import jax
import jax.numpy as jnp


def _grad_log_p(x):
    return -x


@jax.jit
def langevin(key, x0, step_sizes):
    x = x0
    samples = []
    for eps in step_sizes:
        key, sub = jax.random.split(key)
        noise = jax.random.normal(sub, x.shape)
        x = x + eps * _grad_log_p(x) + jnp.sqrt(2 * eps) * noise
        samples.append(x)
    return jnp.stack(samples), key


@jax.jit
def noisy_sum(key, x):
    total = 0.0
    for v in x:
        key, sub = jax.random.split(key)
        total = total + v + 0.01 * jax.random.uniform(sub)
    return total
