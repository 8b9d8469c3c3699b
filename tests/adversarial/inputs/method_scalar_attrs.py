import jax.numpy as jnp
from adv_data import arr


def _change_delta(m):
    h = m.Huber(delta=0.5)
    a = h.loss(arr(10), arr(10, seed=3))
    h.delta = 2.0
    return a, h.loss(arr(10), arr(10, seed=3))


CALLS = [
    ("Huber.loss", "default", lambda m: m.Huber().loss(arr(20), arr(20, seed=3))),
    (
        "Huber.loss",
        "delta 0.1 weight array",
        lambda m: m.Huber(0.1, jnp.float32(3.0)).loss(arr(4, 2), arr(4, 2, seed=3)),
    ),
    ("Huber.loss", "int delta", lambda m: m.Huber(1, 2.0).loss(arr(6), arr(6, seed=3))),
    ("Huber.loss", "delta changed", _change_delta),
    (
        "Huber.loss",
        "delta as array",
        lambda m: m.Huber(jnp.float32(0.7)).loss(arr(5), arr(5, seed=3)),
    ),
]
