import jax.numpy as jnp
from adv_data import arr

CALLS = [
    ("eval_epoch", "f32[7], epoch 3", lambda m: m.eval_epoch(arr(7), arr(7, seed=1), 3)),
    (
        "eval_epoch",
        "f32[1] with nan, epoch 0",
        lambda m: m.eval_epoch(jnp.array([jnp.nan]), arr(1, seed=1), 0),
    ),
    (
        "eval_epoch",
        "bias -inf",
        lambda m: m.eval_epoch(jnp.array([-jnp.inf, 1.0]), jnp.array([0.0, 1.0]), 12),
    ),
    (
        "eval_epoch",
        "float16 [2,3]",
        lambda m: m.eval_epoch(arr(2, 3, dtype="float16"), arr(2, 3, dtype="float16", seed=2), 1),
    ),
    (
        "eval_epoch",
        "bfloat16 [4] (exact mean), epoch 2",
        lambda m: m.eval_epoch(
            jnp.array([1.0, -2.5, 4.0, 0.5], jnp.bfloat16), jnp.zeros(4, jnp.bfloat16), 2
        ),
    ),
    (
        "eval_epoch",
        "int32 [5] (worst is an int)",
        lambda m: m.eval_epoch(arr(5, dtype="int32"), arr(5, dtype="int32", seed=6), 4),
    ),
    ("count_hits", "f32[9] t=0", lambda m: m.count_hits(arr(9), 0.0)),
    ("count_hits", "int32[4] t=1", lambda m: m.count_hits(arr(4, dtype="int32"), 1)),
    ("summary", "f32[6]", lambda m: m.summary(arr(6))),
    ("summary", "int32[3]", lambda m: m.summary(arr(3, dtype="int32"))),
]
