import jax.numpy as jnp
from adv_data import arr

CALLS = [
    ("report", "f32 scalar, f32[3]", lambda m: m.report(jnp.float32(0.25), arr(3))),
    ("report", "int32 scalar, f32[2]", lambda m: m.report(jnp.int32(2), arr(2))),
    ("report_rate", "Python float", lambda m: m.report_rate(0.1)),
    ("report_rate", "f32 scalar", lambda m: m.report_rate(jnp.float32(0.1))),
]
