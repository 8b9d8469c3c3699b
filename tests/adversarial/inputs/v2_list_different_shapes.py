import jax.numpy as jnp
from adv_data import arr


def box(n):
    return jnp.ones(n, jnp.float32)


CALLS = [
    (
        "multiscale",
        "kernels of len 3, 5, 9",
        lambda m: m.multiscale(arr(16), [box(3), arr(5) ** 2 + 0.1, box(9)]),
    ),
    ("multiscale", "1-tuple of kernel", lambda m: m.multiscale(arr(12), (box(3),))),
    (
        "multiscale",
        "kernels f32[2,3] array",
        lambda m: m.multiscale(arr(10), jnp.stack([box(3), box(3) * 2.0])),
    ),
    (
        "multiscale",
        "int32 signal, kernels len 2 and 4",
        lambda m: m.multiscale(arr(9, dtype="int32"), [box(2), box(4)]),
    ),
    ("band_energies", "levels [8], [4], [2]", lambda m: m.band_energies([arr(8), arr(4), arr(2)])),
    ("band_energies", "levels [3,3], [1]", lambda m: m.band_energies((arr(3, 3), arr(1)))),
    ("band_energies", "levels f32[4,5] array", lambda m: m.band_energies(arr(4, 5))),
    (("pyramid", "band_energies"), "x[16]", lambda m: m.pyramid(arr(16))),
    (("pyramid", "band_energies"), "x[8] bf16", lambda m: m.pyramid(arr(8, dtype="bfloat16"))),
]
CALLS += [
    (
        "level_gain",
        "levels [8],[4],[2], gains[3]",
        lambda m: m.level_gain([arr(8), arr(4), arr(2)], jnp.array([1.0, 0.5, 0.25])),
    ),
    (
        "level_gain",
        "levels ([3,3],[5]), gains[2]",
        lambda m: m.level_gain((arr(3, 3), arr(5)), arr(2)),
    ),
    ("level_gain", "levels f32[4,6] array, gains[4]", lambda m: m.level_gain(arr(4, 6), arr(4))),
    ("level_gain", "int32 gains[2]", lambda m: m.level_gain([arr(4), arr(2)], jnp.array([2, 3]))),
]
