import jax.numpy as jnp
from adv_data import arr

CALLS = [
    ("Spring.energy", "x[4]", lambda m: m.Spring(arr(4)).energy(arr(4, seed=2))),
    (
        "Spring.combine",
        "three xs",
        lambda m: m.Spring(arr(3)).combine(arr(3, seed=1), arr(3, seed=2), arr(3, seed=3)),
    ),
    ("Spring.combine", "no xs", lambda m: m.Spring(arr(3)).combine()),
    ("Spring.scaled", "no options", lambda m: m.Spring(arr(2)).scaled(arr(2, seed=4))),
    (
        "Spring.scaled",
        "factor option",
        lambda m: m.Spring(arr(2)).scaled(arr(2, seed=4), factor=jnp.float32(3.0)),
    ),
]
