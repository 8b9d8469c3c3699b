import jax.numpy as jnp
from adv_data import arr

F = jnp.float32
NAN = F(jnp.nan)

CALLS = [
    ("clamp", "inside", lambda m: m.clamp(F(0.3), F(0.0), F(1.0))),
    ("clamp", "above", lambda m: m.clamp(F(2.0), F(0.0), F(1.0))),
    ("clamp", "nan x", lambda m: m.clamp(NAN, F(0.0), F(1.0))),
    ("clamp", "nan lo", lambda m: m.clamp(F(-1.0), NAN, F(1.0))),
    ("clamp", "lo > hi", lambda m: m.clamp(F(0.5), F(2.0), F(1.0))),
    ("soft_threshold", "x 0.3 lam 0.5", lambda m: m.soft_threshold(F(0.3), F(0.5))),
    ("soft_threshold", "x -2 lam 0.5", lambda m: m.soft_threshold(F(-2.0), F(0.5))),
    ("soft_threshold", "x nan", lambda m: m.soft_threshold(NAN, F(0.5))),
    ("grad_clip", "g[7] max 1", lambda m: m.grad_clip(arr(7), F(1.0))),
    ("grad_clip", "zero g[3]", lambda m: m.grad_clip(jnp.zeros(3), F(1.0))),
    ("grad_clip", "nan in g", lambda m: m.grad_clip(jnp.array([1.0, jnp.nan]), F(1.0))),
    ("grad_clip", "bf16 g[1,2]", lambda m: m.grad_clip(arr(1, 2, dtype="bfloat16"), 0.5)),
    ("best_of_three", "1 3 2", lambda m: m.best_of_three(F(1.0), F(3.0), F(2.0))),
    ("best_of_three", "nan first", lambda m: m.best_of_three(NAN, F(3.0), F(2.0))),
    ("best_of_three", "nan middle", lambda m: m.best_of_three(F(1.0), NAN, F(2.0))),
    (
        "floor_last",
        "xs[5] > lo",
        lambda m: m.floor_last(jnp.array([0.0, 1.0, 2.0, 3.0, 4.0]), F(1.0)),
    ),
    ("floor_last", "xs[1] < lo", lambda m: m.floor_last(jnp.array([-3.0]), F(1.0))),
]
