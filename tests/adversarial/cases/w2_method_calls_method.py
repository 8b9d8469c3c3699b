"""An MLP whose jitted methods call other methods, one of them jitted too (JAX301).

The traps: `__call__` reads its weights through a plain method (`features`) which itself calls
`_act`, which reads a string attribute: the attributes the helper needs are read two calls
deep. `logits_and_probs` calls the jitted `__call__` through `self(x)`. `act` is changed on an
instance between calls."""

import jax
import jax.numpy as jnp


class MLP:
    def __init__(self, w1, b1, w2, act="relu"):
        self.w1 = w1
        self.b1 = b1
        self.w2 = w2
        self.act = act

    def _act(self, h):
        return jax.nn.relu(h) if self.act == "relu" else jnp.tanh(h)

    def features(self, x):
        return self._act(x @ self.w1 + self.b1)

    @jax.jit
    def __call__(self, x):
        return self.features(x) @ self.w2

    @jax.jit
    def logits_and_probs(self, x):
        z = self(x)
        return z, jax.nn.softmax(z, axis=-1)
