import jax.numpy as jnp
from adv_data import arr

CALLS = [
    ("route_batch", "X[6,3] mixed signs", lambda m: m.route_batch(arr(6, 3))),
    ("route_batch", "X[1,4] positive", lambda m: m.route_batch(jnp.abs(arr(1, 4)) + 0.1)),
    ("route_batch", "NaN row", lambda m: m.route_batch(jnp.array([[1.0, 2.0], [jnp.nan, 1.0]]))),
    ("route_batch", "int32 X[3,2]", lambda m: m.route_batch(arr(3, 2, dtype="int32"))),
    ("positive_means", "X[5,4]", lambda m: m.positive_means(arr(5, 4))),
    (
        "positive_means",
        "row with no positives",
        lambda m: m.positive_means(jnp.array([[-1.0, -2.0], [3.0, -1.0]])),
    ),
    ("lookup_batch", "X[4,6]", lambda m: m.lookup_batch(arr(4, 6))),
    ("lookup_batch", "X[2,3] bf16", lambda m: m.lookup_batch(arr(2, 3, dtype="bfloat16"))),
]
