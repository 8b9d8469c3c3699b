import jax.numpy as jnp

CALLS = [
    ("logistic_quantile", "p=0.9", lambda m: m.logistic_quantile(jnp.float32(0.9))),
    ("logistic_quantile", "p=0.1, tight bracket", lambda m: m.logistic_quantile(0.1, -3.0, 0.0)),
    ("logistic_quantile", "int brackets", lambda m: m.logistic_quantile(jnp.float32(0.5), -4, 4)),
    ("logistic_quantile", "already narrow", lambda m: m.logistic_quantile(0.5, 0.0, 1e-6)),
    ("logistic_quantile", "coarse tol", lambda m: m.logistic_quantile(0.7, tol=0.5)),
]
