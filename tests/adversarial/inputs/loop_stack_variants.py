from adv_data import arr, u8

CALLS = [
    ("prefix_as_f32", "int32[10]", lambda m: m.prefix_as_f32(arr(10, dtype="int32"))),
    ("prefix_as_f32", "u8[300]", lambda m: m.prefix_as_f32(u8(300))),
    ("prefix_as_f32", "f32[4,2]", lambda m: m.prefix_as_f32(arr(4, 2))),
    ("prefix_as_f32", "f32[0]", lambda m: m.prefix_as_f32(arr(0))),
    ("prefix_stacked_on_axis1", "X[5,3]", lambda m: m.prefix_stacked_on_axis1(arr(5, 3))),
    ("prefix_stacked_on_axis1", "X[2,4,3]", lambda m: m.prefix_stacked_on_axis1(arr(2, 4, 3))),
    ("concatenated_chunks", "X[4,3]", lambda m: m.concatenated_chunks(arr(4, 3))),
    ("concatenated_chunks", "X[3,2,2]", lambda m: m.concatenated_chunks(arr(3, 2, 2))),
    ("exclusive_prefix", "f32[12]", lambda m: m.exclusive_prefix(arr(12))),
    ("exclusive_prefix", "f32[3,2]", lambda m: m.exclusive_prefix(arr(3, 2))),
    ("exclusive_prefix", "f32[1]", lambda m: m.exclusive_prefix(arr(1))),
    ("stacked_and_last", "f32[9]", lambda m: m.stacked_and_last(arr(9))),
    ("stacked_and_last", "f32[2,3]", lambda m: m.stacked_and_last(arr(2, 3))),
]
