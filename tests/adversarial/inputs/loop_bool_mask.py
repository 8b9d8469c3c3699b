from adv_data import arr

CALLS = [
    ("count_true", "bool[40]", lambda m: m.count_true(arr(40, dtype="bool"))),
    ("count_true", "bool[5,3]", lambda m: m.count_true(arr(5, 3, dtype="bool"))),
    ("count_true", "bool[0]", lambda m: m.count_true(arr(0, dtype="bool"))),
    ("any_and_all", "bool[10]", lambda m: m.any_and_all(arr(10, dtype="bool"))),
    ("any_and_all", "bool[4,6]", lambda m: m.any_and_all(arr(4, 6, dtype="bool"))),
    ("any_and_all", "bool[0]", lambda m: m.any_and_all(arr(0, dtype="bool"))),
    ("any_and_all", "int32[6] bitwise", lambda m: m.any_and_all(arr(6, dtype="int32"))),
    ("masked_mean", "f32[20] bool[20]", lambda m: m.masked_mean(arr(20), arr(20, dtype="bool"))),
    (
        "masked_mean",
        "f32[5,2] bool[5,2]",
        lambda m: m.masked_mean(arr(5, 2), arr(5, 2, dtype="bool")),
    ),
    (
        "masked_mean",
        "f32[4,3] bool[4] (row mask)",
        lambda m: m.masked_mean(arr(4, 3), arr(4, dtype="bool")),
    ),
]
