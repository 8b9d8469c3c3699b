from adv_data import arr


def _update(m):
    g = m.Gaussian(arr(3), arr(3, seed=1))
    a = g.log_prob(arr(3, seed=2))
    g.log_sigma = arr(3, seed=7)
    return a, g.log_prob(arr(3, seed=2))


CALLS = [
    (
        "Gaussian.log_prob",
        "x[5,3]",
        lambda m: m.Gaussian(arr(3), arr(3, seed=1)).log_prob(arr(5, 3, seed=2)),
    ),
    ("Gaussian.log_prob", "python scalars", lambda m: m.Gaussian(0.0, 0.5).log_prob(arr(4))),
    ("Gaussian.log_prob", "log_sigma updated", _update),
]
