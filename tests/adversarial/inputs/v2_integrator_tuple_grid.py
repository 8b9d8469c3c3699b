import jax.numpy as jnp
from adv_data import arr


def grid(n, dtype="float32"):
    return jnp.linspace(0.0, 2.0, n).astype(dtype)


CALLS = [
    (
        "rk4_traj",
        "(f32[2], f32[2]), ts[9]",
        lambda m: m.rk4_traj((arr(2), arr(2, seed=2)), grid(9), 1.3),
    ),
    ("rk4_traj", "(1.0, 0.0) floats, ts[4]", lambda m: m.rk4_traj((1.0, 0.0), grid(4), 2.0)),
    (
        "rk4_traj",
        "ts[2], f32[3] state",
        lambda m: m.rk4_traj((arr(3), arr(3, seed=2)), grid(2), 0.7),
    ),
    (
        "rk4_traj",
        "int32 x",
        lambda m: m.rk4_traj((arr(2, dtype="int32"), arr(2, seed=2)), grid(5), 1.0),
    ),
    (
        "rk2_positions",
        "(f32[3], f32[3]), ts[10]",
        lambda m: m.rk2_positions((arr(3), arr(3, seed=4)), grid(10), 1.1),
    ),
    (
        "rk2_positions",
        "(1.0, 0.0) floats, ts[3]",
        lambda m: m.rk2_positions((1.0, 0.0), grid(3), 2.0),
    ),
    (
        "rk2_positions",
        "[x, v] list state",
        lambda m: m.rk2_positions([arr(2), arr(2, seed=4)], grid(4), 1.0),
    ),
    (
        "rk2_positions",
        "bf16 grid",
        lambda m: m.rk2_positions((arr(2), arr(2, seed=4)), grid(5, "bfloat16"), 1.0),
    ),
]
