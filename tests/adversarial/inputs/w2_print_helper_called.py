from adv_data import arr

CALLS = [
    (("forward", "_log", "_report"), "w[3,2], x[4,3]", lambda m: m.forward(arr(3, 2), arr(4, 3))),
    (("forward", "_log", "_report"), "w[1,1], x[1,1]", lambda m: m.forward(arr(1, 1), arr(1, 1))),
    (
        ("evaluate", "forward", "_log", "_report"),
        "evaluate w[2,3] x[3,2]",
        lambda m: m.evaluate(arr(2, 3), arr(3, 2)),
    ),
    (
        ("evaluate", "forward", "_log", "_report"),
        "evaluate float16",
        lambda m: m.evaluate(arr(2, 2, dtype="float16"), arr(7, 2, dtype="float16")),
    ),
]
