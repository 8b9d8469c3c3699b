from adv_data import arr

CALLS = [
    ("int_start_sum", "f32[25]", lambda m: m.int_start_sum(arr(25))),
    ("int_start_sum", "int8[9]", lambda m: m.int_start_sum(arr(9, dtype="int8"))),
    ("int_start_sum", "f32[4,3]", lambda m: m.int_start_sum(arr(4, 3))),
    ("int_start_sum", "f32[0]", lambda m: m.int_start_sum(arr(0))),
    ("int_start_sum", "bf16[6]", lambda m: m.int_start_sum(arr(6, dtype="bfloat16"))),
    ("positive_count", "f32[33]", lambda m: m.positive_count(arr(33))),
    ("positive_count", "int32[3,5]", lambda m: m.positive_count(arr(3, 5, dtype="int32"))),
    (
        "int8_accumulate",
        "int8[60] wraps",
        lambda m: m.int8_accumulate(arr(60, dtype="int8", low=20, high=90)),
    ),
    ("int8_accumulate", "f32[5]", lambda m: m.int8_accumulate(arr(5))),
    ("int8_accumulate", "int32[4,2]", lambda m: m.int8_accumulate(arr(4, 2, dtype="int32"))),
]
