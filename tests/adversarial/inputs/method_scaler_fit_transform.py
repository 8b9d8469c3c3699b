from adv_data import arr


def _fit_transform(m, X, Y, with_mean=True):
    s = m.StandardScaler(with_mean=with_mean).fit(X)
    return s.transform(Y)


def _refit(m):
    s = m.StandardScaler().fit(arr(10, 3))
    first = s.transform(arr(4, 3, seed=2))
    s.fit(arr(6, 3, seed=7) * 5 + 2)
    second = s.transform(arr(4, 3, seed=2))
    return first, second


def _toggle(m):
    s = m.StandardScaler().fit(arr(8, 2))
    a = s.transform(arr(3, 2, seed=4))
    s.with_mean = False
    b = s.transform(arr(3, 2, seed=4))
    return a, b


def _round_trip(m):
    s = m.StandardScaler().fit(arr(9, 4))
    z = s.transform(arr(5, 4, seed=3))
    return z, s.inverse_transform(z)


CALLS = [
    (
        "StandardScaler.transform",
        "fit [10,3] transform [4,3]",
        lambda m: _fit_transform(m, arr(10, 3), arr(4, 3, seed=1)),
    ),
    (
        "StandardScaler.transform",
        "fit [50,1] transform [1,1]",
        lambda m: _fit_transform(m, arr(50, 1), arr(1, 1, seed=1)),
    ),
    (
        "StandardScaler.transform",
        "with_mean=False",
        lambda m: _fit_transform(m, arr(7, 2), arr(3, 2, seed=1), False),
    ),
    (
        "StandardScaler.transform",
        "int32 X",
        lambda m: _fit_transform(m, arr(6, 2), arr(3, 2, dtype="int32")),
    ),
    ("StandardScaler.transform", "refit then transform (stale?)", _refit),
    ("StandardScaler.transform", "toggle with_mean after fit", _toggle),
    (
        "StandardScaler.transform",
        "transform before fit (raises)",
        lambda m: m.StandardScaler().transform(arr(3, 2)),
    ),
    (("StandardScaler.transform", "StandardScaler.inverse_transform"), "round trip", _round_trip),
]
