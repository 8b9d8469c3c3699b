import jax
import jax.numpy as jnp
from adv_data import arr

CALLS = [
    (
        "langevin",
        "raw key, x[3], 20 steps",
        lambda m: m.langevin(jax.random.PRNGKey(3), arr(3), jnp.full(20, 0.01)),
    ),
    (
        "langevin",
        "raw key, x[2,2], 1 step",
        lambda m: m.langevin(jax.random.PRNGKey(4), arr(2, 2), jnp.full(1, 0.1)),
    ),
    (
        "langevin",
        "typed key, x[4], 5 steps",
        lambda m: jax.tree_util.tree_map(
            lambda a: jax.random.key_data(a) if jnp.issubdtype(a.dtype, jax.dtypes.prng_key) else a,
            m.langevin(jax.random.key(5), arr(4), jnp.linspace(0.01, 0.05, 5)),
        ),
    ),
    ("noisy_sum", "raw key, f32[10]", lambda m: m.noisy_sum(jax.random.PRNGKey(0), arr(10))),
    ("noisy_sum", "typed key, f32[6,2]", lambda m: m.noisy_sum(jax.random.key(1), arr(6, 2))),
    ("noisy_sum", "raw key, f32[0]", lambda m: m.noisy_sum(jax.random.PRNGKey(2), arr(0))),
]
