from adv_data import arr


def _mlp(m, act="relu", d=3):
    return m.MLP(arr(d, 5), arr(5, seed=1), arr(5, 2, seed=2), act)


def _switch(m):
    net = _mlp(m)
    a = net(arr(4, 3))
    net.act = "tanh"
    b = net(arr(4, 3))
    net.w2 = arr(5, 3, seed=9)
    return a, b, net.logits_and_probs(arr(4, 3))


CALLS = [
    ("MLP.__call__", "relu x[7,3]", lambda m: _mlp(m)(arr(7, 3))),
    ("MLP.__call__", "tanh x[3]", lambda m: _mlp(m, "tanh")(arr(3))),
    ("MLP.logits_and_probs", "relu x[1,3]", lambda m: _mlp(m).logits_and_probs(arr(1, 3))),
    (
        ("MLP.__call__", "MLP.logits_and_probs"),
        "act and w2 changed",
        _switch,
    ),
    (
        "MLP.logits_and_probs",
        "bf16 tanh",
        lambda m: m.MLP(
            arr(2, 5, dtype="bfloat16"),
            arr(5, dtype="bfloat16"),
            arr(5, 2, dtype="bfloat16"),
            "tanh",
        ).logits_and_probs(arr(6, 2, dtype="bfloat16")),
    ),
]
