from adv_data import arr

CALLS = [
    ("log_set", "f32[4]", lambda m: m.log_set(arr(4))),
    ("log_json", "f32 scalar", lambda m: m.log_json(arr(1)[0])),
    ("log_fstring_braces", "w[3]", lambda m: m.log_fstring_braces(arr(3))),
    ("log_percent_braces", "f32[6]", lambda m: m.log_percent_braces(arr(6))),
]
