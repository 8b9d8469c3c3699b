from adv_data import arr


def _eps(m):
    n = m.Normalizer(arr(3))
    a = n.normalize(arr(2, 3))
    n.eps = 10.0
    return a, n.normalize(arr(2, 3))


CALLS = [
    ("Normalizer.normalize", "x[4,3]", lambda m: m.Normalizer(arr(3)).normalize(arr(4, 3, seed=2))),
    ("Normalizer.normalize", "x[7]", lambda m: m.Normalizer(arr(7)).normalize(arr(7, seed=2))),
    ("Normalizer.normalize", "eps change", _eps),
    (
        "Normalizer.normalize",
        "subclass instance",
        lambda m: m.ScaledNormalizer(arr(3), 2.0).normalize(arr(3, seed=4)),
    ),
    (
        "ScaledNormalizer.scaled",
        "gain 2.0",
        lambda m: m.ScaledNormalizer(arr(3), 2.0).scaled(arr(2, 3)),
    ),
    (
        "ScaledNormalizer.scaled",
        "gain array",
        lambda m: m.ScaledNormalizer(arr(3), arr(3, seed=6)).scaled(arr(3)),
    ),
]
