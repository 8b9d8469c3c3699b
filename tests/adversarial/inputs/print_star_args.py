from adv_data import arr

CALLS = [
    ("log_all", "f32[3] f32[3]", lambda m: m.log_all(arr(3), arr(3, seed=1))),
    (
        "log_all",
        "int32[2,2]",
        lambda m: m.log_all(arr(2, 2, dtype="int32"), arr(2, 2, dtype="int32", seed=3)),
    ),
    ("log_tabbed", "f32[7]", lambda m: m.log_tabbed(arr(7))),
    (
        "log_blank_line",
        "f32[4] twice",
        lambda m: [m.log_blank_line(arr(4, seed=s)) for s in (1, 2)],
    ),
]
