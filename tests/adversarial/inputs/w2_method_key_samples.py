import jax
import jax.numpy as jnp
from adv_data import arr


def _pol(m, d=3, a=2):
    return m.GaussianPolicy(arr(d, a), arr(a, seed=1) * 0.1)


CALLS = [
    (
        "GaussianPolicy.sample",
        "raw key, 7 samples, obs[3]",
        lambda m: _pol(m).sample(jax.random.PRNGKey(0), 7, arr(3)),
    ),
    (
        "GaussianPolicy.sample",
        "typed key, 1 sample, obs[2,3]",
        lambda m: _pol(m).sample(jax.random.key(5), 1, arr(2, 3)),
    ),
    (
        "GaussianPolicy.sample",
        "typed key values, 2 samples, bf16 obs",
        lambda m: m.GaussianPolicy(arr(3, 1, dtype="bfloat16"), jnp.zeros(1, jnp.bfloat16)).sample(
            jax.random.key(9), 2, arr(1, 3, dtype="bfloat16")
        ),
    ),
    (
        "GaussianPolicy.mean_log_prob",
        "raw key, n 7 Python int",
        lambda m: _pol(m).mean_log_prob(jax.random.PRNGKey(1), 7, arr(5, 3)),
    ),
    (
        "GaussianPolicy.mean_log_prob",
        "typed key, n int32 array",
        lambda m: _pol(m, 1, 1).mean_log_prob(jax.random.key(2), jnp.int32(3), arr(1, 1)),
    ),
    (
        "GaussianPolicy.sample_default",
        "default 3",
        lambda m: _pol(m).sample_default(jax.random.PRNGKey(4), arr(3)),
    ),
    (
        "GaussianPolicy.sample_default",
        "n_samples=1 keyword, typed key",
        lambda m: _pol(m).sample_default(jax.random.key(6), arr(2, 3), n_samples=1),
    ),
]
