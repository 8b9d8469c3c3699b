"""One epoch of per-example SGD on a linear model: the carry is the weight vector."""

import jax
import jax.numpy as jnp


def _grad(x, y, w):
    return 2.0 * (x @ w - y) * x


@jax.jit
def sgd_epoch(X, y, w, lr):
    losses = []
    for i in range(X.shape[0]):
        losses.append((X[i] @ w - y[i]) ** 2)
        w = w - lr * _grad(X[i], y[i], w)
    return w, jnp.stack(losses)


@jax.jit
def covariance(X):
    cov = jnp.zeros((X.shape[1], X.shape[1]))
    for r in X:
        cov = cov + jnp.outer(r, r)
    return cov / X.shape[0]


@jax.jit
def product_and_diff(x):
    prod = 1.0
    acc = 0.0
    for v in x:
        prod *= v
        acc -= v
    return prod, acc
