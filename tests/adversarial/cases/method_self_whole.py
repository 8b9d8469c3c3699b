"""Methods that use `self` as a whole object, or take *args / **kwargs."""

import jax
import jax.numpy as jnp


def _energy(model, x):
    return jnp.sum((x * model.w) ** 2)


class Spring:
    def __init__(self, w):
        self.w = w

    @jax.jit
    def energy(self, x):
        return _energy(self, x)

    @jax.jit
    def combine(self, *xs):
        total = 0.0
        for x in xs:
            total = total + x * self.w
        return total

    @jax.jit
    def scaled(self, x, **options):
        return x * self.w * options.get("factor", 1.0)
