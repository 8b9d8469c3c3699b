from adv_data import arr

CALLS = [
    ("backward_discount", "f32[30]", lambda m: m.backward_discount(arr(30), 0.9)),
    ("backward_discount", "f32[5,2]", lambda m: m.backward_discount(arr(5, 2), 0.5)),
    ("backward_discount", "f32[0]", lambda m: m.backward_discount(arr(0), 0.5)),
    ("returns_to_go", "f32[12]", lambda m: m.returns_to_go(arr(12), 0.8)),
    ("returns_to_go", "f32[1]", lambda m: m.returns_to_go(arr(1), 0.8)),
    ("returns_to_go", "f32[4,3]", lambda m: m.returns_to_go(arr(4, 3), 0.3)),
]
