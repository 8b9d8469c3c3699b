"""A policy base class whose jitted method reads class attributes subclasses override (JAX301).

The traps: `temperature` and `n_actions` are *class* attributes; `GreedyPolicy` overrides
`temperature`, `MaskedPolicy` overrides `n_actions` (a slice bound: must be static) and the
`transform` method `probs` calls, and `LearnedTempPolicy` stores an *array* as
`temperature` in its `__init__`. A module-level helper must read each instance's own values
and still call the subclass's `transform`."""

import jax
import jax.numpy as jnp


class Policy:
    temperature = 1.0
    n_actions = 3

    def __init__(self, W):
        self.W = W

    def transform(self, logits):
        return logits

    @jax.jit
    def probs(self, obs):
        logits = self.transform(obs @ self.W) / self.temperature
        return jax.nn.softmax(logits[..., : self.n_actions], axis=-1)

    @jax.jit
    def scores(self, obs):
        return (obs @ self.W)[..., : self.n_actions] / self.temperature


class GreedyPolicy(Policy):
    temperature = 0.1


class MaskedPolicy(Policy):
    n_actions = 2

    def transform(self, logits):
        return jnp.where(logits < 0, logits - 10.0, logits)


class LearnedTempPolicy(Policy):
    def __init__(self, W, log_temp):
        super().__init__(W)
        self.temperature = jnp.exp(log_temp)
