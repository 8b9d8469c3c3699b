from adv_data import arr


def _updates(m, decay):
    ema = m.EMA({"w": arr(3, 2), "b": arr(2, seed=1)}, decay=decay)
    for k in range(4):
        ema.update({"w": arr(3, 2, seed=10 + k), "b": arr(2, seed=20 + k)})
    return ema.shadow


CALLS = [
    ("EMA.blended", "blend once", lambda m: m.EMA([arr(4)], 0.9).blended([arr(4, seed=3)])),
    (("EMA.blended", "EMA.update"), "4 updates decay 0.5", lambda m: _updates(m, 0.5)),
    (("EMA.blended", "EMA.update"), "4 updates decay 0.99", lambda m: _updates(m, 0.99)),
    ("EMA.blended", "mismatched trees (raises)", lambda m: m.EMA([arr(2)], 0.9).blended((arr(2),))),
]
