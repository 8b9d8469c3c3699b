from adv_data import arr


def _params(hidden, inp):
    names = ("Wz", "Uz", "Wr", "Ur", "Wh", "Uh")
    return {
        n: arr(hidden, inp if n.startswith("W") else hidden, seed=k) * 0.4
        for k, n in enumerate(names)
    }


CALLS = [
    (
        "gru_sequence",
        "h 4, in 3, T 12",
        lambda m: m.gru_sequence(_params(4, 3), arr(12, 3), arr(4)),
    ),
    ("gru_sequence", "h 2, in 6, T 1", lambda m: m.gru_sequence(_params(2, 6), arr(1, 6), arr(2))),
    (
        "gru_sequence",
        "h 3, in 3, T 40",
        lambda m: m.gru_sequence(_params(3, 3), arr(40, 3), arr(3)),
    ),
]
