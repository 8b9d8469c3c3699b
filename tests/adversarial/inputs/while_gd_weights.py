import jax.numpy as jnp
from adv_data import arr


def well_posed(n, d, seed):
    return arr(n, d, seed=seed) * 0.5 + jnp.eye(n, d)


CALLS = [
    ("fit", "f32 weights", lambda m: m.fit(arr(3), well_posed(12, 3, 1), arr(12, seed=2))),
    (
        "fit",
        "int32 weights",
        lambda m: m.fit(jnp.array([1, 0, -1], jnp.int32), well_posed(12, 3, 3), arr(12, seed=4)),
    ),
    (
        "fit",
        "(d, k) weights",
        lambda m: m.fit(arr(3, 2), well_posed(10, 3, 5), arr(10, 2, seed=6), 0.05),
    ),
    ("fit", "one step cap", lambda m: m.fit(arr(3), well_posed(8, 3, 7), arr(8), 0.1, 1e-3, 1)),
]
