"""Reverse-time recurrences as RL code writes them: GAE, returns-to-go, TD(λ) targets."""

import jax
import jax.numpy as jnp


@jax.jit
def gae_appended(rewards, values, dones, gamma, lam):
    # `values` has one more entry than `rewards` (the bootstrap value), or the same length,
    # when `values[t + 1]` reads past the end and JAX clamps it to the last entry
    advantages = []
    gae = 0.0
    for t in reversed(range(len(rewards))):
        delta = rewards[t] + gamma * values[t + 1] * (1 - dones[t]) - values[t]
        gae = delta + gamma * lam * (1 - dones[t]) * gae
        advantages.append(gae)
    advantages = jnp.array(advantages[::-1])
    return advantages, advantages + values[:-1]


@jax.jit
def gae_prepended(rewards, values, dones, gamma, lam):
    advantages = []
    gae = 0.0
    for t in reversed(range(len(rewards))):
        nonterminal = 1.0 - dones[t]
        delta = rewards[t] + gamma * values[t + 1] * nonterminal - values[t]
        gae = delta + gamma * lam * nonterminal * gae
        advantages.insert(0, gae)
    return jnp.stack(advantages)


def returns_to_go(rewards, gamma):
    # called from a jitted caller: traced; integer rewards make an int count when gamma is 1
    running = 0
    returns = []
    for t in reversed(range(rewards.shape[0])):
        running = rewards[t] + gamma * running
        returns.append(running)
    return jnp.array(returns[::-1])


@jax.jit
def episode_returns(rewards):
    return returns_to_go(rewards, 1)


@jax.jit
def discounted_episode_returns(rewards):
    return returns_to_go(rewards, 0.99)


@jax.jit
def td_lambda_targets(rewards, values, lam):
    # the loop starts one before the end; the last target is the last value
    targets = []
    target = values[-1]
    for t in reversed(range(1, rewards.shape[0])):
        target = rewards[t - 1] + 0.99 * ((1 - lam) * values[t] + lam * target)
        targets.append(target)
    return jnp.stack(targets[::-1], axis=1), len(targets)


@jax.jit
def decayed_index_weights(x):
    # the index is a number too: it must stay a weakly typed int (float16 stays float16)
    total = jnp.zeros_like(x[0])
    weights = []
    for t in reversed(range(x.shape[0])):
        total = total * 0.5 + t * x[t]
        weights.append(total)
    return jnp.asarray(weights)
