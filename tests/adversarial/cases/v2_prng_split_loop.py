"""Noise injection with a PRNG key split inside the loop, one draw per step.

Traps for a loop → scan rewrite:
- the key is a carry that is split every step (`key, sub = jax.random.split(key)`): it must be
  carried, not cast or broadcast like a numeric accumulator, and callers pass both raw
  `PRNGKey` arrays (uint32[2]) and typed keys (`jax.random.key`);
- `noisy_rollout` draws noise of the row's shape and returns the final key;
- `langevin` splits into three keys and only uses two;
- `dropout_steps` derives each step's key with `fold_in(key, t)` from the Python index.
"""

import jax
import jax.numpy as jnp


@jax.jit
def noisy_rollout(key, xs, sigma):
    out = []
    for t in range(xs.shape[0]):
        key, sub = jax.random.split(key)
        out.append(xs[t] + sigma * jax.random.normal(sub, xs[t].shape))
    return jnp.stack(out), key


@jax.jit
def langevin(key, x0, curvatures: jax.Array, eps):
    x = x0
    samples = []
    for c in curvatures:
        key, k_noise, _unused = jax.random.split(key, 3)
        x = x - eps * c * x + jnp.sqrt(2.0 * eps) * jax.random.normal(k_noise, jnp.shape(x))
        samples.append(x)
    return jnp.stack(samples)


@jax.jit
def dropout_steps(key, hs, rate):
    kept = 0.0
    for t in range(hs.shape[0]):
        keep = jax.random.bernoulli(jax.random.fold_in(key, t), 1.0 - rate, hs[t].shape)
        kept = kept + jnp.where(keep, hs[t] / (1.0 - rate), 0.0)
    return kept
