from adv_data import arr

CALLS = [
    ("mse_loop", "X[6,3] w[3]", lambda m: m.mse_loop(arr(6, 3), arr(6, seed=1), arr(3, seed=2))),
    ("mse_loop", "X[1,4] w[4]", lambda m: m.mse_loop(arr(1, 4), arr(1, seed=1), arr(4, seed=2))),
    ("mse_loop", "X[50,2] w[2]", lambda m: m.mse_loop(arr(50, 2), arr(50, seed=3), arr(2, seed=4))),
    ("mse_loop", "X[3,7] w[7]", lambda m: m.mse_loop(arr(3, 7), arr(3, seed=3), arr(7, seed=4))),
    (
        "hinge_loop",
        "X[8,3] w[3]",
        lambda m: m.hinge_loop(arr(8, 3), arr(8, seed=5), arr(3, seed=6), 0.1),
    ),
    (
        "hinge_loop",
        "X[2,5] w[5]",
        lambda m: m.hinge_loop(arr(2, 5), arr(2, seed=5), arr(5, seed=6), -0.2),
    ),
    (
        "hinge_loop",
        "X[0,3] empty",
        lambda m: m.hinge_loop(arr(0, 3), arr(0, seed=5), arr(3, seed=6), 0.0),
    ),
]
