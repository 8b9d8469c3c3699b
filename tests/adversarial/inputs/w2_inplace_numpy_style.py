import numpy as np


def f32(*values):
    return np.array(values, dtype=np.float32)


def i32(*values):
    return np.array(values, dtype=np.int32)


CALLS = [
    ("apply_boundary", "f32[5]", lambda m: m.apply_boundary(f32(1, 2, 3, 4, 5), 0.5, 0.25)),
    ("apply_boundary", "f32[1] both ends one cell", lambda m: m.apply_boundary(f32(2.0), 1.0, 3.0)),
    (
        "apply_boundary",
        "int32[3] float boundary, negative",
        lambda m: m.apply_boundary(i32(-3, 0, 3), 0.5, 0.7),
    ),
    ("apply_boundary", "int32[4] int boundary", lambda m: m.apply_boundary(i32(1, 2, 3, 4), 2, 5)),
    ("halve_ends", "int32 negatives", lambda m: m.halve_ends(i32(-3, 4, -7))),
    ("halve_ends", "int32[1]", lambda m: m.halve_ends(i32(9))),
    ("halve_ends", "float32[4]", lambda m: m.halve_ends(f32(1, 2, 3, np.nan))),
    ("halve_ends", "int32 above 2**24", lambda m: m.halve_ends(i32(16777219, 5, 33554433))),
    (
        "scale_column",
        "f32[3,2] s=0.5",
        lambda m: m.scale_column(np.arange(6, dtype=np.float32).reshape(3, 2), 0.5),
    ),
    (
        "scale_column",
        "int32[2,3] s=3",
        lambda m: m.scale_column(np.arange(-3, 3, dtype=np.int32).reshape(2, 3), 3),
    ),
    (
        "scale_column",
        "f32[1,2] s=inf",
        lambda m: m.scale_column(f32(0.0, 2.0).reshape(1, 2), np.float32(np.inf)),
    ),
]
