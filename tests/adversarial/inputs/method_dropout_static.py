import jax
from adv_data import arr


def _toggle(m):
    d = m.Dropout(0.5)
    key = jax.random.PRNGKey(7)
    a = d(arr(6), key, training=True)
    d.rate = 0.0
    b = d(arr(6), key, training=True)
    d.rate = 0.25
    return a, b, d(arr(6), key, training=True), d(arr(6), key)


CALLS = [
    ("Dropout.__call__", "eval mode", lambda m: m.Dropout(0.3)(arr(5), jax.random.PRNGKey(1))),
    (
        "Dropout.__call__",
        "training x[4,3]",
        lambda m: m.Dropout(0.3)(arr(4, 3), jax.random.PRNGKey(1), training=True),
    ),
    (
        "Dropout.__call__",
        "training positional",
        lambda m: m.Dropout(0.6)(arr(8), jax.random.PRNGKey(2), True),
    ),
    ("Dropout.__call__", "rate changes", _toggle),
]
