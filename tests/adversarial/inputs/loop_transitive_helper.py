from adv_data import arr

CALLS = [
    (("normalized_cumsum", "_cumulative"), "f32[35]", lambda m: m.normalized_cumsum(arr(35))),
    (("normalized_cumsum", "_cumulative"), "f32[4,3]", lambda m: m.normalized_cumsum(arr(4, 3))),
    (
        ("normalized_cumsum", "_cumulative"),
        "int32[5]",
        lambda m: m.normalized_cumsum(arr(5, dtype="int32")),
    ),
    (
        ("weighted_score", "_weighted_total"),
        "x[6,2] w[6]",
        lambda m: m.weighted_score(arr(6, 2), arr(6, seed=3)),
    ),
    (
        ("weighted_score", "_weighted_total"),
        "x[3] w[5]",
        lambda m: m.weighted_score(arr(3), arr(5, seed=3)),
    ),
    (
        ("weighted_score", "_weighted_total"),
        "x[0] w[0]",
        lambda m: m.weighted_score(arr(0), arr(0)),
    ),
]
