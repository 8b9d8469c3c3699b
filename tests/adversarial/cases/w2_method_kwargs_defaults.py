"""A regressor whose jitted methods take keyword arguments with defaults (JAX301).

The traps: `predict(x, scale=1.0, shift=0.0)` is called with the defaults, positionally and by
keyword, and with arrays; `huber` has a positional default `delta` and a keyword-only
`weights=None` tested with `is not None` (a Python test on a default: the helper must not make
it a traced argument that breaks the test), and it calls the jitted `predict` through `self`.
`l2` is a Python float attribute changed between calls."""

import jax
import jax.numpy as jnp


class Regressor:
    def __init__(self, w, b, l2=0.0):
        self.w = w
        self.b = b
        self.l2 = l2

    @jax.jit
    def predict(self, x, scale=1.0, shift=0.0):
        return (x @ self.w + self.b) * scale + shift

    @jax.jit
    def huber(self, x, y, delta=1.0, *, weights=None):
        r = self.predict(x) - y
        a = jnp.abs(r)
        loss = jnp.where(a < delta, 0.5 * r**2, delta * (a - 0.5 * delta))
        if weights is not None:
            loss = loss * weights
        return jnp.mean(loss) + self.l2 * jnp.sum(self.w**2)
