from adv_data import arr

CALLS = [
    ("horner", "coeffs[4] x[9]", lambda m: m.horner(arr(4), arr(9, seed=3))),
    ("horner", "coeffs[1] x[2,3]", lambda m: m.horner(arr(1), arr(2, 3, seed=3))),
    ("horner", "coeffs[6] scalar x", lambda m: m.horner(arr(6), 0.5)),
    ("horner", "coeffs[0] x[5]", lambda m: m.horner(arr(0), arr(5, seed=3))),
    (
        "horner",
        "int32 coeffs[5] x f32[3]",
        lambda m: m.horner(arr(5, dtype="int32"), arr(3, seed=3)),
    ),
    ("chebyshev_terms", "coeffs[5] x[7]", lambda m: m.chebyshev_terms(arr(5), arr(7, seed=4))),
    ("chebyshev_terms", "coeffs[1] x[3]", lambda m: m.chebyshev_terms(arr(1), arr(3, seed=4))),
    (
        "chebyshev_terms",
        "coeffs[12] x[2,2]",
        lambda m: m.chebyshev_terms(arr(12), arr(2, 2, seed=4)),
    ),
]
