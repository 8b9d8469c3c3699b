import jax.numpy as jnp
from adv_data import arr

CALLS = [
    (
        "train_step",
        "X[6,3] w[3]",
        lambda m: m.train_step(arr(3), arr(6, 3, seed=1), arr(6, seed=2)),
    ),
    (
        "train_step",
        "twice",
        lambda m: [m.train_step(arr(2), arr(4, 2, seed=s), arr(4, seed=2)) for s in (1, 2)],
    ),
    ("progress", "int32 step", lambda m: m.progress(jnp.int32(7), jnp.int32(100))),
    ("progress", "python ints", lambda m: m.progress(3, 9)),
    ("report", "f32 scalar", lambda m: m.report(jnp.float32(0.125))),
    ("report", "f32[3]", lambda m: m.report(arr(3))),
    ("report", "bf16 scalar", lambda m: m.report(jnp.bfloat16(1.5))),
]
