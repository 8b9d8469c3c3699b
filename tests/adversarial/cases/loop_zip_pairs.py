"""Dot products and pairwise sums written with zip."""

import jax


@jax.jit
def zip_dot(xs, ys):
    dot = 0.0
    for a, b in zip(xs, ys):
        dot = dot + a * b
    return dot


@jax.jit
def zip_weighted_rows(weights, rows):
    acc = 0.0
    for w, r in zip(weights, rows):
        acc = acc + w * r
    return acc
