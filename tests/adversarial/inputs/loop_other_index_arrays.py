from adv_data import arr

CALLS = [
    (
        "weighted_first_column",
        "X[6,3] w[6]",
        lambda m: m.weighted_first_column(arr(6, 3), arr(6, seed=2)),
    ),
    (
        "weighted_first_column",
        "X[4,2] w[9]",
        lambda m: m.weighted_first_column(arr(4, 2), arr(9, seed=2)),
    ),
    (
        "weighted_first_column",
        "X[1,5] w[1]",
        lambda m: m.weighted_first_column(arr(1, 5), arr(1, seed=2)),
    ),
    ("nested_index", "X[8,2]", lambda m: m.nested_index(arr(8, 2))),
    ("nested_index", "X[3,4,2]", lambda m: m.nested_index(arr(3, 4, 2))),
    ("pair_products", "a[5] b[5]", lambda m: m.pair_products(arr(5), arr(5, seed=3))),
    ("pair_products", "a[3,2] b[7,2]", lambda m: m.pair_products(arr(3, 2), arr(7, 2, seed=3))),
    ("pair_products", "a[4] b[4,3]", lambda m: m.pair_products(arr(4), arr(4, 3, seed=3))),
]
