from adv_data import arr

CALLS = [
    ("running_max", "f32[30]", lambda m: m.running_max(arr(30))),
    ("running_max", "int32[9]", lambda m: m.running_max(arr(9, dtype="int32"))),
    ("running_max", "bf16[5,2]", lambda m: m.running_max(arr(5, 2, dtype="bfloat16"))),
    ("running_max", "bool[6]", lambda m: m.running_max(arr(6, dtype="bool"))),
    ("peak_to_peak", "f32[40]", lambda m: m.peak_to_peak(arr(40))),
    ("peak_to_peak", "bf16[11]", lambda m: m.peak_to_peak(arr(11, dtype="bfloat16"))),
    ("peak_to_peak", "int32[4,3]", lambda m: m.peak_to_peak(arr(4, 3, dtype="int32"))),
    ("peak_to_peak", "f32[0]", lambda m: m.peak_to_peak(arr(0))),
]
