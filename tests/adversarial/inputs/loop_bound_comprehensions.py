from adv_data import arr

CALLS = [
    ("polar_points", "f32[7] f32[7]", lambda m: m.polar_points(arr(7), arr(7, seed=3))),
    ("polar_points", "f32[4] f32[9]", lambda m: m.polar_points(arr(4), arr(9, seed=3))),
    ("polar_points", "f32[0] f32[0]", lambda m: m.polar_points(arr(0), arr(0, seed=3))),
    ("polar_points", "f32[1] f32[3]", lambda m: m.polar_points(arr(1), arr(3, seed=3))),
    ("polar_points", "f32[5] f32[2] (too short)", lambda m: m.polar_points(arr(5), arr(2))),
    ("doubled_counts", "int32[6]", lambda m: m.doubled_counts(arr(6, dtype="int32"))),
    ("doubled_counts", "int32[0]", lambda m: m.doubled_counts(arr(0, dtype="int32"))),
    ("doubled_counts", "uint8[4]", lambda m: m.doubled_counts(arr(4, dtype="uint8"))),
    ("weighted", "f32[6] f32[6]", lambda m: m.weighted(arr(6), arr(6, seed=2))),
    ("weighted", "f32[6] f32[3] (too short)", lambda m: m.weighted(arr(6), arr(3, seed=2))),
    ("weighted", "f32[3] f32[8]", lambda m: m.weighted(arr(3), arr(8, seed=2))),
    ("ramp", "f16[5]", lambda m: m.ramp(arr(5, dtype="float16"))),
    ("ramp", "f32[8]", lambda m: m.ramp(arr(8))),
    ("ramp", "int32[4]", lambda m: m.ramp(arr(4, dtype="int32"))),
    ("ramp", "f32[0]", lambda m: m.ramp(arr(0))),
    ("pairs", "f32[4]", lambda m: m.pairs(arr(4))),
    ("window_sums", "f32[6]", lambda m: m.window_sums(arr(6))),
    ("column_features", "f32[5,3]", lambda m: m.column_features(arr(5, 3))),
    ("column_features", "f32[1,4]", lambda m: m.column_features(arr(1, 4))),
]
