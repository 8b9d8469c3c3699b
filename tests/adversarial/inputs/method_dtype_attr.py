import jax.numpy as jnp
from adv_data import arr


def _switch(m):
    layer = m.MixedPrecision(arr(3))
    a = layer.apply(arr(4, 3))
    layer.compute_dtype = jnp.float16
    b = layer.apply(arr(4, 3))
    layer.compute_dtype = jnp.float32
    return a, b, layer.apply(arr(4, 3))


CALLS = [
    (
        "MixedPrecision.apply",
        "bf16 compute, f32 x",
        lambda m: m.MixedPrecision(arr(5)).apply(arr(5)),
    ),
    (
        "MixedPrecision.apply",
        "f32 compute",
        lambda m: m.MixedPrecision(arr(2), jnp.float32).apply(arr(3, 2)),
    ),
    (
        "MixedPrecision.apply",
        "string dtype",
        lambda m: m.MixedPrecision(arr(2), "float16").apply(arr(2)),
    ),
    ("MixedPrecision.apply", "switch dtype", _switch),
    (
        "MixedPrecision.apply",
        "int32 x",
        lambda m: m.MixedPrecision(arr(4)).apply(arr(4, dtype="int32")),
    ),
]
