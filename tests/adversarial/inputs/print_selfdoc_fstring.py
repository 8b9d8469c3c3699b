import jax.numpy as jnp
from adv_data import arr

CALLS = [
    ("debug_loss", "f32 scalar", lambda m: m.debug_loss(jnp.float32(0.25))),
    ("debug_loss", "f32[2]", lambda m: m.debug_loss(arr(2))),
    ("debug_spec", "f32 scalar", lambda m: m.debug_spec(jnp.float32(1.23456))),
    ("debug_str_conv", "f32[3]", lambda m: m.debug_str_conv(arr(3))),
    ("debug_str_conv", "int32 scalar", lambda m: m.debug_str_conv(jnp.int32(4))),
    ("debug_repeat", "f32[5]", lambda m: m.debug_repeat(arr(5))),
]
