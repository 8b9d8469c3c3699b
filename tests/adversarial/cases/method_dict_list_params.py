"""Parameters held as a dict and as a list of layer tuples (unhashable: must be traced)."""

import jax


class Model:
    def __init__(self, params, layers):
        self.params = params
        self.layers = layers

    @jax.jit
    def head(self, x):
        return x @ self.params["w"] + self.params["b"]

    @jax.jit
    def body(self, x):
        for w, b in self.layers:
            x = jax.nn.relu(x @ w + b)
        return x
