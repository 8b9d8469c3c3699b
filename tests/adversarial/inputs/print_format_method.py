import jax.numpy as jnp
from adv_data import arr

CALLS = [
    ("log_loss", "f32 loss int32 step", lambda m: m.log_loss(jnp.float32(0.4321), jnp.int32(12))),
    ("log_loss", "python values", lambda m: m.log_loss(2.5, 3)),
    ("log_loss", "twice", lambda m: [m.log_loss(jnp.float32(v), 1) for v in (0.1, 0.2)]),
    ("log_named", "f32[4]", lambda m: m.log_named(arr(4))),
    ("log_named", "int32[2]", lambda m: m.log_named(arr(2, dtype="int32"))),
]
