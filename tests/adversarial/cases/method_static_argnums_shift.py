"""Methods jitted with static_argnums / donate_argnums that count `self`."""

from functools import partial

import jax
import jax.numpy as jnp


class Pooler:
    def __init__(self, weights):
        self.weights = weights

    @partial(jax.jit, static_argnums=(2,))
    def pool(self, x, window):
        n = x.shape[0] // window
        return jnp.mean(x[: n * window].reshape(n, window) * self.weights[:window], axis=1)

    @partial(jax.jit, static_argnames=("mode",))
    def reduce(self, x, mode="sum"):
        if mode == "sum":
            return jnp.sum(x * self.weights[0])
        return jnp.max(x * self.weights[0])


class SGD:
    def __init__(self, lr):
        self.lr = lr

    @partial(jax.jit, donate_argnums=(1,))
    def update(self, params, grads):
        return jax.tree_util.tree_map(lambda p, g: p - self.lr * g, params, grads)
