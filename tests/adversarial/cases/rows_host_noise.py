"""Augmentation: every row gets its own host-side noise (np.random), then a JAX transform.

Turned into `jax.vmap`, the row function would draw once for the whole batch: every row the
same noise. The original is nondeterministic, so no comparison of outputs can prove a rewrite."""

import jax.numpy as jnp
import numpy as np


def jitter_row(row):
    noise = np.random.normal(scale=0.1, size=row.shape).astype(np.float32)
    return jnp.tanh(row + noise)


def augment(batch):
    batch = jnp.asarray(batch)
    return jnp.stack([jitter_row(r) for r in batch])
