import jax.numpy as jnp
from adv_data import arr

CALLS = [
    (
        "discounted_returns",
        "f32[7], bool dones",
        lambda m: m.discounted_returns(arr(7), arr(7, dtype="bool")),
    ),
    ("discounted_returns", "f32[1]", lambda m: m.discounted_returns(arr(1), jnp.array([False]))),
    (
        "discounted_returns",
        "int32 rewards, int dones",
        lambda m: m.discounted_returns(arr(5, dtype="int32"), jnp.array([0, 0, 1, 0, 1]), 0.5),
    ),
    (
        "discounted_returns",
        "f32[4,2] envs, NaN",
        lambda m: m.discounted_returns(arr(4, 2).at[2, 1].set(jnp.nan), arr(4, 2, dtype="bool")),
    ),
    (
        "discounted_returns",
        "f32 dones",
        lambda m: m.discounted_returns(arr(6), jnp.array([0.0, 0, 0, 1, 0, 0]), 0.9),
    ),
    (
        "lambda_returns",
        "T=6, values[7]",
        lambda m: m.lambda_returns(arr(6), arr(7, seed=2), 0.99, 0.95),
    ),
    (
        "lambda_returns",
        "T=1, values[2]",
        lambda m: m.lambda_returns(arr(1), arr(2, seed=2), 0.9, 0.5),
    ),
    (
        "lambda_returns",
        "T=3 envs[3,2]",
        lambda m: m.lambda_returns(arr(3, 2), arr(4, 2, seed=2), 0.9, 0.0),
    ),
    (
        "lambda_returns",
        "int32 rewards",
        lambda m: m.lambda_returns(arr(4, dtype="int32"), arr(5), 0.8, 1.0),
    ),
    ("reward_to_go", "f32[8]", lambda m: m.reward_to_go(arr(8), 0.9)),
    ("reward_to_go", "bf16[3]", lambda m: m.reward_to_go(arr(3, dtype="bfloat16"), 0.5)),
    ("reward_to_go", "int32[5], gamma 1", lambda m: m.reward_to_go(arr(5, dtype="int32"), 1)),
]
CALLS.append(
    (
        "discounted_returns",
        "T=0 (stack of nothing)",
        lambda m: m.discounted_returns(arr(0), jnp.zeros(0, bool)),
    )
)
