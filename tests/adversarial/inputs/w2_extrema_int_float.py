import jax.numpy as jnp

NAN = jnp.float32(jnp.nan)

CALLS = [
    ("surplus", "int32 5, 2", lambda m: m.surplus(jnp.int32(5), jnp.int32(2))),
    ("surplus", "int32 1, 4", lambda m: m.surplus(jnp.int32(1), jnp.int32(4))),
    ("surplus", "f32 nan, 0", lambda m: m.surplus(NAN, jnp.float32(0.0))),
    ("safe_ratio", "1, 0.5", lambda m: m.safe_ratio(jnp.float32(1.0), jnp.float32(0.5))),
    ("safe_ratio", "1, -0.0", lambda m: m.safe_ratio(jnp.float32(1.0), jnp.float32(-0.0))),
    ("safe_ratio", "1, nan", lambda m: m.safe_ratio(jnp.float32(1.0), NAN)),
    ("safe_ratio", "int32 3, inf", lambda m: m.safe_ratio(jnp.int32(3), jnp.float32(jnp.inf))),
    ("clip_steps", "int32 3 < f32 7.5", lambda m: m.clip_steps(jnp.int32(3), jnp.float32(7.5))),
    ("clip_steps", "int32 9 > f32 7.5", lambda m: m.clip_steps(jnp.int32(9), jnp.float32(7.5))),
    ("clip_steps", "int32 9, int32 4", lambda m: m.clip_steps(jnp.int32(9), jnp.int32(4))),
    ("lower_bound", "bf16 -2 vs floor 0.5", lambda m: m.lower_bound(jnp.bfloat16(-2.0), 0.5)),
    ("lower_bound", "bf16 3 vs floor 0.5", lambda m: m.lower_bound(jnp.bfloat16(3.0), 0.5)),
    ("lower_bound", "f32 nan vs f32 floor", lambda m: m.lower_bound(NAN, jnp.float32(1.0))),
    ("lower_bound", "f32 1 vs nan floor", lambda m: m.lower_bound(jnp.float32(1.0), NAN)),
]
