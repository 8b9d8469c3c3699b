import jax
import jax.numpy as jnp
from adv_data import arr


def raw(seed):
    return jax.random.PRNGKey(seed)


def typed(seed):
    return jax.random.key(seed)


def rollout_typed(m, xs, sigma):
    out, key = m.noisy_rollout(typed(3), xs, sigma)
    return out, jax.random.key_data(key)


CALLS = [
    ("noisy_rollout", "raw key, xs[5,3]", lambda m: m.noisy_rollout(raw(0), arr(5, 3), 0.1)),
    ("noisy_rollout", "raw key, xs[1,2]", lambda m: m.noisy_rollout(raw(1), arr(1, 2), 1.0)),
    ("noisy_rollout", "typed key, xs[4]", lambda m: rollout_typed(m, arr(4), 0.5)),
    (
        "noisy_rollout",
        "bf16 xs[3,2]",
        lambda m: m.noisy_rollout(raw(2), arr(3, 2, dtype="bfloat16"), 0.3),
    ),
    ("noisy_rollout", "int32 xs[3]", lambda m: m.noisy_rollout(raw(2), arr(3, dtype="int32"), 0.3)),
    (
        "langevin",
        "raw key, x0[3], c[6]",
        lambda m: m.langevin(raw(4), arr(3), jnp.abs(arr(6)), 0.01),
    ),
    (
        "langevin",
        "typed key, scalar x0 0.0",
        lambda m: m.langevin(typed(5), 0.0, jnp.abs(arr(4)), 0.05),
    ),
    (
        "langevin",
        "c[1], int32 x0",
        lambda m: m.langevin(raw(6), arr(2, dtype="int32"), jnp.ones(1), 0.1),
    ),
    ("dropout_steps", "raw key, hs[6,4]", lambda m: m.dropout_steps(raw(7), arr(6, 4), 0.3)),
    ("dropout_steps", "typed key, hs[2]", lambda m: m.dropout_steps(typed(8), arr(2), 0.5)),
    (
        "dropout_steps",
        "int32 hs[3,2]",
        lambda m: m.dropout_steps(raw(9), arr(3, 2, dtype="int32"), 0.25),
    ),
]
CALLS += [
    ("noisy_rollout", "xs[0,3]", lambda m: m.noisy_rollout(raw(0), arr(0, 3), 0.1)),
    ("dropout_steps", "hs[0,4]", lambda m: m.dropout_steps(raw(7), arr(0, 4), 0.3)),
]
