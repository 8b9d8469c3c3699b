from adv_data import arr, u8

CALLS = [
    ("count_positive", "f32[10]", lambda m: m.count_positive(arr(10))),
    ("count_positive", "int32[3,3]", lambda m: m.count_positive(arr(3, 3, dtype="int32"))),
    ("pixel_info", "u8[4,4]", lambda m: m.pixel_info(u8(4, 4))),
    ("pixel_info", "u8[50]", lambda m: m.pixel_info(u8(50))),
    ("flags", "bool[6]", lambda m: m.flags(arr(6, dtype="bool"))),
    ("flags", "bool[2,3]", lambda m: m.flags(arr(2, 3, dtype="bool"))),
]
