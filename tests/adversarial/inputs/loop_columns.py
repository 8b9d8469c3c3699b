from adv_data import arr

CALLS = [
    ("column_norms_sq", "X[4,9]", lambda m: m.column_norms_sq(arr(4, 9))),
    ("column_norms_sq", "X[6,1]", lambda m: m.column_norms_sq(arr(6, 1))),
    ("column_norms_sq", "X[3,0] no columns", lambda m: m.column_norms_sq(arr(3, 0))),
    ("column_norms_sq", "X[2,3,4]", lambda m: m.column_norms_sq(arr(2, 3, 4))),
    ("gram_diag", "X[5,3]", lambda m: m.gram_diag(arr(5, 3))),
    ("gram_diag", "X[1,20]", lambda m: m.gram_diag(arr(1, 20))),
]
