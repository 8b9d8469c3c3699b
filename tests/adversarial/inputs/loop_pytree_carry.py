from adv_data import arr, u8

CALLS = [
    ("running_stats", "f32[20]", lambda m: m.running_stats(arr(20))),
    ("running_stats", "u8[300]", lambda m: m.running_stats(u8(300))),
    ("running_stats", "f32[3,2]", lambda m: m.running_stats(arr(3, 2))),
    ("sum_rows_like", "X[6,4]", lambda m: m.sum_rows_like(arr(6, 4))),
    (
        "sum_rows_like",
        "int8 X[40,2]",
        lambda m: m.sum_rows_like(arr(40, 2, dtype="int8", low=50, high=100)),
    ),
    ("sum_rows_like", "bool X[3,3]", lambda m: m.sum_rows_like(arr(3, 3, dtype="bool"))),
    ("total_magnitude", "c64[10]", lambda m: m.total_magnitude(arr(10, dtype="complex64"))),
    ("total_magnitude", "c64[2,3]", lambda m: m.total_magnitude(arr(2, 3, dtype="complex64"))),
    ("total_magnitude", "int32[5]", lambda m: m.total_magnitude(arr(5, dtype="int32"))),
    (
        "int8_squares",
        "int8[30] wraps",
        lambda m: m.int8_squares(arr(30, dtype="int8", low=5, high=12)),
    ),
    ("int8_squares", "u8[0]", lambda m: m.int8_squares(u8(0))),
    ("int8_squares", "f32[4,2]", lambda m: m.int8_squares(arr(4, 2))),
]
