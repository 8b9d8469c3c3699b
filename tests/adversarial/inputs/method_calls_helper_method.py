from adv_data import arr

CALLS = [
    (
        "Block.residual",
        "x[4,3]",
        lambda m: m.Block(arr(3, 5), arr(5, 3, seed=1)).residual(arr(4, 3, seed=2)),
    ),
    (
        "Block.residual",
        "x[3]",
        lambda m: m.Block(arr(3, 2), arr(2, 3, seed=1)).residual(arr(3, seed=2)),
    ),
    (
        "Block.plain",
        "x[4,3]",
        lambda m: m.Block(arr(3, 5), arr(5, 3, seed=1)).plain(arr(4, 3, seed=2)),
    ),
    (
        "Block.plain",
        "x[2,6] w2 to 1",
        lambda m: m.Block(arr(6, 2), arr(2, 1, seed=1)).plain(arr(2, 6, seed=2)),
    ),
]
