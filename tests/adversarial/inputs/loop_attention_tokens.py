from adv_data import arr

CALLS = [
    (
        "attend",
        "Q[5,4] K[6,4] V[6,2]",
        lambda m: m.attend(arr(5, 4), arr(6, 4, seed=1), arr(6, 2, seed=2)),
    ),
    (
        "attend",
        "Q[1,3] K[2,3] V[2,5]",
        lambda m: m.attend(arr(1, 3), arr(2, 3, seed=1), arr(2, 5, seed=2)),
    ),
    (
        "attend",
        "Q[0,4] (stack raises)",
        lambda m: m.attend(arr(0, 4), arr(6, 4, seed=1), arr(6, 2, seed=2)),
    ),
    (
        "attend",
        "Q[40,8] K[3,8] V[3,1]",
        lambda m: m.attend(arr(40, 8), arr(3, 8, seed=1), arr(3, 1, seed=2)),
    ),
    (
        "attention_entropy",
        "Q[7,2] K[9,2]",
        lambda m: m.attention_entropy(arr(7, 2), arr(9, 2, seed=1)),
    ),
    (
        "attention_entropy",
        "Q[1,5] K[4,5]",
        lambda m: m.attention_entropy(arr(1, 5), arr(4, 5, seed=1)),
    ),
]
