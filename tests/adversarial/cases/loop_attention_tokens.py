"""Single-head attention computed one query token at a time."""

import jax
import jax.numpy as jnp


@jax.jit
def attend(Q, K, V):
    outputs = []
    for q in Q:
        scores = K @ q / jnp.sqrt(q.shape[0])
        weights = jax.nn.softmax(scores)
        outputs.append(weights @ V)
    return jnp.stack(outputs)


@jax.jit
def attention_entropy(Q, K):
    total = 0.0
    for t in range(Q.shape[0]):
        p = jax.nn.softmax(K @ Q[t])
        total = total - jnp.sum(p * jnp.log(p + 1e-9))
    return total / Q.shape[0]
