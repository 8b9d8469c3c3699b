import jax.numpy as jnp
from adv_data import arr

CALLS = [
    (
        "log_metrics",
        "int32 step",
        lambda m: m.log_metrics(jnp.int32(42), jnp.float32(0.3333), jnp.float32(0.875)),
    ),
    ("log_metrics", "python step", lambda m: m.log_metrics(7, 1.25, 0.5)),
    ("log_norm", "grads[5]", lambda m: m.log_norm(arr(5))),
    ("log_norm", "grads[3,2] twice", lambda m: [m.log_norm(arr(3, 2, seed=s)) for s in (1, 2)]),
    ("log_repr", "f32[3]", lambda m: m.log_repr(arr(3))),
    ("log_repr", "int32 scalar", lambda m: m.log_repr(jnp.int32(5))),
]
