import jax.numpy as jnp
from adv_data import arr

CALLS = [
    (
        "markov_chain",
        "u[30]",
        lambda m: m.markov_chain(jnp.abs(arr(30)) % 1.0, jnp.array([0.7, 0.4])),
    ),
    ("markov_chain", "u[1]", lambda m: m.markov_chain(jnp.array([0.9]), jnp.array([0.7, 0.4]))),
    (
        "markov_chain",
        "u[0] (jnp.array([]))",
        lambda m: m.markov_chain(jnp.zeros(0), jnp.array([0.7, 0.4])),
    ),
    (
        "inverse_cdf_samples",
        "u[12] cdf[4]",
        lambda m: m.inverse_cdf_samples(jnp.abs(arr(12)) % 1.0, jnp.array([0.1, 0.4, 0.8, 1.0])),
    ),
    (
        "inverse_cdf_samples",
        "u[1] cdf[2]",
        lambda m: m.inverse_cdf_samples(jnp.array([0.5]), jnp.array([0.3, 1.0])),
    ),
]
