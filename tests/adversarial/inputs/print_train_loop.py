from adv_data import arr


def _three_steps(m):
    w = arr(3)
    x, y = arr(10, 3, seed=1), arr(10, seed=2)
    losses = []
    for _ in range(3):
        w, loss = m.train_step(w, x, y, 0.05)
        losses.append(loss)
    return w, losses


CALLS = [
    (
        "train_step",
        "X[6,4] w[4]",
        lambda m: m.train_step(arr(4), arr(6, 4, seed=1), arr(6, seed=2), 0.1),
    ),
    ("train_step", "three steps", _three_steps),
]
