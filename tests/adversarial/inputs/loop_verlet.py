import jax.numpy as jnp
from adv_data import arr

CALLS = [
    (
        "integrate",
        "pos[3] 25 steps",
        lambda m: m.integrate(arr(3), arr(3, seed=2), jnp.full(25, 0.05), 2.0),
    ),
    (
        "integrate",
        "pos[2,2] 1 step",
        lambda m: m.integrate(arr(2, 2), arr(2, 2, seed=2), jnp.full(1, 0.1), 1.0),
    ),
    (
        "integrate",
        "scalar pos 6 steps",
        lambda m: m.integrate(jnp.float32(1.0), 0.0, jnp.linspace(0.01, 0.1, 6), 3.0),
    ),
    (
        "total_energy_drift",
        "pos[4] 30 steps",
        lambda m: m.total_energy_drift(arr(4), arr(4, seed=5), jnp.full(30, 0.02)),
    ),
    (
        "total_energy_drift",
        "pos[3] 0 steps",
        lambda m: m.total_energy_drift(arr(3), arr(3, seed=5), jnp.zeros(0)),
    ),
]
