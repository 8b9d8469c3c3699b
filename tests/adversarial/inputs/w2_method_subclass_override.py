import jax.numpy as jnp
from adv_data import arr


def _one_action(m):
    p = m.Policy(arr(3, 4, dtype="bfloat16"))
    before = p.probs(arr(4, 3, dtype="bfloat16")), p.scores(arr(4, 3, dtype="bfloat16"))
    p.n_actions = 1
    p.temperature = 4
    return before, p.probs(arr(4, 3, dtype="bfloat16")), p.scores(arr(4, 3, dtype="bfloat16"))


CALLS = [
    ("Policy.probs", "base obs[7,2]", lambda m: m.Policy(arr(2, 4)).probs(arr(7, 2))),
    ("Policy.probs", "greedy obs[2]", lambda m: m.GreedyPolicy(arr(2, 4)).probs(arr(2))),
    ("Policy.probs", "masked obs[1,2]", lambda m: m.MaskedPolicy(arr(2, 4)).probs(arr(1, 2))),
    (
        "Policy.probs",
        "learned temperature array",
        lambda m: m.LearnedTempPolicy(arr(2, 4), jnp.float32(-1.0)).probs(arr(3, 2)),
    ),
    (
        ("Policy.probs", "Policy.scores"),
        "instance override n_actions=1, temperature=4, bf16",
        _one_action,
    ),
    ("Policy.scores", "base obs[1,2]", lambda m: m.Policy(arr(2, 4)).scores(arr(1, 2))),
    ("Policy.scores", "greedy obs[2]", lambda m: m.GreedyPolicy(arr(2, 4)).scores(arr(2))),
    ("Policy.scores", "masked obs[7,2]", lambda m: m.MaskedPolicy(arr(2, 4)).scores(arr(7, 2))),
    (
        "Policy.scores",
        "learned temperature array, int32 obs",
        lambda m: m.LearnedTempPolicy(arr(2, 4), jnp.float32(0.5)).scores(arr(3, 2, dtype="int32")),
    ),
]
