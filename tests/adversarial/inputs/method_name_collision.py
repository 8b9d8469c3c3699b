from adv_data import arr

CALLS = [
    ("Model.apply", "x[5]", lambda m: m.Model(arr(5)).apply(arr(5, seed=2))),
    (
        "Model.legacy",
        "module function keeps its meaning",
        lambda m: m.Model(arr(3)).legacy(arr(3, seed=2)),
    ),
    ("model.apply", "lowercase class x[4]", lambda m: m.model(arr(4)).apply(arr(4, seed=2))),
    (
        ("Model.apply", "model.apply"),
        "both classes",
        lambda m: (m.Model(arr(2)).apply(arr(2, seed=1)), m.model(arr(2)).apply(arr(2, seed=1))),
    ),
    ("_model_apply", "module function direct", lambda m: m._model_apply(arr(3))),
]
