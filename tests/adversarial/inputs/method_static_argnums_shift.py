import jax
import jax.numpy as jnp
from adv_data import arr


def _update_thrice(m):
    """Each update donates `params` (fresh every call) but never `grads` (reused)."""
    opt = m.SGD(0.1)
    params = {"w": arr(3, 2), "b": arr(2, seed=1)}
    grads = {"w": arr(3, 2, seed=2), "b": arr(2, seed=3)}
    sums = []
    for lr in (0.1, 0.1, 0.5):
        opt.lr = lr
        params = opt.update(params, grads)
        sums.append(jax.tree_util.tree_map(jnp.sum, params))
    return params, sums, grads


CALLS = [
    ("Pooler.pool", "x[12] window 3", lambda m: m.Pooler(arr(5, seed=1)).pool(arr(12), 3)),
    ("Pooler.pool", "x[7] window 2", lambda m: m.Pooler(arr(5, seed=1)).pool(arr(7), 2)),
    (
        "Pooler.pool",
        "x[10] window 5 twice",
        lambda m: [m.Pooler(arr(5, seed=1)).pool(arr(10), 5) for _ in range(2)],
    ),
    ("Pooler.reduce", "sum", lambda m: m.Pooler(arr(2, seed=4)).reduce(arr(6))),
    ("Pooler.reduce", "max", lambda m: m.Pooler(arr(2, seed=4)).reduce(arr(6), mode="max")),
    ("Pooler.reduce", "positional max", lambda m: m.Pooler(jnp.ones(1)).reduce(arr(3, 3), "max")),
    ("SGD.update", "three updates, lr changed, grads reused", _update_thrice),
    (
        "SGD.update",
        "list params",
        lambda m: m.SGD(0.01).update([arr(4), arr(2, 2)], [arr(4, seed=8), arr(2, 2, seed=9)]),
    ),
]
