from adv_data import arr


def _mutate(m):
    p = m.Polynomial([1.0, -2.0, 0.5])
    a = p(arr(5))
    p.coeffs.append(3.0)
    b = p(arr(5))
    return a, b, p.degree_scaled(arr(2))


CALLS = [
    ("Polynomial.__call__", "3 coeffs x[5]", lambda m: m.Polynomial([1.0, -2.0, 0.5])(arr(5))),
    ("Polynomial.__call__", "ints x[2,2]", lambda m: m.Polynomial((2, 3))(arr(2, 2))),
    (("Polynomial.__call__", "Polynomial.degree_scaled"), "list mutated in place", _mutate),
    (
        "Affine.apply",
        "x[4,3]",
        lambda m: m.Affine(arr(3, 2), arr(2, seed=1)).apply(arr(4, 3, seed=2)),
    ),
    ("Affine.apply", "x[3]", lambda m: m.Affine(arr(3, 5), arr(5, seed=1)).apply(arr(3, seed=2))),
]
