"""Least squares by gradient descent until the gradient is small: int or float weights."""

import jax
import jax.numpy as jnp


@jax.jit
def fit(w, X, y, lr=0.1, tol=1e-3, max_iter=300):
    residual = X @ w - y
    grad = X.T @ residual / X.shape[0]
    it = 0
    while (jnp.linalg.norm(grad) > tol) & (it < max_iter):
        w = w - lr * grad
        residual = X @ w - y
        grad = X.T @ residual / X.shape[0]
        it += 1
    return w, jnp.mean(residual**2), it
