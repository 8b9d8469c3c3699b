"""An Elman RNN unrolled over a sequence of input vectors."""

import jax
import jax.numpy as jnp


@jax.jit
def rnn_forward(W_h, W_x, b, xs):
    h = jnp.zeros(W_h.shape[0])
    hs = []
    for x_t in xs:
        h = jnp.tanh(W_h @ h + W_x @ x_t + b)
        hs.append(h)
    return jnp.stack(hs), h


@jax.jit
def rnn_last(W_h, W_x, h0, xs):
    h = h0
    for t in range(xs.shape[0]):
        h = jnp.tanh(W_h @ h + W_x @ xs[t])
    return h
