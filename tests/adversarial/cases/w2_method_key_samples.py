"""A Gaussian policy with `(self, key, n_samples, obs)` methods, as in flax/equinox code (JAX301).

The traps: `sample` marks `n_samples` static with `static_argnums=(2,)`, a position that
counts `self`: the helper, whose arguments come in another order, must keep `n_samples` (not
`key` or `obs`) static. `mean_log_prob` takes `n_samples` traced (it only divides by it) and a
PRNG key that may be a raw `uint32[2]` key or a typed `jax.random.key`. `sample_default` has a
default sample count used as a shape."""

from functools import partial

import jax
import jax.numpy as jnp


class GaussianPolicy:
    def __init__(self, W, log_std):
        self.W = W
        self.log_std = log_std

    @partial(jax.jit, static_argnums=(2,))
    def sample(self, key, n_samples, obs):
        mean = obs @ self.W
        eps = jax.random.normal(key, (n_samples,) + mean.shape)
        return mean + jnp.exp(self.log_std) * eps

    @jax.jit
    def mean_log_prob(self, key, n_samples, obs):
        mean = obs @ self.W
        std = jnp.exp(self.log_std)
        eps = jax.random.normal(key, (4,) + mean.shape)
        a = mean + std * eps
        lp = -0.5 * ((a - mean) / std) ** 2 - self.log_std - 0.5 * jnp.log(2 * jnp.pi)
        return jnp.sum(lp) / n_samples

    @partial(jax.jit, static_argnames=("n_samples",))
    def sample_default(self, key, obs, n_samples=3):
        keys = jax.random.split(key, n_samples)
        mean = obs @ self.W
        return jnp.stack([mean + jax.random.normal(k, mean.shape) for k in keys])
