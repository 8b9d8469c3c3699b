from adv_data import arr

CALLS = [
    ("linear_recurrence", "f32[15]", lambda m: m.linear_recurrence(arr(15) * 0.5)),
    ("linear_recurrence", "f32[3,2]", lambda m: m.linear_recurrence(arr(3, 2))),
    ("linear_recurrence", "int32[6]", lambda m: m.linear_recurrence(arr(6, dtype="int32"))),
    ("linear_recurrence", "f32[0]", lambda m: m.linear_recurrence(arr(0))),
    ("momentum_path", "f32[25]", lambda m: m.momentum_path(arr(25), 0.1, 0.9)),
    ("momentum_path", "f32[5,4]", lambda m: m.momentum_path(arr(5, 4), 0.05, 0.5)),
]
