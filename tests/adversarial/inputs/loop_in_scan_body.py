from adv_data import arr

CALLS = [
    (("row_energies", "_step"), "X[6,4]", lambda m: m.row_energies(arr(6, 4))),
    (("row_energies", "_step"), "X[1,9]", lambda m: m.row_energies(arr(1, 9))),
    (("row_energies", "_step"), "X[3,0] empty rows", lambda m: m.row_energies(arr(3, 0))),
    ("fori_then_loop", "f32[20]", lambda m: m.fori_then_loop(arr(20))),
    ("fori_then_loop", "f32[3,2]", lambda m: m.fori_then_loop(arr(3, 2))),
]
