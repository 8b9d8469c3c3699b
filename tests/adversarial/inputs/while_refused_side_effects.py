from adv_data import arr

CALLS = [
    ("backtracking", "f32[3]", lambda m: m.backtracking(1.0, arr(3), arr(3, seed=2), -arr(3))),
]
