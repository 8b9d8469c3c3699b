from adv_data import arr

CALLS = [
    (
        "residual_list",
        "[f32[3,3], f32[3,3]]",
        lambda m: m.residual_list([arr(3, 3), arr(3, 3, seed=2)], arr(3)),
    ),
    (
        "residual_list",
        "[f32[3,5], f32[5,3]] (shapes differ)",
        lambda m: m.residual_list([arr(3, 5), arr(5, 3)], arr(3)),
    ),
    ("residual_list", "(f32[3,3],) tuple", lambda m: m.residual_list((arr(3, 3),), arr(3))),
    ("residual_stacked", "f32[4,3,3]", lambda m: m.residual_stacked(arr(4, 3, 3), arr(3))),
    ("residual_stacked", "f32[0,3,3]", lambda m: m.residual_stacked(arr(0, 3, 3), arr(3))),
]
