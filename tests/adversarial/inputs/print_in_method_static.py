import jax.numpy as jnp
from adv_data import arr

CALLS = [
    ("log_power", "x[4] p=2", lambda m: m.log_power(arr(4), 2)),
    (
        "log_power",
        "x[2,2] p=3 twice",
        lambda m: [m.log_power(arr(2, 2, seed=s), 3) for s in (1, 2)],
    ),
    (("branch", "_pos", "_neg"), "positive", lambda m: m.branch(jnp.float32(1.5))),
    (("branch", "_pos", "_neg"), "negative", lambda m: m.branch(jnp.float32(-2.0))),
]
