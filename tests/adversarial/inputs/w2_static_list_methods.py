from adv_data import arr

CALLS = [
    ("pooled", "x[7]", lambda m: m.pooled(arr(7))),
    ("pooled", "int32 x[6]", lambda m: m.pooled(arr(6, dtype="int32"))),
    ("padded", "x[3]", lambda m: m.padded(arr(3))),
    ("padded", "bool x[1]", lambda m: m.padded(arr(1, dtype="bool"))),
    ("selected", "x[2,3]", lambda m: m.selected(arr(2, 3))),
    ("selected", "bf16 x[3]", lambda m: m.selected(arr(3, dtype="bfloat16"))),
    ("tail", "x[5]", lambda m: m.tail(arr(5))),
    ("tail", "int32 x[4,2]", lambda m: m.tail(arr(4, 2, dtype="int32"))),
]
