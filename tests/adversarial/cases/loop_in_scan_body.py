"""A Python loop over a row inside a lax.scan body (traced by scan, not jit)."""

import jax


def _step(carry, row):
    s = 0.0
    for v in row:
        s = s + v * v
    return carry + s, s


def row_energies(X):
    total, per_row = jax.lax.scan(_step, 0.0, X)
    return total, per_row


def _body(i, acc):
    return acc + i


@jax.jit
def fori_then_loop(x):
    base = jax.lax.fori_loop(0, 3, _body, 0.0)
    acc = base
    for v in x:
        acc = acc + v
    return acc
