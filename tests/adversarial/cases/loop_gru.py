"""A GRU cell stepped over a sequence."""

import jax
import jax.numpy as jnp


def _sigmoid(x):
    return 1.0 / (1.0 + jnp.exp(-x))


@jax.jit
def gru_sequence(params, xs, h0):
    h = h0
    outputs = []
    for x in xs:
        z = _sigmoid(params["Wz"] @ x + params["Uz"] @ h)
        r = _sigmoid(params["Wr"] @ x + params["Ur"] @ h)
        h_tilde = jnp.tanh(params["Wh"] @ x + params["Uh"] @ (r * h))
        h = (1 - z) * h + z * h_tilde
        outputs.append(h)
    return jnp.stack(outputs)
