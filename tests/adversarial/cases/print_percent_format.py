"""Training steps that log with %-formatting."""

import jax
import jax.numpy as jnp


@jax.jit
def train_step(w, x, y):
    pred = x @ w
    loss = jnp.mean((pred - y) ** 2)
    print("loss %.4f" % loss)
    grad = 2 * x.T @ (pred - y) / x.shape[0]
    return w - 0.1 * grad


@jax.jit
def progress(step, total):
    print("step %d of %d" % (step, total))
    return step + 1


@jax.jit
def report(loss):
    print("loss=%s" % loss)
    return loss * 2
