from adv_data import arr

CALLS = [
    ("damped_cos_fixed_point", "f32[4]", lambda m: m.damped_cos_fixed_point(arr(4))),
    (
        "damped_cos_fixed_point",
        "debug: the last step too",
        lambda m: m.damped_cos_fixed_point(arr(5), debug=True),
    ),
    (
        "damped_cos_fixed_point",
        "f32[2,3], damping 0.9",
        lambda m: m.damped_cos_fixed_point(arr(2, 3), 0.9),
    ),
]
