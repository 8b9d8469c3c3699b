"""Elman RNN whose parameters are a dict of matrices (`W_xh`, `W_hh`, `b`, `W_hy`).

Traps for a loop → scan rewrite:
- the body reads the matrices out of a dict it closes over: they are constants of every step,
  not sequences to slice;
- `run_rnn` starts the hidden state with `jnp.zeros_like(params["b"])`: with bfloat16
  parameters and float32 inputs the first step widens it to float32 (a contraction operand);
- `encode` is handed one hidden state `h0[H]` for a batch of sequences `xs[T, B, I]`: the first
  step broadcasts the carry to `[B, H]`, a shape change a scan carry does not allow;
- `readout` iterates the time steps directly (`for x_t in xs`) and stacks a projection of the
  state, not the state itself.
`demo` shows how the module is meant to be called.
"""

import jax
import jax.numpy as jnp


def cell(params, x_t, h):
    return jnp.tanh(x_t @ params["W_xh"] + h @ params["W_hh"] + params["b"])


@jax.jit
def run_rnn(params, xs):
    h = jnp.zeros_like(params["b"])
    hs = []
    for t in range(xs.shape[0]):
        h = jnp.tanh(xs[t] @ params["W_xh"] + h @ params["W_hh"] + params["b"])
        hs.append(h)
    return jnp.stack(hs), h


@jax.jit
def encode(params, xs, h0):
    h = h0
    for t in range(xs.shape[0]):
        h = cell(params, xs[t], h)
    return h


@jax.jit
def readout(params, xs: jax.Array, leak=0.5):
    h = jnp.zeros(params["W_hh"].shape[0])
    ys = []
    for x_t in xs:
        h = (1.0 - leak) * h + leak * cell(params, x_t, h)
        ys.append(h @ params["W_hy"])
    return jnp.array(ys)


def demo():
    params = {
        "W_xh": jax.random.normal(jax.random.PRNGKey(1), (3, 8)),
        "W_hh": jax.random.normal(jax.random.PRNGKey(2), (8, 8)),
        "b": jnp.zeros(8),
        "W_hy": jax.random.normal(jax.random.PRNGKey(3), (8, 2)),
    }
    xs = jax.random.normal(jax.random.PRNGKey(0), (10, 3))
    h0 = jnp.zeros(8)
    hs, h = run_rnn(params, xs)
    return hs, encode(params, xs, h0), readout(params, xs)
