"""Squared-error loss of a linear model, one example at a time."""

import jax
import jax.numpy as jnp


@jax.jit
def mse_loop(X, y, w):
    loss = 0.0
    for i in range(X.shape[0]):
        loss = loss + (X[i] @ w - y[i]) ** 2
    return loss / X.shape[0]


@jax.jit
def hinge_loop(X, y, w, b):
    total = 0
    for i in range(len(X)):
        margin = y[i] * (jnp.dot(X[i], w) + b)
        total += jnp.maximum(0.0, 1.0 - margin)
    return total
