import jax.numpy as jnp
from adv_data import arr

CALLS = [
    (
        "train_step",
        "w[3], X[7,3], y[7], lr 0.05",
        lambda m: m.train_step(arr(3), arr(7, 3), arr(7, seed=2), 0.05),
    ),
    (
        "train_step",
        "one row: w[1], X[1,1], y[1], lr f32",
        lambda m: m.train_step(arr(1), arr(1, 1), arr(1, seed=3), jnp.float32(0.5)),
    ),
    (
        "train_step",
        "nan target, int lr 1",
        lambda m: m.train_step(arr(2), arr(4, 2), jnp.array([0.0, jnp.nan, 1.0, 2.0]), 1),
    ),
    (
        "train_step",
        "bfloat16 data",
        lambda m: m.train_step(
            arr(3, dtype="bfloat16"),
            arr(5, 3, dtype="bfloat16"),
            arr(5, dtype="bfloat16", seed=4),
            jnp.bfloat16(0.25),
        ),
    ),
]
