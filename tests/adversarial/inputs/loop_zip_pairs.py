from adv_data import arr

CALLS = [
    ("zip_dot", "f32[30] x f32[30]", lambda m: m.zip_dot(arr(30), arr(30, seed=2))),
    ("zip_dot", "f32[5] x f32[8] (zip truncates)", lambda m: m.zip_dot(arr(5), arr(8, seed=2))),
    ("zip_dot", "f32[9] x f32[4] (zip truncates)", lambda m: m.zip_dot(arr(9), arr(4, seed=2))),
    (
        "zip_dot",
        "int32[6] x bool[6]",
        lambda m: m.zip_dot(arr(6, dtype="int32"), arr(6, dtype="bool")),
    ),
    (
        "zip_weighted_rows",
        "w[6] rows[6,3]",
        lambda m: m.zip_weighted_rows(arr(6), arr(6, 3, seed=3)),
    ),
    (
        "zip_weighted_rows",
        "w[2] rows[5,2]",
        lambda m: m.zip_weighted_rows(arr(2), arr(5, 2, seed=3)),
    ),
]
