import jax.numpy as jnp
from adv_data import arr

CALLS = [
    ("best_score", "f32[5]", lambda m: m.best_score(arr(5))),
    ("best_score", "int32[6]", lambda m: m.best_score(arr(6, dtype="int32"))),
    ("best_score", "f32 with NaN", lambda m: m.best_score(jnp.array([1.0, jnp.nan, 0.5]))),
    ("scaled_relu", "scalar -0.5", lambda m: m.scaled_relu(jnp.float32(-0.5), 2.0)),
    ("scaled_relu", "scalar 3.0", lambda m: m.scaled_relu(jnp.float32(3.0), 2.0)),
    ("scaled_relu", "NaN", lambda m: m.scaled_relu(jnp.float32(jnp.nan), 2.0)),
    ("scaled_relu", "int32 scalar 5, scale 2.5", lambda m: m.scaled_relu(jnp.int32(5), 2.5)),
    ("scaled_relu", "int32 scalar -3, int scale 2", lambda m: m.scaled_relu(jnp.int32(-3), 2)),
    ("scaled_relu", "int32 scalar 5, int scale 2", lambda m: m.scaled_relu(jnp.int32(5), 2)),
    ("scaled_relu", "vector f32[3] (eager raises)", lambda m: m.scaled_relu(arr(3), 1.0)),
    ("huber", "scalar 0.3", lambda m: m.huber(jnp.float32(0.3))),
    ("huber", "scalar -4", lambda m: m.huber(jnp.float32(-4.0), 2.0)),
    ("huber", "NaN residual", lambda m: m.huber(jnp.float32(jnp.nan))),
    ("huber", "int32 residual 3", lambda m: m.huber(jnp.int32(3))),
]
