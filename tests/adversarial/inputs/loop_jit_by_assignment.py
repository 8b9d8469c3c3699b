import jax.numpy as jnp
from adv_data import arr

CALLS = [
    (
        "heat_steps",
        "u[8], 12 steps",
        lambda m: m.heat_steps_jit(arr(8), arr(12, 8, seed=1) * 0.1, 0.1),
    ),
    ("heat_steps", "u[5], 1 step", lambda m: m.heat_steps_jit(arr(5), arr(1, 5, seed=1), 0.2)),
    ("heat_steps", "u[6], 0 steps", lambda m: m.heat_steps_jit(arr(6), jnp.zeros((0, 6)), 0.2)),
    (
        "heat_steps",
        "u[6], scalar forcing rows",
        lambda m: m.heat_steps_jit(arr(6), arr(4, seed=2), 0.1),
    ),
    ("leaky_integrate", "f32[30]", lambda m: m.leaky_integrate_jit(arr(30) * 3, 4.0)),
    ("leaky_integrate", "f32[3,2]", lambda m: m.leaky_integrate_jit(arr(3, 2) * 3, 2.0)),
    ("leaky_integrate", "int32[5]", lambda m: m.leaky_integrate_jit(arr(5, dtype="int32"), 2.0)),
]
