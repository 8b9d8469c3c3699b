"""Comprehensions bound to a name and stacked later: polar points, weights, features."""

import jax
import jax.numpy as jnp


@jax.jit
def polar_points(radii, angles):
    xs = [radii[i] * jnp.cos(angles[i]) for i in range(radii.shape[0])]
    ys = [radii[i] * jnp.sin(angles[i]) for i in range(radii.shape[0])]
    return jnp.array([xs, ys])


@jax.jit
def doubled_counts(counts):
    # int rows: an empty list stacks to float32, mapped int rows stay int32
    doubled = [counts[i] * 2 for i in range(len(counts))]
    return jnp.array([doubled, doubled])


@jax.jit
def weighted(x, w):
    # `w` shorter than `x` makes the comprehension read past its end
    terms = [x[i] * w[i] for i in range(len(x))]
    return jnp.stack(terms)


@jax.jit
def ramp(x):
    # the index is a number here, not only an index: it must stay weakly typed
    ramped = [i * x[i] + 1 for i in range(x.shape[0])]
    return jnp.asarray(ramped), len(ramped)


@jax.jit
def pairs(x):
    both = [(x[i], x[i] ** 2) for i in range(len(x))]
    return jnp.array(both)


@jax.jit
def window_sums(x):
    sums = [x[i : i + 2].sum() for i in range(x.shape[0] - 1)]
    return jnp.stack(sums)


@jax.jit
def column_features(batch):
    batch = jnp.asarray(batch)
    feats = [jnp.tanh(row) * row.mean() for row in batch]
    return jnp.stack(feats, axis=1)
