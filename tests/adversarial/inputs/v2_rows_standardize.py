import jax.numpy as jnp
from adv_data import arr

CALLS = [
    ("standardize_batch", "X[7,4]", lambda m: m.standardize_batch(arr(7, 4))),
    ("standardize_batch", "X[1,5]", lambda m: m.standardize_batch(arr(1, 5))),
    ("standardize_batch", "int32 X[3,4]", lambda m: m.standardize_batch(arr(3, 4, dtype="int32"))),
    ("standardize_batch", "1-D X[6] (scalar rows)", lambda m: m.standardize_batch(arr(6))),
    (
        "standardize_batch",
        "NaN in row 1",
        lambda m: m.standardize_batch(arr(3, 3).at[1, 2].set(jnp.nan)),
    ),
    ("standardize_batch", "no rows X[0,4]", lambda m: m.standardize_batch(arr(0, 4))),
    ("standardize_batch", "nested list input", lambda m: m.standardize_batch(arr(2, 3).tolist())),
    ("softmax_rows", "logits[5,3]", lambda m: m.softmax_rows(arr(5, 3))),
    ("softmax_rows", "bf16 logits[2,4]", lambda m: m.softmax_rows(arr(2, 4, dtype="bfloat16"))),
    (
        "softmax_rows",
        "logits with -inf",
        lambda m: m.softmax_rows(jnp.array([[0.0, -jnp.inf], [1.0, 2.0]])),
    ),
    ("softmax_rows", "logits[3,2,2]", lambda m: m.softmax_rows(arr(3, 2, 2))),
]
