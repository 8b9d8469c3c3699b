import jax.numpy as jnp
from adv_data import arr

NAN = jnp.nan

CALLS = [
    ("running_peak", "f32[9]", lambda m: m.running_peak(arr(9))),
    ("running_peak", "NaN first", lambda m: m.running_peak(jnp.array([NAN, 1.0, 3.0, 2.0]))),
    (
        "running_peak",
        "NaN in the middle",
        lambda m: m.running_peak(jnp.array([0.5, NAN, 0.2, 4.0, NAN])),
    ),
    ("running_peak", "int32[6]", lambda m: m.running_peak(arr(6, dtype="int32"))),
    ("running_peak", "signed zeros", lambda m: m.running_peak(jnp.array([-0.0, 0.0, -0.0]))),
    ("running_peak", "f32[1]", lambda m: m.running_peak(jnp.array([2.5]))),
    ("clip_by_norm", "g[5] large", lambda m: m.clip_by_norm(arr(5) * 10.0)),
    ("clip_by_norm", "g[3] small", lambda m: m.clip_by_norm(arr(3) * 0.01)),
    ("clip_by_norm", "g with NaN", lambda m: m.clip_by_norm(jnp.array([1.0, NAN]))),
    ("clip_by_norm", "zero g", lambda m: m.clip_by_norm(jnp.zeros(4), 0.5)),
    ("masked_mean", "f32[6], bool mask", lambda m: m.masked_mean(arr(6), arr(6, dtype="bool"))),
    ("masked_mean", "all-false mask", lambda m: m.masked_mean(arr(4), jnp.zeros(4, bool))),
    (
        "masked_mean",
        "int32 x, int32 0/1 mask",
        lambda m: m.masked_mean(arr(5, dtype="int32"), jnp.array([1, 0, 1, 1, 0])),
    ),
    ("warmup_lr", "int32 step 30", lambda m: m.warmup_lr(jnp.int32(30), 0.1)),
    ("warmup_lr", "int32 step 250", lambda m: m.warmup_lr(jnp.int32(250), 0.1)),
    ("warmup_lr", "f32 step 7.5, warmup 10", lambda m: m.warmup_lr(jnp.float32(7.5), 1.0, 10)),
]
CALLS += [
    ("running_peak", "bool[5]", lambda m: m.running_peak(arr(5, dtype="bool"))),
    (
        "running_peak",
        "inf and -inf",
        lambda m: m.running_peak(jnp.array([-jnp.inf, 1.0, jnp.inf, 2.0])),
    ),
]
