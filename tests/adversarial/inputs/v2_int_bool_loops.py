import jax.numpy as jnp
from adv_data import arr

INF = jnp.inf

CALLS = [
    (
        "label_histogram",
        "int32[9] labels",
        lambda m: m.label_histogram(jnp.array([0, 1, 1, 3, 2, 2, 2, 0, 1])),
    ),
    (
        "label_histogram",
        "negative and out-of-range",
        lambda m: m.label_histogram(jnp.array([-1, 5, 2, -4, 7]), n_classes=3),
    ),
    (
        "label_histogram",
        "uint8 labels, 6 classes",
        lambda m: m.label_histogram(jnp.array([5, 0, 5], jnp.uint8), n_classes=6),
    ),
    ("longest_run", "bool[10]", lambda m: m.longest_run(arr(10, dtype="bool"))),
    ("longest_run", "int32 0/1 [7]", lambda m: m.longest_run(jnp.array([1, 1, 0, 1, 1, 1, 0]))),
    (
        "longest_run",
        "f32 with NaN [5]",
        lambda m: m.longest_run(jnp.array([0.0, jnp.nan, 2.0, 0.0, jnp.nan])),
    ),
    ("longest_run", "bool[3,2] two tracks", lambda m: m.longest_run(arr(3, 2, dtype="bool"))),
    (
        "survival",
        "bool[6]",
        lambda m: m.survival(jnp.array([False, False, True, False, True, False])),
    ),
    ("survival", "int32 0/1 [5]", lambda m: m.survival(jnp.array([0, 0, 1, 0, 0], jnp.int32))),
    ("survival", "bool[4,2]", lambda m: m.survival(arr(4, 2, dtype="bool"))),
    ("clipped_cumsum", "f32[8], -1..2", lambda m: m.clipped_cumsum(arr(8), -1.0, 2.0)),
    (
        "clipped_cumsum",
        "inf bounds, NaN data",
        lambda m: m.clipped_cumsum(jnp.array([1.0, jnp.nan, 3.0]), -INF, INF),
    ),
    (
        "clipped_cumsum",
        "int32[6], int bounds",
        lambda m: m.clipped_cumsum(arr(6, dtype="int32"), -2, 3),
    ),
    (
        "clipped_cumsum",
        "inf in data",
        lambda m: m.clipped_cumsum(jnp.array([INF, -1.0, -INF, 2.0]), -5.0, 5.0),
    ),
]
CALLS += [
    ("longest_run", "mask[0]", lambda m: m.longest_run(jnp.zeros(0, bool))),
    ("label_histogram", "labels[0]", lambda m: m.label_histogram(jnp.zeros(0, jnp.int32))),
]
