import jax.numpy as jnp
from adv_data import arr


def spd(n, seed):
    m = arr(n, n, seed=seed)
    return m @ m.T + n * jnp.eye(n)


CALLS = [
    ("power_iteration", "spd 4x4", lambda m: m.power_iteration(spd(4, 1), arr(4, seed=2))),
    ("power_iteration", "spd 6x6 loose tol", lambda m: m.power_iteration(spd(6, 3), arr(6), 1e-2)),
    (
        "power_iteration",
        "capped at 3 steps",
        lambda m: m.power_iteration(spd(5, 4), arr(5), 1e-9, 3),
    ),
    ("power_iteration", "1x1", lambda m: m.power_iteration(jnp.eye(1) * 3.0, arr(1))),
]
