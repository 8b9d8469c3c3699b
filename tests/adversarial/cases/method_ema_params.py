"""An exponential moving average of parameters, updated outside and read inside jit."""

import jax


class EMA:
    def __init__(self, params, decay=0.99):
        self.decay = decay
        self.shadow = params

    @jax.jit
    def blended(self, params):
        return jax.tree_util.tree_map(
            lambda s, p: self.decay * s + (1.0 - self.decay) * p, self.shadow, params
        )

    def update(self, params):
        self.shadow = self.blended(params)
        return self.shadow
