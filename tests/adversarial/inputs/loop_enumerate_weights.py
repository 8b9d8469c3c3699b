from adv_data import arr, u8

CALLS = [
    ("discounted", "f32[50]", lambda m: m.discounted(arr(50))),
    ("discounted", "f32[4,3] gamma 0.5", lambda m: m.discounted(arr(4, 3), gamma=0.5)),
    ("discounted", "int32[6]", lambda m: m.discounted(arr(6, dtype="int32"), gamma=0.9)),
    ("discounted", "f32[0]", lambda m: m.discounted(arr(0))),
    ("position_checksum", "u8[40] wraps", lambda m: m.position_checksum(u8(40))),
    ("position_checksum", "int32[10]", lambda m: m.position_checksum(arr(10, dtype="int32"))),
    ("position_checksum", "f32[5,2]", lambda m: m.position_checksum(arr(5, 2))),
    ("harmonic_weighted", "f32[20] start=1", lambda m: m.harmonic_weighted(arr(20))),
    ("harmonic_weighted", "f32[3,4]", lambda m: m.harmonic_weighted(arr(3, 4))),
]
