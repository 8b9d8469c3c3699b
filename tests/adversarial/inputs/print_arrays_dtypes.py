import jax.numpy as jnp
from adv_data import arr, u8

CALLS = [
    ("show", "f32[2,3]", lambda m: m.show(arr(2, 3))),
    ("show", "int32[5]", lambda m: m.show(arr(5, dtype="int32"))),
    ("show", "bool[4]", lambda m: m.show(arr(4, dtype="bool"))),
    ("show", "bf16[3]", lambda m: m.show(arr(3, dtype="bfloat16"))),
    ("show", "u8[2,2]", lambda m: m.show(u8(2, 2))),
    ("show", "f32[0]", lambda m: m.show(arr(0))),
    ("show", "f32 scalar", lambda m: m.show(jnp.float32(3.25))),
    ("show_labelled", "id 3, int32[3]", lambda m: m.show_labelled(3, arr(3, dtype="int32"))),
    ("show_labelled", "traced id, f32[2,2]", lambda m: m.show_labelled(jnp.int32(1), arr(2, 2))),
    ("show_complex", "c64 scalar", lambda m: m.show_complex(jnp.complex64(1 + 2j))),
    ("show_complex", "c64[3]", lambda m: m.show_complex(arr(3, dtype="complex64"))),
]
