from adv_data import arr

CALLS = [
    ("sum_and_last_index", "f32[12]", lambda m: m.sum_and_last_index(arr(12))),
    ("sum_and_last_index", "f32[1,3]", lambda m: m.sum_and_last_index(arr(1, 3))),
    ("sum_and_last_index", "f32[0] (i unbound)", lambda m: m.sum_and_last_index(arr(0))),
    ("sum_and_last_delta", "f32[9]", lambda m: m.sum_and_last_delta(arr(9))),
    ("sum_and_last_delta", "f32[3,2]", lambda m: m.sum_and_last_delta(arr(3, 2))),
    ("last_element", "f32[20]", lambda m: m.last_element(arr(20))),
    ("last_element", "int32[4,2]", lambda m: m.last_element(arr(4, 2, dtype="int32"))),
    ("last_element", "f32[0]", lambda m: m.last_element(arr(0))),
]
