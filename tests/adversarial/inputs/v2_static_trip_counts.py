import jax.numpy as jnp
from adv_data import arr

CALLS = [
    ("scheduled_sgd", "w[3], grads[7,3]", lambda m: m.scheduled_sgd(arr(3), arr(7, 3))),
    ("scheduled_sgd", "w[2,2], grads[2,2,2]", lambda m: m.scheduled_sgd(arr(2, 2), arr(2, 2, 2))),
    (
        "scheduled_sgd",
        "int32 grads[4,3]",
        lambda m: m.scheduled_sgd(arr(3), arr(4, 3, dtype="int32")),
    ),
    ("truncated_return", "rewards[8], default horizon", lambda m: m.truncated_return(arr(8), 0.9)),
    (
        "truncated_return",
        "rewards[3], horizon 20",
        lambda m: m.truncated_return(arr(3), 0.5, horizon=20),
    ),
    (
        "truncated_return",
        "int32 rewards[6]",
        lambda m: m.truncated_return(arr(6, dtype="int32"), 0.8, horizon=6),
    ),
    (
        "truncated_return",
        "f32 gamma, rewards[4,2]",
        lambda m: m.truncated_return(arr(4, 2), jnp.float32(0.7)),
    ),
    ("truncated_return", "horizon=0", lambda m: m.truncated_return(arr(4), 0.9, horizon=0)),
    (("smooth", "window_means"), "x[9]", lambda m: m.smooth(arr(9))),
    (("smooth", "window_means"), "x[4,2]", lambda m: m.smooth(arr(4, 2))),
    ("window_means", "x[7], window 2 eager", lambda m: m.window_means(arr(7), 2)),
    ("poly_eval", "coeffs[4], x[5]", lambda m: m.poly_eval(arr(4), arr(5))),
    ("poly_eval", "coeffs[3], degree 2", lambda m: m.poly_eval(arr(3), arr(2), degree=2)),
]
CALLS.append(("truncated_return", "rewards[0]", lambda m: m.truncated_return(arr(0), 0.9)))
