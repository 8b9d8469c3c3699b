from adv_data import arr

CALLS = [
    ("sum_of_squares", "f32[20]", lambda m: m.sum_of_squares(arr(20))),
    ("sum_of_squares", "f32[0]", lambda m: m.sum_of_squares(arr(0))),
    ("sum_of_squares", "int32[3,4]", lambda m: m.sum_of_squares(arr(3, 4, dtype="int32"))),
    ("row_norms", "X[6,2]", lambda m: m.row_norms(arr(6, 2))),
    ("row_norms", "X[0,2] (stack raises)", lambda m: m.row_norms(arr(0, 2))),
    ("builtin_sum_rows", "X[5,3]", lambda m: m.builtin_sum_rows(arr(5, 3))),
    ("builtin_sum_rows", "X[0,3]", lambda m: m.builtin_sum_rows(arr(0, 3))),
    ("builtin_sum_rows", "bool[4]", lambda m: m.builtin_sum_rows(arr(4, dtype="bool"))),
]
