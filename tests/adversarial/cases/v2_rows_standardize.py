"""Host code that standardizes each row of a batch with a deterministic JAX helper (JAX305).

Traps for a comprehension → vmap rewrite:
- `standardize_batch` uses `jnp.array([...])`: on a batch with no rows the original returns
  `float32[0]`, a vmap returns `[0, d]`;
- rows may be scalars (a 1-D batch), integers (the mean makes them float), or hold NaN;
- `softmax_rows` keeps the helper's default temperature and stacks with `jnp.stack`.
"""

import jax
import jax.numpy as jnp


def standardize(row, eps=1e-6):
    mu = row.mean()
    sd = jnp.sqrt(jnp.mean((row - mu) ** 2) + eps)
    return (row - mu) / sd


def standardize_batch(X):
    X = jnp.asarray(X)
    return jnp.array([standardize(r) for r in X])


def softmax_row(row, temperature=0.5):
    z = row / temperature
    return jnp.exp(z - jax.nn.logsumexp(z))


def softmax_rows(logits):
    logits = jnp.asarray(logits)
    return jnp.stack([softmax_row(r) for r in logits])
