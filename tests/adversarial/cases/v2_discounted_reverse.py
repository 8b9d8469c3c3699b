"""Backward recurrences for RL targets: discounted returns and TD(lambda) returns.

Traps for a loop → scan rewrite:
- `discounted_returns` fills a preallocated `[None] * n` list at slot `t` while walking
  `reversed(range(n))`; `dones` may be bool (`1 - done` on a bool) or int;
- `lambda_returns` bootstraps from `values[-1]` (values has one more row than rewards), walks
  `range(T - 1, -1, -1)`, appends, and then calls `out.reverse()` — a LIST method, after the
  loop, that an array does not have;
- `reward_to_go` iterates `rewards[::-1]` and stacks `outs[::-1]`.
"""

import jax
import jax.numpy as jnp


@jax.jit
def discounted_returns(rewards, dones, gamma=0.99):
    n = rewards.shape[0]
    ret = 0.0
    returns = [None] * n
    for t in reversed(range(n)):
        ret = rewards[t] + gamma * ret * (1 - dones[t])
        returns[t] = ret
    return jnp.stack(returns)


@jax.jit
def lambda_returns(rewards, values, gamma, lam):
    T = rewards.shape[0]
    g = values[-1]
    out = []
    for t in range(T - 1, -1, -1):
        g = rewards[t] + gamma * ((1.0 - lam) * values[t + 1] + lam * g)
        out.append(g)
    out.reverse()
    return jnp.stack(out)


@jax.jit
def reward_to_go(rewards: jax.Array, gamma):
    ret = 0.0
    outs = []
    for r in rewards[::-1]:
        ret = r + gamma * ret
        outs.append(ret)
    return jnp.array(outs[::-1])
