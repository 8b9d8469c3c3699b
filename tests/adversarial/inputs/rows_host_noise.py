import numpy as np
from adv_data import arr


def _seeded(m, x):
    np.random.seed(3)
    return m.augment(x)


CALLS = [
    ("augment", "f32[5,3], seeded", lambda m: _seeded(m, arr(5, 3))),
    ("augment", "f32[2,4], seeded", lambda m: _seeded(m, arr(2, 4))),
]
