"""A jitted training step with several log lines and a loss printed via str()."""

import jax
import jax.numpy as jnp


def _loss(w, x, y):
    return jnp.mean((x @ w - y) ** 2)


@jax.jit
def train_step(w, x, y, lr):
    loss, g = jax.value_and_grad(_loss)(w, x, y)
    print("loss: " + str(loss))
    w = w - lr * g
    print(f"|w|={jnp.linalg.norm(w):.4f}")
    return w, loss
