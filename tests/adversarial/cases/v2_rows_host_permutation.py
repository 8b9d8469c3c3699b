"""Per-row augmentation drawing host-side NumPy randomness (JAX305).

Each row gets its own permutation / dropout mask from `np.random`: a vmap traces the helper
once, so every row would get the SAME permutation and mask. Seeded by the caller, the original
is reproducible; its outputs depend on how many times the helper is called.
"""

import jax.numpy as jnp
import numpy as np


def shuffle_features(row):
    perm = np.random.permutation(row.shape[0])
    return jnp.take(row, perm)


def shuffle_batch(X):
    X = jnp.asarray(X)
    return jnp.stack([shuffle_features(r) for r in X])


def feature_dropout(row, p=0.3):
    keep = np.random.rand(*row.shape) >= p
    return jnp.where(keep, row / (1.0 - p), 0.0)


def dropout_batch(X):
    X = jnp.asarray(X, dtype=jnp.float32)
    return jnp.stack([feature_dropout(r) for r in X])
