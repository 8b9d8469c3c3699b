"""Methods jitted on plain (unregistered) dataclasses holding mixed fields (JAX301).

The traps: a `@dataclass` is unhashable, so `self` can be neither traced nor static; its fields
are a tuple of Python floats, a Python float, a list of arrays, a dict of arrays and an int
used in `range`. The list and dict must be traced (unhashable), the int static, and
`dataclasses.replace` builds a new instance whose values the fix must see. The frozen
dataclass hashes by value, so two equal configs share one compile but a changed field not."""

import dataclasses

import jax
import jax.numpy as jnp


@dataclasses.dataclass
class RBFKernel:
    lengthscales: tuple
    variance: float
    inducing: list
    extra: dict
    jitter: float = 1e-6
    n_refine: int = 1

    @jax.jit
    def gram(self, x):
        d = (x[:, None, :] - x[None, :, :]) / jnp.asarray(self.lengthscales)
        K = self.variance * jnp.exp(-0.5 * jnp.sum(d**2, axis=-1))
        return K + self.jitter * jnp.eye(x.shape[0])

    @jax.jit
    def cross(self, x):
        cols = [jnp.exp(-jnp.sum((x - z) ** 2, axis=-1)) for z in self.inducing]
        K = jnp.stack(cols, axis=-1) * self.extra["scale"] + self.extra["shift"]
        for _ in range(self.n_refine):
            K = K / (1.0 + jnp.abs(K))
        return K


@dataclasses.dataclass(frozen=True)
class Standardizer:
    axes: tuple = (0,)
    eps: float = 1e-5
    center: bool = True

    @jax.jit
    def __call__(self, x):
        mu = jnp.mean(x, axis=self.axes, keepdims=True) if self.center else 0.0
        sd = jnp.std(x, axis=self.axes, keepdims=True)
        return (x - mu) / (sd + self.eps)
