from adv_data import arr


def _two_steps(m):
    t = m.Trainer(arr(3), 0.1)
    a = t.step(arr(4, 3), arr(4, seed=1))
    t.w = arr(3, seed=9)
    return a, t.step(arr(4, 3), arr(4, seed=1))


CALLS = [
    (
        "Trainer.step",
        "x[5,3]",
        lambda m: m.Trainer(arr(3), 0.1).step(arr(5, 3, seed=1), arr(5, seed=2)),
    ),
    ("Trainer.step", "weights changed", _two_steps),
    ("Trainer.predict", "x[2,3] lr 0.1", lambda m: m.Trainer(arr(3), 0.1).predict(arr(2, 3))),
    (
        "Trainer.predict",
        "x[3] lr 0.05 twice",
        lambda m: [m.Trainer(arr(3), 0.05).predict(arr(3, seed=s)) for s in (1, 2)],
    ),
]
