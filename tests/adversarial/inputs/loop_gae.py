from adv_data import arr

DONES = lambda n: (arr(n, seed=4) > 0.8).astype("float32")  # noqa: E731
BOOL_DONES = lambda n: arr(n, dtype="bool", seed=4)  # noqa: E731

CALLS = [
    (
        "gae_appended",
        "T=8, values T+1",
        lambda m: m.gae_appended(arr(8), arr(9, seed=2), DONES(8), 0.99, 0.95),
    ),
    (
        "gae_appended",
        "T=6, values T (clamped)",
        lambda m: m.gae_appended(arr(6), arr(6, seed=2), DONES(6), 0.9, 0.9),
    ),
    ("gae_appended", "T=1", lambda m: m.gae_appended(arr(1), arr(2, seed=2), DONES(1), 0.99, 0.95)),
    ("gae_appended", "T=0", lambda m: m.gae_appended(arr(0), arr(1, seed=2), DONES(0), 0.99, 0.95)),
    (
        "gae_appended",
        "T=5 x 3 envs",
        lambda m: m.gae_appended(arr(5, 3), arr(6, 3, seed=2), DONES(5)[:, None], 0.99, 0.95),
    ),
    (
        "gae_appended",
        "bf16",
        lambda m: m.gae_appended(
            arr(7, dtype="bfloat16"), arr(8, dtype="bfloat16", seed=2), DONES(7), 0.99, 0.95
        ),
    ),
    (
        "gae_prepended",
        "T=9",
        lambda m: m.gae_prepended(arr(9), arr(10, seed=2), DONES(9), 0.99, 0.95),
    ),
    (
        "gae_prepended",
        "bool dones",
        lambda m: m.gae_prepended(arr(6), arr(7, seed=2), BOOL_DONES(6), 0.9, 0.8),
    ),
    (
        "gae_prepended",
        "T=0",
        lambda m: m.gae_prepended(arr(0), arr(1, seed=2), DONES(0), 0.99, 0.95),
    ),
    (
        "gae_prepended",
        "int rewards",
        lambda m: m.gae_prepended(arr(5, dtype="int32"), arr(6, seed=2), DONES(5), 0.99, 0.95),
    ),
    (
        ("episode_returns", "returns_to_go"),
        "int32[7]",
        lambda m: m.episode_returns(arr(7, dtype="int32")),
    ),
    (
        ("episode_returns", "returns_to_go"),
        "uint8[300] (wraps)",
        lambda m: m.episode_returns(arr(300, dtype="uint8")),
    ),
    (("episode_returns", "returns_to_go"), "f32[0]", lambda m: m.episode_returns(arr(0))),
    (
        "discounted_episode_returns",
        "int32[7]",
        lambda m: m.discounted_episode_returns(arr(7, dtype="int32")),
    ),
    (
        "discounted_episode_returns",
        "f16[6,2]",
        lambda m: m.discounted_episode_returns(arr(6, 2, dtype="float16")),
    ),
    (
        "td_lambda_targets",
        "T=6, 4 envs",
        lambda m: m.td_lambda_targets(arr(6, 4), arr(6, 4, seed=3), 0.9),
    ),
    (
        "td_lambda_targets",
        "T=1 (no step)",
        lambda m: m.td_lambda_targets(arr(1, 4), arr(1, 4, seed=3), 0.9),
    ),
    ("td_lambda_targets", "T=3, 1-D", lambda m: m.td_lambda_targets(arr(3), arr(3, seed=3), 0.5)),
    ("decayed_index_weights", "f16[5]", lambda m: m.decayed_index_weights(arr(5, dtype="float16"))),
    (
        "decayed_index_weights",
        "int32[4,2]",
        lambda m: m.decayed_index_weights(arr(4, 2, dtype="int32")),
    ),
    ("decayed_index_weights", "f32[1]", lambda m: m.decayed_index_weights(arr(1))),
]
