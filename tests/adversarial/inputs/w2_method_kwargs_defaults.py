import jax.numpy as jnp
from adv_data import arr


def _reg(m, l2=0.0):
    return m.Regressor(arr(3), jnp.float32(0.2), l2)


def _l2_changed(m):
    r = _reg(m, 0.1)
    a = r.huber(arr(4, 3), arr(4, seed=2))
    r.l2 = 0.5
    return a, r.huber(arr(4, 3), arr(4, seed=2))


CALLS = [
    ("Regressor.predict", "defaults x[7,3]", lambda m: _reg(m).predict(arr(7, 3))),
    ("Regressor.predict", "positional scale 2", lambda m: _reg(m).predict(arr(1, 3), 2)),
    (
        "Regressor.predict",
        "keyword shift array, scale kw",
        lambda m: _reg(m).predict(arr(2, 3), shift=arr(2, seed=4), scale=-1.0),
    ),
    ("Regressor.predict", "int32 x", lambda m: _reg(m).predict(arr(5, 3, dtype="int32"))),
    (
        ("Regressor.huber", "Regressor.predict"),
        "defaults",
        lambda m: _reg(m).huber(arr(6, 3), arr(6, seed=2)),
    ),
    (
        ("Regressor.huber", "Regressor.predict"),
        "delta 0.1 positional, weights kw",
        lambda m: _reg(m, 0.01).huber(arr(6, 3), arr(6, seed=2), 0.1, weights=arr(6, seed=5) ** 2),
    ),
    (
        ("Regressor.huber", "Regressor.predict"),
        "nan target, delta int",
        lambda m: _reg(m).huber(arr(2, 3), jnp.array([jnp.nan, 1.0]), 2),
    ),
    (("Regressor.huber", "Regressor.predict"), "l2 changed", _l2_changed),
]
