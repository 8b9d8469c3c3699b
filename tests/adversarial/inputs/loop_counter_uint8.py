import jax.numpy as jnp
from adv_data import arr, u8

CALLS = [
    ("pixel_sum_and_count", "u8[300] (k passes 255)", lambda m: m.pixel_sum_and_count(u8(300))),
    ("pixel_sum_and_count", "u8[7,2] rows", lambda m: m.pixel_sum_and_count(u8(7, 2))),
    ("pixel_sum_and_count", "u8[0]", lambda m: m.pixel_sum_and_count(u8(0))),
    ("pixel_sum_and_count", "int32[20]", lambda m: m.pixel_sum_and_count(arr(20, dtype="int32"))),
    ("pixel_sum_and_count", "f32[3]", lambda m: m.pixel_sum_and_count(arr(3))),
    ("count_bright", "u8[260] thr 128", lambda m: m.count_bright(u8(260), 128)),
    ("count_bright", "u8[5,3] thr uint8", lambda m: m.count_bright(u8(5, 3), jnp.uint8(100))),
    ("count_bright", "u8[1]", lambda m: m.count_bright(u8(1), 10)),
]
