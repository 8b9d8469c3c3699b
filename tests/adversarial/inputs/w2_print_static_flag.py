import jax.numpy as jnp
from adv_data import arr

CALLS = [
    ("layer", "x[7,3] quiet", lambda m: m.layer(arr(7, 3), arr(3, 2, seed=1))),
    ("layer", "x[1,3] verbose", lambda m: m.layer(arr(1, 3), arr(3, 2, seed=1), verbose=True)),
    (
        "layer",
        "bf16 x[2,2] quiet positional",
        lambda m: m.layer(arr(2, 2, dtype="bfloat16"), arr(2, 4, dtype="bfloat16"), False),
    ),
    (
        "layer",
        "f16 x[7,2] verbose",
        lambda m: m.layer(arr(7, 2, dtype="float16"), arr(2, 1, dtype="float16"), verbose=True),
    ),
    ("scale", "Python float factor", lambda m: m.scale(arr(3), 0.5)),
    ("scale", "f32 factor", lambda m: m.scale(arr(3), jnp.float32(2.0))),
    ("scale", "int32 factor array", lambda m: m.scale(arr(2, dtype="int32"), jnp.int32(3))),
]
