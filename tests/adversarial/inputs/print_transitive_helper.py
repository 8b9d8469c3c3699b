from adv_data import arr

CALLS = [
    (("normalize", "_norm"), "v[5]", lambda m: m.normalize(arr(5))),
    (("normalize", "_norm"), "v[2,3]", lambda m: m.normalize(arr(2, 3))),
    (("checked_mean", "_check"), "x[6]", lambda m: m.checked_mean(arr(6))),
    (("checked_mean", "_check"), "int32 x[4]", lambda m: m.checked_mean(arr(4, dtype="int32"))),
]
