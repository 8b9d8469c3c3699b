import jax.numpy as jnp
from adv_data import arr

CALLS = [
    (("smooth", "_step"), "xs[4]", lambda m: m.smooth(arr(4))),
    (("smooth", "_step"), "xs[3,2]", lambda m: m.smooth(arr(3, 2))),
    (("smooth", "_step"), "xs[1]", lambda m: m.smooth(arr(1))),
    (("count_up", "_body"), "f32 start", lambda m: m.count_up(jnp.float32(0.5))),
    (("count_up", "_body"), "int32 start", lambda m: m.count_up(jnp.int32(10))),
]
