from adv_data import arr

CALLS = [
    ("warn", "f32[5]", lambda m: m.warn(arr(5))),
    ("plain_and_stderr", "f32[4]", lambda m: m.plain_and_stderr(arr(4))),
    ("plain_and_stderr", "int32[2,2]", lambda m: m.plain_and_stderr(arr(2, 2, dtype="int32"))),
]
