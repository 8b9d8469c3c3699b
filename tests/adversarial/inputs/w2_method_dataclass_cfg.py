import dataclasses

import jax.numpy as jnp
from adv_data import arr


def _kernel(m, d=2, n_inducing=3, **kw):
    return m.RBFKernel(
        lengthscales=tuple(0.5 + 0.25 * i for i in range(d)),
        variance=1.5,
        inducing=[arr(d, seed=20 + i) for i in range(n_inducing)],
        extra={"scale": jnp.float32(2.0), "shift": arr(n_inducing, seed=3)},
        **kw,
    )


def _replaced(m):
    k = _kernel(m)
    k2 = dataclasses.replace(
        k,
        variance=0.25,
        n_refine=3,
        inducing=k.inducing[:2],
        extra={"scale": jnp.float32(-1.0), "shift": arr(2, seed=4)},
    )
    return k.gram(arr(4, 2)), k2.gram(arr(4, 2)), k.cross(arr(4, 2)), k2.cross(arr(4, 2))


CALLS = [
    ("RBFKernel.gram", "x[7,2]", lambda m: _kernel(m).gram(arr(7, 2))),
    ("RBFKernel.gram", "x[1,3] jitter 0.1", lambda m: _kernel(m, d=3, jitter=0.1).gram(arr(1, 3))),
    ("RBFKernel.cross", "x[5,2], 3 inducing", lambda m: _kernel(m).cross(arr(5, 2))),
    (
        "RBFKernel.cross",
        "x[1,1], 1 inducing, 0 refine",
        lambda m: _kernel(m, d=1, n_inducing=1, n_refine=0).cross(arr(1, 1)),
    ),
    (("RBFKernel.gram", "RBFKernel.cross"), "dataclasses.replace", _replaced),
    ("Standardizer.__call__", "defaults x[7,3]", lambda m: m.Standardizer()(arr(7, 3))),
    (
        "Standardizer.__call__",
        "axes (0, 1), no centering, bf16",
        lambda m: m.Standardizer(axes=(0, 1), center=False)(arr(3, 2, dtype="bfloat16")),
    ),
    ("Standardizer.__call__", "one row, eps 1", lambda m: m.Standardizer(eps=1.0)(arr(1, 4))),
]
