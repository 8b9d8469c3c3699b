import jax.numpy as jnp
from adv_data import arr

CALLS = [
    ("stats", "f32[10]", lambda m: m.stats(arr(10))),
    ("stats", "f32[1]", lambda m: m.stats(arr(1))),
    ("two_part", "f32[4]", lambda m: m.two_part(arr(4))),
    (
        "two_part",
        "int32[3] twice",
        lambda m: [m.two_part(arr(3, dtype="int32", seed=s)) for s in (1, 2)],
    ),
    ("no_sep", "scalars", lambda m: m.no_sep(jnp.float32(1.5), jnp.float32(2.0))),
    ("no_sep", "arrays", lambda m: m.no_sep(arr(2), arr(2, seed=4))),
]
