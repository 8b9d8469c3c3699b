"""A smoother whose hyperparameters are Python numbers, a tuple and an Optional float (JAX301).

The traps: `n_passes` (an int) drives a Python `range`, `pad` (a tuple) is a `jnp.pad` width,
and `clip` is tested with `is not None`: all three must be static, while `alpha` (a Python float
here, an array in another instance) may be either. The attributes are reassigned between calls
on one instance, so a helper keyed on `self` or on stale values gives old results."""

import jax
import jax.numpy as jnp


class Smoother:
    def __init__(self, alpha, n_passes, pad=(0, 0), clip=None):
        self.alpha = alpha
        self.n_passes = n_passes
        self.pad = pad
        self.clip = clip

    @jax.jit
    def smooth(self, x):
        y = jnp.pad(x, self.pad, mode="edge")
        for _ in range(self.n_passes):
            y = self.alpha * y + (1 - self.alpha) * jnp.roll(y, 1)
        if self.clip is not None:
            y = jnp.clip(y, -self.clip, self.clip)
        return y
