from adv_data import arr


def _toggle(m):
    layer = m.Dense(arr(3, 4), arr(4, seed=1))
    x = arr(5, 3, seed=2)
    outs = [layer(x)]
    layer.use_bias = False
    outs.append(layer(x))
    layer.activation = "tanh"
    outs.append(layer(x))
    layer.activation = "linear"
    outs.append(layer(x))
    layer.w = arr(3, 4, seed=9)
    outs.append(layer(x))
    return outs


CALLS = [
    (
        "Dense.__call__",
        "default relu + bias",
        lambda m: m.Dense(arr(3, 2), arr(2, seed=1))(arr(6, 3, seed=2)),
    ),
    (
        "Dense.__call__",
        "tanh no bias vector input",
        lambda m: m.Dense(arr(4, 2), arr(2, seed=1), False, "tanh")(arr(4, seed=2)),
    ),
    ("Dense.__call__", "toggle flags and weights", _toggle),
    (
        "Dense.__call__",
        "bf16 weights",
        lambda m: m.Dense(arr(2, 2, dtype="bfloat16"), arr(2, dtype="bfloat16"))(
            arr(3, 2, dtype="bfloat16")
        ),
    ),
]
