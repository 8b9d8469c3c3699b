import jax.numpy as jnp
from adv_data import arr

CALLS = [
    (
        "ensemble_predict",
        "tuple of 2 W[3,3], x[3]",
        lambda m: m.ensemble_predict((arr(3, 3, seed=1), arr(3, 3, seed=2)), arr(3)),
    ),
    (
        "ensemble_predict",
        "list of 4 W[3,3], x[5,3]",
        lambda m: m.ensemble_predict([arr(3, 3, seed=s) for s in range(4)], arr(5, 3)),
    ),
    (
        "ensemble_predict",
        "1-tuple W[2,4], x[2]",
        lambda m: m.ensemble_predict((arr(2, 4),), arr(2)),
    ),
    (
        "ensemble_predict",
        "stacked W[3,3,3] array",
        lambda m: m.ensemble_predict(arr(3, 3, 3), arr(3)),
    ),
    (
        "average_updates",
        "tuple of 3 f32[3,3]",
        lambda m: m.average_updates(tuple(arr(3, 3, seed=s) for s in range(3)), 0.5),
    ),
    (
        "average_updates",
        "list of 2 f32[2]",
        lambda m: m.average_updates([arr(2), arr(2, seed=3)], 2.0),
    ),
    (
        "average_updates",
        "int32 updates f32[4,2] array",
        lambda m: m.average_updates(arr(4, 2, dtype="int32"), 1.0),
    ),
    ("stacked_predict", "W[4,3,3], x[3]", lambda m: m.stacked_predict(arr(4, 3, 3), arr(3))),
    ("stacked_predict", "W[1,3,2], x[6,3]", lambda m: m.stacked_predict(arr(1, 3, 2), arr(6, 3))),
    (
        "stacked_predict",
        "bf16 W[2,2,2]",
        lambda m: m.stacked_predict(arr(2, 2, 2, dtype="bfloat16"), arr(2)),
    ),
]
CALLS += [
    (
        "mixture_logpdf",
        "x[3], 3 components, tuple of means[3]",
        lambda m: m.mixture_logpdf(
            arr(3),
            jnp.log(jnp.array([0.2, 0.3, 0.5])),
            (arr(3, seed=1), arr(3, seed=2), arr(3, seed=3)),
        ),
    ),
    (
        "mixture_logpdf",
        "x[4], 2 components, list of means[4]",
        lambda m: m.mixture_logpdf(
            arr(4), jnp.log(jnp.array([0.4, 0.6])), [arr(4, seed=1), arr(4, seed=2)]
        ),
    ),
    (
        "mixture_logpdf",
        "means f32[2,5] array",
        lambda m: m.mixture_logpdf(arr(5), jnp.log(jnp.array([0.5, 0.5])), arr(2, 5)),
    ),
]
CALLS.append(
    (
        "stacked_predict",
        "W[0,3,3] (mean of nothing)",
        lambda m: m.stacked_predict(arr(0, 3, 3), arr(3)),
    )
)
