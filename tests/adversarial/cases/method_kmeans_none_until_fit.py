"""K-means style assignment: centroids are None until fit."""

import jax
import jax.numpy as jnp


class KMeans:
    def __init__(self, k):
        self.k = k
        self.centroids = None

    def fit(self, X):
        self.centroids = X[: self.k]
        return self

    @jax.jit
    def predict(self, X):
        d = jnp.sum((X[:, None, :] - self.centroids[None, :, :]) ** 2, axis=-1)
        return jnp.argmin(d, axis=1)

    @jax.jit
    def inertia(self, X):
        d = jnp.sum((X[:, None, :] - self.centroids[None, :, :]) ** 2, axis=-1)
        return jnp.sum(jnp.min(d, axis=1))
