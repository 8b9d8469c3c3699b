import jax.numpy as jnp

CALLS = [
    ("stopping_time", "27 (int32)", lambda m: m.stopping_time(jnp.int32(27))),
    ("stopping_time", "1: zero trips", lambda m: m.stopping_time(jnp.int32(1))),
    ("stopping_time", "97 as a Python int", lambda m: m.stopping_time(97)),
    ("stopping_time", "6 (uint8)", lambda m: m.stopping_time(jnp.uint8(6))),
]
CALLS.append(("stopping_time", "-5: zero trips", lambda m: m.stopping_time(jnp.int32(-5))))
CALLS.append(
    ("stopping_time", "7.9 (float32, truncated)", lambda m: m.stopping_time(jnp.float32(7.9)))
)
