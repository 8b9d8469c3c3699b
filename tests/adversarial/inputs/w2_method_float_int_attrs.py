import jax.numpy as jnp
from adv_data import arr


def _retuned(m):
    s = m.Smoother(0.3, 2, pad=(1, 2), clip=0.5)
    a = s.smooth(arr(7))
    s.alpha = 0.9
    s.n_passes = 4
    s.clip = None
    b = s.smooth(arr(7))
    s.pad = (0, 0)
    s.clip = 2
    c = s.smooth(arr(7))
    return a, b, c


CALLS = [
    ("Smoother.smooth", "x[7] defaults", lambda m: m.Smoother(0.5, 1).smooth(arr(7))),
    ("Smoother.smooth", "x[1] pad clip", lambda m: m.Smoother(0.2, 3, (2, 0), 0.1).smooth(arr(1))),
    ("Smoother.smooth", "retuned between calls", _retuned),
    (
        "Smoother.smooth",
        "array alpha, bf16 x",
        lambda m: m.Smoother(jnp.float32(0.7), 2, (1, 1)).smooth(arr(5, dtype="bfloat16")),
    ),
    (
        "Smoother.smooth",
        "pad as a list [1, 2] (as a YAML config gives it)",
        lambda m: m.Smoother(0.5, 2, [1, 2]).smooth(arr(3)),
    ),
    (
        "Smoother.smooth",
        "clip as a 0-d array",
        lambda m: m.Smoother(0.5, 1, clip=jnp.float32(0.25)).smooth(arr(6)),
    ),
    (
        "Smoother.smooth",
        "zero passes, int32 x",
        lambda m: m.Smoother(0.5, 0, (1, 0), 1).smooth(arr(4, dtype="int32")),
    ),
]
