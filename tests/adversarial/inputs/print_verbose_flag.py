from adv_data import arr

CALLS = [
    ("step", "verbose False", lambda m: m.step(arr(3, 2), arr(3))),
    ("step", "verbose True", lambda m: m.step(arr(3, 2), arr(3), verbose=True)),
    ("step", "verbose True x[4,3]", lambda m: m.step(arr(3, 2), arr(4, 3), True)),
    ("scaled", "level 0", lambda m: m.scaled(arr(4), 0)),
    ("scaled", "level 1", lambda m: m.scaled(arr(4), 1)),
    ("scaled", "level 3", lambda m: m.scaled(arr(4), 3)),
]
