import jax.numpy as jnp
from adv_data import arr

CALLS = [
    ("ema", "f32[50] default alpha", lambda m: m.ema(arr(50))),
    ("ema", "f32[1] alpha=0.9", lambda m: m.ema(arr(1), alpha=0.9)),
    ("ema", "f32[6,4] rows alpha=0.1", lambda m: m.ema(arr(6, 4), alpha=0.1)),
    ("ema", "bf16[12]", lambda m: m.ema(arr(12, dtype="bfloat16"), alpha=0.5)),
    ("ema", "f32[0] (x[0] raises)", lambda m: m.ema(arr(0))),
    ("ema_last", "f32[40] decay 0.8", lambda m: m.ema_last(arr(40), 0.8)),
    ("ema_last", "f32[0,3] empty rows", lambda m: m.ema_last(arr(0, 3), 0.8)),
    ("ema_last", "f32[9,2] array decay", lambda m: m.ema_last(arr(9, 2), jnp.float32(0.25))),
    ("ema_last", "int32[10]", lambda m: m.ema_last(arr(10, dtype="int32"), 0.5)),
]
