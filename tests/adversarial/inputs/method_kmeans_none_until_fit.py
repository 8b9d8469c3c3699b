from adv_data import arr


def _refit(m):
    km = m.KMeans(2).fit(arr(6, 3))
    a = km.predict(arr(9, 3, seed=2))
    km.fit(arr(6, 3, seed=5))
    return a, km.predict(arr(9, 3, seed=2)), km.inertia(arr(9, 3, seed=2))


CALLS = [
    (
        "KMeans.predict",
        "k=3 X[20,2]",
        lambda m: m.KMeans(3).fit(arr(10, 2)).predict(arr(20, 2, seed=1)),
    ),
    (
        "KMeans.predict",
        "k=1 X[1,4]",
        lambda m: m.KMeans(1).fit(arr(3, 4)).predict(arr(1, 4, seed=1)),
    ),
    ("KMeans.predict", "before fit (raises)", lambda m: m.KMeans(2).predict(arr(3, 2))),
    (("KMeans.predict", "KMeans.inertia"), "refit", _refit),
    ("KMeans.inertia", "X[0,2]", lambda m: m.KMeans(2).fit(arr(4, 2)).inertia(arr(0, 2))),
]
