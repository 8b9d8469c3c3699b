import jax.numpy as jnp
from adv_data import arr

CALLS = [
    ("ratio", "int32 hits", lambda m: m.ratio(jnp.int32(3), jnp.int32(8))),
    ("ratio", "python ints", lambda m: m.ratio(5, 20)),
    ("named", "f32[7]", lambda m: m.named(arr(7))),
    ("padded", "f32[3]", lambda m: m.padded(arr(3))),
    ("padded", "f32[12] twice", lambda m: [m.padded(arr(12, seed=s)) for s in (1, 2)]),
]
