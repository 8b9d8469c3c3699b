from adv_data import arr

CALLS = [
    ("sgd_step", "w[3], X[6,3], y[6]", lambda m: m.sgd_step(arr(3), arr(6, 3), arr(6))),
    ("sgd_step", "w[2], X[4,2], y[4]", lambda m: m.sgd_step(arr(2), arr(4, 2), arr(4))),
]
