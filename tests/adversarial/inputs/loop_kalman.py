from adv_data import arr

CALLS = [
    ("kalman_1d", "f32[50]", lambda m: m.kalman_1d(arr(50), 0.01, 0.5)),
    ("kalman_1d", "f32[1]", lambda m: m.kalman_1d(arr(1), 0.1, 1.0)),
    ("kalman_1d", "int32[8] measurements", lambda m: m.kalman_1d(arr(8, dtype="int32"), 0.1, 2.0)),
    ("kalman_1d", "f32[0] (jnp.array([]) of no means)", lambda m: m.kalman_1d(arr(0), 0.1, 1.0)),
    ("kalman_1d", "f32[5,2] two sensors", lambda m: m.kalman_1d(arr(5, 2), 0.05, 0.3)),
    ("kalman_final", "f32[30]", lambda m: m.kalman_final(arr(30), 0.4)),
    ("kalman_final", "f32[0]", lambda m: m.kalman_final(arr(0), 0.4)),
    ("kalman_final", "f32[6,3]", lambda m: m.kalman_final(arr(6, 3), 0.2)),
]
