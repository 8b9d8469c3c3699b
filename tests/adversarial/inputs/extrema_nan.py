import jax.numpy as jnp

NAN = jnp.float32(jnp.nan)

CALLS = [
    ("hinge", "0.5, 2.0", lambda m: m.hinge(jnp.float32(0.5), jnp.float32(2.0))),
    ("hinge", "3.0, 1.0", lambda m: m.hinge(jnp.float32(3.0), jnp.float32(1.0))),
    ("hinge", "nan margin", lambda m: m.hinge(NAN, jnp.float32(1.0))),
    ("clip_ratio", "1.5, 0.2", lambda m: m.clip_ratio(jnp.float32(1.5), jnp.float32(0.2))),
    ("clip_ratio", "0.5, nan", lambda m: m.clip_ratio(jnp.float32(0.5), NAN)),
    ("clip_ratio", "nan, 0.2", lambda m: m.clip_ratio(NAN, jnp.float32(0.2))),
    ("floor_at", "x nan", lambda m: m.floor_at(NAN, jnp.float32(0.0))),
    ("floor_at", "lo nan", lambda m: m.floor_at(jnp.float32(1.0), NAN)),
    ("floor_at", "ties", lambda m: m.floor_at(jnp.float32(-0.0), jnp.float32(0.0))),
    ("int_cap", "int32 3, 5", lambda m: m.int_cap(jnp.int32(3), jnp.int32(5))),
    ("int_cap", "int32 7, 5", lambda m: m.int_cap(jnp.int32(7), jnp.int32(5))),
]
