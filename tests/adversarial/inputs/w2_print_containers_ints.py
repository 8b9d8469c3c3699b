import jax.numpy as jnp
from adv_data import arr

CALLS = [
    (
        "class_counts",
        "int32 labels[7], n_valid int",
        lambda m: m.class_counts(arr(7, dtype="int32", low=0, high=4), 5),
    ),
    (
        "class_counts",
        "int32 labels[1], n_valid bool",
        lambda m: m.class_counts(jnp.array([3], jnp.int32), jnp.bool_(True)),
    ),
    (
        "log_stats",
        "dict acc/loss (sorted keys)",
        lambda m: m.log_stats({"acc": jnp.float32(0.5), "loss": arr(3)}),
    ),
    (
        "log_stats",
        "dict with int and bool leaves",
        lambda m: m.log_stats(
            {"done": jnp.array([True, False]), "loss": jnp.int32(7), "step": jnp.int32(3)}
        ),
    ),
    ("log_pair", "f32[3], int32[2]", lambda m: m.log_pair((arr(3), arr(2, dtype="int32")))),
    (
        "log_pair",
        "bf16[1,2], nan",
        lambda m: m.log_pair((arr(1, 2, dtype="bfloat16"), jnp.array([jnp.nan, 1.0]))),
    ),
    ("log_shape_and_sum", "f32[2,3]", lambda m: m.log_shape_and_sum(arr(2, 3))),
    ("log_shape_and_sum", "bool[5]", lambda m: m.log_shape_and_sum(arr(5, dtype="bool"))),
]
