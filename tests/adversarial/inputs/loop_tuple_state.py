import jax.numpy as jnp
from adv_data import arr

CALLS = [
    (
        "oscillate",
        "(f32[4], f32[4]), 0.1",
        lambda m: m.oscillate((arr(4), arr(4, seed=3)), jnp.float32(0.1)),
    ),
    (
        "oscillate",
        "(f32[2,3], f32[2,3]), 0.05",
        lambda m: m.oscillate((arr(2, 3), arr(2, 3, seed=4)), jnp.float32(0.05)),
    ),
    (
        "oscillate",
        "[f32[3], f32[3]] list",
        lambda m: m.oscillate([arr(3), arr(3, seed=5)], jnp.float32(0.2)),
    ),
]
