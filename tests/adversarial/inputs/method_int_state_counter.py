import jax.numpy as jnp
from adv_data import u8


def _levels(m):
    q = m.Quantizer(4, 0)
    a = q.histogram(u8(6, 6))
    q.levels = 8
    return a, q.histogram(u8(6, 6)), q.quantize(u8(6, 6))


CALLS = [
    ("Quantizer.quantize", "u8[8,8] 4 levels", lambda m: m.Quantizer(4, 3).quantize(u8(8, 8))),
    (
        "Quantizer.quantize",
        "u8[5] offset uint8",
        lambda m: m.Quantizer(16, jnp.uint8(1)).quantize(u8(5)),
    ),
    (
        "Quantizer.quantize",
        "int32 img",
        lambda m: m.Quantizer(2, 0).quantize(jnp.arange(0, 256, 37)),
    ),
    ("Quantizer.histogram", "u8[10,10]", lambda m: m.Quantizer(4, 0).histogram(u8(10, 10))),
    (("Quantizer.histogram", "Quantizer.quantize"), "levels changed", _levels),
]
