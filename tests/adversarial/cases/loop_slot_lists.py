"""Per-step outputs written into preallocated lists, `out[t] = v`: GAE with a bootstrapped last
slot, forward and backward fills, a first slot set before the loop, a list one longer than the
loop, and lists whose layout no rewrite may assume."""

import jax
import jax.numpy as jnp


@jax.jit
def gae_slots(values, rewards, done, gamma, lamb):
    T = values.shape[0]
    adv = jnp.where(done[-1], rewards[-1] - values[-1], rewards[-1])
    result = [None] * T
    result[-1] = adv
    for t in range(T - 2, -1, -1):
        delta = rewards[t] + gamma * values[t + 1] * ~done[t] - values[t]
        adv = delta + lamb * gamma * adv * ~done[t]
        result[t] = adv
    return jnp.stack(result)


@jax.jit
def discounted_returns(rewards, gamma):
    n = rewards.shape[0]
    returns = [0.0] * n
    running = 0.0
    for t in reversed(range(n)):
        running = rewards[t] + gamma * running
        returns[t] = running
    return jnp.array(returns)


@jax.jit
def prefix_max(xs):
    n = len(xs)
    out = [None] * n
    out[0] = xs[0]
    best = xs[0]
    for i in range(1, n):
        best = jnp.maximum(best, xs[i])
        out[i] = best
    return jnp.stack(out, axis=1) if xs.ndim > 1 else jnp.stack(out)


@jax.jit
def with_spare_slot(xs, scale):
    n = xs.shape[0]
    rows = [jnp.zeros_like(xs[0]) for _ in range(n + 1)]
    total = jnp.zeros_like(xs[0])
    for i in range(n):
        total = total + scale * xs[i]
        rows[i] = total
    return jnp.stack(rows)


@jax.jit
def counts_as_ints(xs):
    n = xs.shape[0]
    seen = [None] * n
    k = 0
    for i in range(n):
        k = k + 1
        seen[i] = k * xs[i]
    return jnp.stack(seen)


@jax.jit
def inner_slots(xs):
    # the middle slots only: the first and last stay as created
    n = xs.shape[0]
    out = [xs[0]] * n
    for i in range(1, n - 1):
        out[i] = 0.5 * (xs[i - 1] + xs[i + 1])
    return jnp.stack(out)


@jax.jit
def reads_previous_slot(xs):
    n = xs.shape[0]
    out = [xs[0]] * n
    for i in range(1, n):
        out[i] = out[i - 1] * 0.9 + xs[i]
    return jnp.stack(out)
