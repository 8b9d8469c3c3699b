"""A two-state Markov chain driven by pre-drawn uniforms."""

import jax
import jax.numpy as jnp


@jax.jit
def markov_chain(uniforms, stay_prob):
    state = 0
    states = []
    for u in uniforms:
        state = jnp.where(u < stay_prob[state], state, 1 - state)
        states.append(state)
    return jnp.array(states)


@jax.jit
def inverse_cdf_samples(uniforms, cdf):
    samples = []
    for u in uniforms:
        samples.append(jnp.sum(cdf < u))
    return jnp.stack(samples)
