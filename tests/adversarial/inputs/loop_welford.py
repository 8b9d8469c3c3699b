from adv_data import arr, u8

CALLS = [
    ("welford", "f32[50]", lambda m: m.welford(arr(50))),
    ("welford", "f32[6,3]", lambda m: m.welford(arr(6, 3))),
    ("welford", "u8[300]", lambda m: m.welford(u8(300))),
    ("welford", "int32[12]", lambda m: m.welford(arr(12, dtype="int32"))),
    ("welford", "f32[1]", lambda m: m.welford(arr(1))),
]
