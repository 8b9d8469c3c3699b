import jax.numpy as jnp
from adv_data import arr, u8

NAN = jnp.nan

CALLS = [
    ("weighted_hits", "f32[7], w 0.5", lambda m: m.weighted_hits(arr(7), 0.5)),
    (
        "weighted_hits",
        "int32[5,2], w f32[2]",
        lambda m: m.weighted_hits(arr(5, 2, dtype="int32"), arr(2)),
    ),
    ("weighted_hits", "bool[4], int w", lambda m: m.weighted_hits(arr(4, dtype="bool"), 3)),
    ("weighted_hits", "f32[1] NaN", lambda m: m.weighted_hits(jnp.array([NAN]), 1.0)),
    ("decayed_peak", "f32[6,3], decay 0.9", lambda m: m.decayed_peak(arr(6, 3), 0.9)),
    ("decayed_peak", "int32[5], decay 0.5", lambda m: m.decayed_peak(arr(5, dtype="int32"), 0.5)),
    ("decayed_peak", "int32[4], int decay 2", lambda m: m.decayed_peak(arr(4, dtype="int32"), 2)),
    ("decayed_peak", "bf16[3]", lambda m: m.decayed_peak(arr(3, dtype="bfloat16"), 0.9)),
    ("narrow_sum", "int32[9]", lambda m: m.narrow_sum(arr(9, dtype="int32", low=-100, high=100))),
    ("narrow_sum", "uint8[6] large", lambda m: m.narrow_sum(u8(6))),
    (
        "narrow_sum",
        "int8[40] wraps",
        lambda m: m.narrow_sum(arr(40, dtype="int8", low=50, high=120)),
    ),
    ("narrow_sum", "bool[5]", lambda m: m.narrow_sum(arr(5, dtype="bool"))),
    (
        "nan_mean",
        "f32[6] with NaN",
        lambda m: m.nan_mean(jnp.array([1.0, NAN, 2.0, 4.0, NAN, -1.0])),
    ),
    ("nan_mean", "f32[3,2] with NaN", lambda m: m.nan_mean(arr(3, 2).at[1, 0].set(NAN))),
    ("nan_mean", "f16[4]", lambda m: m.nan_mean(arr(4, dtype="float16"))),
    ("nan_mean", "int32[5]", lambda m: m.nan_mean(arr(5, dtype="int32"))),
]
CALLS += [
    ("weighted_hits", "x[0]", lambda m: m.weighted_hits(arr(0), 0.5)),
    ("narrow_sum", "int8[0]", lambda m: m.narrow_sum(arr(0, dtype="int8"))),
]
