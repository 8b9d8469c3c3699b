from adv_data import arr

CALLS = [
    (
        "sgd_epoch",
        "X[8,3] w[3]",
        lambda m: m.sgd_epoch(arr(8, 3), arr(8, seed=1), arr(3, seed=2), 0.05),
    ),
    (
        "sgd_epoch",
        "X[1,5] w[5]",
        lambda m: m.sgd_epoch(arr(1, 5), arr(1, seed=1), arr(5, seed=2), 0.1),
    ),
    (
        "sgd_epoch",
        "X[45,2] w[2]",
        lambda m: m.sgd_epoch(arr(45, 2), arr(45, seed=1), arr(2, seed=2), 0.01),
    ),
    ("covariance", "X[10,3]", lambda m: m.covariance(arr(10, 3))),
    ("covariance", "X[2,6]", lambda m: m.covariance(arr(2, 6))),
    ("covariance", "X[0,2]", lambda m: m.covariance(arr(0, 2))),
    ("product_and_diff", "f32[12]", lambda m: m.product_and_diff(arr(12))),
    ("product_and_diff", "int32[3,3]", lambda m: m.product_and_diff(arr(3, 3, dtype="int32"))),
    ("product_and_diff", "c64[5]", lambda m: m.product_and_diff(arr(5, dtype="complex64"))),
]
