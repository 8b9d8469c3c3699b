import jax.numpy as jnp
from adv_data import arr

CALLS = [
    ("sum_from", "f32[10] no start", lambda m: m.sum_from(arr(10))),
    ("sum_from", "f32[10] start=2.0", lambda m: m.sum_from(arr(10), start=2.0)),
    ("sum_from", "f32[5,3] start=1", lambda m: m.sum_from(arr(5, 3), start=1)),
    ("sum_from", "f32[0,4] start=0.5", lambda m: m.sum_from(arr(0, 4), start=0.5)),
    ("sum_from", "int32[6] start=3", lambda m: m.sum_from(arr(6, dtype="int32"), start=3)),
    ("sum_onto", "x[8,2] init[2]", lambda m: m.sum_onto(arr(8, 2), arr(2, seed=9))),
    ("sum_onto", "x[8] init[3] (broadcast)", lambda m: m.sum_onto(arr(8), arr(3, seed=9))),
    (
        "sum_onto",
        "int32 x[5] f32 init",
        lambda m: m.sum_onto(arr(5, dtype="int32"), jnp.float32(0.5)),
    ),
    ("sum_onto", "x[0,2] init[2]", lambda m: m.sum_onto(arr(0, 2), arr(2, seed=9))),
]
