"""A standard scaler: attributes are None until fit, arrays afterwards."""

import jax
import jax.numpy as jnp


class StandardScaler:
    def __init__(self, with_mean=True):
        self.with_mean = with_mean
        self.mean_ = None
        self.scale_ = None

    def fit(self, X):
        self.mean_ = jnp.mean(X, axis=0)
        self.scale_ = jnp.std(X, axis=0) + 1e-6
        return self

    @jax.jit
    def transform(self, X):
        if self.with_mean:
            X = X - self.mean_
        return X / self.scale_

    @jax.jit
    def inverse_transform(self, Z):
        X = Z * self.scale_
        if self.with_mean:
            X = X + self.mean_
        return X
