from adv_data import arr

CALLS = [
    ("metrics", "f32[8]", lambda m: m.metrics(arr(8), arr(8, seed=2))),
    ("pair", "f32[3] f32[2,2]", lambda m: m.pair(arr(3), arr(2, 2))),
    ("pair", "int32 arrays", lambda m: m.pair(arr(3, dtype="int32"), arr(2, dtype="int32"))),
    ("listing", "f32[5]", lambda m: m.listing(arr(5))),
]
