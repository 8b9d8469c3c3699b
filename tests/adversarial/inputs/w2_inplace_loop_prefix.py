import numpy as np

CALLS = [
    ("prefix_sum", "f32[7]", lambda m: m.prefix_sum(np.linspace(-1, 2, 7, dtype=np.float32))),
    ("prefix_sum", "int32[1]", lambda m: m.prefix_sum(np.array([5], dtype=np.int32))),
    (
        "prefix_sum",
        "int32[2,3] rows",
        lambda m: m.prefix_sum(np.arange(6, dtype=np.int32).reshape(2, 3)),
    ),
    ("prefix_sum", "bool[5]", lambda m: m.prefix_sum(np.array([False, True, False, False, True]))),
    (
        "normalize_rows",
        "f32[3,4]",
        lambda m: m.normalize_rows(np.arange(1, 13, dtype=np.float32).reshape(3, 4)),
    ),
    (
        "normalize_rows",
        "f32[2,2] zero row",
        lambda m: m.normalize_rows(np.array([[0.0, 0.0], [1.0, 3.0]], dtype=np.float32)),
    ),
    (
        "normalize_rows",
        "f16[1,7]",
        lambda m: m.normalize_rows(np.linspace(0.5, 2.0, 7, dtype=np.float16).reshape(1, 7)),
    ),
    (
        "one_hot_fill",
        "labels [2,0,1]",
        lambda m: m.one_hot_fill(np.zeros((3, 3), np.float32), np.array([2, 0, 1], np.int32)),
    ),
    (
        "one_hot_fill",
        "labels [1] into [1,4]",
        lambda m: m.one_hot_fill(np.zeros((1, 4), np.float32), np.array([1], np.int32)),
    ),
]
