import numpy as np
from adv_data import arr


def seeded(fn, x, seed=0):
    np.random.seed(seed)
    return fn(x)


CALLS = [
    ("shuffle_batch", "X[6,5] seeded", lambda m: seeded(m.shuffle_batch, arr(6, 5))),
    ("shuffle_batch", "X[2,3] seeded", lambda m: seeded(m.shuffle_batch, arr(2, 3), 4)),
    (
        "shuffle_batch",
        "int32 X[4,4] seeded",
        lambda m: seeded(m.shuffle_batch, arr(4, 4, dtype="int32"), 1),
    ),
    ("dropout_batch", "X[5,4] seeded", lambda m: seeded(m.dropout_batch, arr(5, 4), 2)),
    ("dropout_batch", "X[3,2,2] seeded", lambda m: seeded(m.dropout_batch, arr(3, 2, 2), 3)),
    ("dropout_batch", "X[1,7] seeded", lambda m: seeded(m.dropout_batch, arr(1, 7), 5)),
]
