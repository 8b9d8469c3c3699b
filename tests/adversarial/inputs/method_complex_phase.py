from adv_data import arr

CALLS = [
    (
        "PhaseShifter.shift",
        "c64 signal[6]",
        lambda m: m.PhaseShifter(arr(6)).shift(arr(6, dtype="complex64")),
    ),
    ("PhaseShifter.shift", "f32 signal[3,4]", lambda m: m.PhaseShifter(arr(4)).shift(arr(3, 4))),
    (
        "PhaseShifter.shift",
        "int32 signal",
        lambda m: m.PhaseShifter(arr(2)).shift(arr(2, dtype="int32")),
    ),
    (
        "PhaseShifter.power",
        "c64 signal[5]",
        lambda m: m.PhaseShifter(arr(5)).power(arr(5, dtype="complex64")),
    ),
    (
        "PhaseShifter.power",
        "shape mismatch (raises)",
        lambda m: m.PhaseShifter(arr(3)).power(arr(4)),
    ),
]
