import jax.numpy as jnp
from adv_data import arr

CALLS = [
    ("with_shape", "f32[3,5]", lambda m: m.with_shape(arr(3, 5))),
    ("with_shape", "int32[2]", lambda m: m.with_shape(arr(2, dtype="int32"))),
    ("with_shape", "twice same shape", lambda m: [m.with_shape(arr(4, seed=s)) for s in (1, 2)]),
    ("sgd", "default lr", lambda m: m.sgd(arr(3), arr(3, seed=1))),
    ("sgd", "lr=0.5", lambda m: m.sgd(arr(3), arr(3, seed=1), lr=0.5)),
    ("dtype_and_sum", "f32[6]", lambda m: m.dtype_and_sum(arr(6))),
    ("dtype_and_sum", "bool[3,3]", lambda m: m.dtype_and_sum(arr(3, 3, dtype="bool"))),
    ("dtype_and_sum", "bf16[4]", lambda m: m.dtype_and_sum(jnp.ones(4, jnp.bfloat16))),
]
