import jax.numpy as jnp
from adv_data import arr

CALLS = [
    ("evaluate", "f32[8]", lambda m: m.evaluate(arr(8), arr(8, seed=3))),
    (
        "evaluate",
        "f32[2,2] twice",
        lambda m: [m.evaluate(arr(2, 2, seed=s), arr(2, 2)) for s in (4, 5)],
    ),
    ("describe", "f32[6]", lambda m: m.describe(arr(6))),
    ("describe", "int32[4]", lambda m: m.describe(arr(4, dtype="int32"))),
    ("tagged", "f32[3] tag 2", lambda m: m.tagged(arr(3), 2)),
    ("tagged", "f32[3] tag array", lambda m: m.tagged(arr(3), jnp.float32(0.5))),
]
