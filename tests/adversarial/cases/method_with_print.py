"""A jitted method that also prints: the method and the print both need fixing."""

import jax
import jax.numpy as jnp


class Trainer:
    def __init__(self, w, lr):
        self.w = w
        self.lr = lr

    @jax.jit
    def step(self, x, y):
        loss = jnp.mean((x @ self.w - y) ** 2)
        print("loss", loss)
        return loss

    @jax.jit
    def predict(self, x):
        out = x @ self.w
        print(f"predict: mean={jnp.mean(out)} lr={self.lr}")
        return out
