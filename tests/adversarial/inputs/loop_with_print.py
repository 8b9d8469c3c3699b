from adv_data import arr

CALLS = [
    ("noisy_cumsum", "f32[5]", lambda m: m.noisy_cumsum(arr(5))),
    ("noisy_cumsum", "f32[2,2]", lambda m: m.noisy_cumsum(arr(2, 2))),
    ("noisy_cumsum", "int32[3]", lambda m: m.noisy_cumsum(arr(3, dtype="int32"))),
    ("logged_steps", "f32[30]", lambda m: m.logged_steps(arr(30))),
    ("logged_steps", "f32[0]", lambda m: m.logged_steps(arr(0))),
]
