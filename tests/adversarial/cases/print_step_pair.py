"""A training step with two prints: rewritten one at a time, neither could verify."""

import jax
import jax.numpy as jnp


@jax.jit
def sgd_step(w, x, y):
    pred = x @ w
    loss = jnp.mean((pred - y) ** 2)
    print("loss", loss)
    grad = 2 * x.T @ (pred - y) / x.shape[0]
    print("step", jnp.abs(grad).max(), "of", grad.shape)
    return w - 0.05 * grad
