"""A deep ensemble: a tuple of SAME-shaped weight matrices, and the same weights stacked.

`ensemble_predict` indexes the members by position; called with a tuple of square matrices,
`lax.scan` over that tuple would not iterate the members but the ROWS of each matrix (a scan
slices every leaf of its pytree along axis 0), and with square matrices the shapes still line
up. `average_updates` adds the members of a list of updates. `stacked_predict` receives one
stacked array (annotated) and may be scanned. `mixture_logpdf` loops over an array of
mixture log-weights and reads a TUPLE of component means with the same index.
"""

import jax
import jax.numpy as jnp


@jax.jit
def ensemble_predict(weights, x):
    preds = []
    for i in range(len(weights)):
        preds.append(jnp.tanh(x @ weights[i]))
    preds = jnp.stack(preds)
    return preds.mean(axis=0), preds.std(axis=0)


@jax.jit
def average_updates(updates, scale):
    acc = 0.0
    for i in range(len(updates)):
        acc = acc + scale * updates[i]
    return acc / len(updates)


@jax.jit
def stacked_predict(W: jax.Array, x):
    total = jnp.zeros(W.shape[-1])
    for i in range(W.shape[0]):
        total = total + jnp.tanh(x @ W[i])
    return total / W.shape[0]


@jax.jit
def mixture_logpdf(x, log_weights: jax.Array, means):
    terms = []
    for k in range(log_weights.shape[0]):
        terms.append(log_weights[k] - 0.5 * jnp.sum((x - means[k]) ** 2))
    return jax.nn.logsumexp(jnp.stack(terms))
