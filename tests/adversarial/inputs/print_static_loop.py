from adv_data import arr

CALLS = [
    ("per_layer", "x[4] w[3,4,4]", lambda m: m.per_layer(arr(4), arr(3, 4, 4, seed=2))),
    ("per_layer", "x[2,3] w[3,3,3]", lambda m: m.per_layer(arr(2, 3), arr(3, 3, 3, seed=2))),
    ("before_after", "f32[5]", lambda m: m.before_after(arr(5))),
    (
        "before_after",
        "int32[3,3] twice",
        lambda m: [m.before_after(arr(3, 3, dtype="int32", seed=s)) for s in (1, 2)],
    ),
]
