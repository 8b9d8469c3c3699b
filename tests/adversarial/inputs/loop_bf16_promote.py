from adv_data import arr

CALLS = [
    ("sum_in_f32", "bf16[50]", lambda m: m.sum_in_f32(arr(50, dtype="bfloat16"))),
    ("sum_in_f32", "bf16[4,3]", lambda m: m.sum_in_f32(arr(4, 3, dtype="bfloat16"))),
    ("sum_in_f32", "f16[6]", lambda m: m.sum_in_f32(arr(6, dtype="float16"))),
    ("sum_in_f32", "int32[5]", lambda m: m.sum_in_f32(arr(5, dtype="int32"))),
    ("mean_sq_mixed", "bf16[30]", lambda m: m.mean_sq_mixed(arr(30, dtype="bfloat16"))),
    ("mean_sq_mixed", "bf16[2,5]", lambda m: m.mean_sq_mixed(arr(2, 5, dtype="bfloat16"))),
    ("half_sum", "bf16[20]", lambda m: m.half_sum(arr(20, dtype="bfloat16"))),
    ("half_sum", "int32[7]", lambda m: m.half_sum(arr(7, dtype="int32"))),
]
