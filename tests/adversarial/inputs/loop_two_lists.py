from adv_data import arr

CALLS = [
    ("running_bounds", "f32[30]", lambda m: m.running_bounds(arr(30))),
    ("running_bounds", "int32[5,2]", lambda m: m.running_bounds(arr(5, 2, dtype="int32"))),
    ("running_bounds", "bf16[7]", lambda m: m.running_bounds(arr(7, dtype="bfloat16"))),
    ("prefix_sums_and_squares", "f32[15]", lambda m: m.prefix_sums_and_squares(arr(15))),
    ("prefix_sums_and_squares", "f32[3,4]", lambda m: m.prefix_sums_and_squares(arr(3, 4))),
    (
        "prefix_sums_and_squares",
        "u8[6]",
        lambda m: m.prefix_sums_and_squares(arr(6, dtype="uint8")),
    ),
]
