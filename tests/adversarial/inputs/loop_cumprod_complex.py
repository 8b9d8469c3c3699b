from adv_data import arr

CALLS = [
    ("cumulative_product", "c64[12]", lambda m: m.cumulative_product(arr(12, dtype="complex64"))),
    (
        "cumulative_product",
        "c64[3,2]",
        lambda m: m.cumulative_product(arr(3, 2, dtype="complex64")),
    ),
    ("cumulative_product", "f32[1]", lambda m: m.cumulative_product(arr(1))),
    ("cumulative_product", "int32[6]", lambda m: m.cumulative_product(arr(6, dtype="int32"))),
    (
        "cumulative_product",
        "c64[0] (stack of [] raises)",
        lambda m: m.cumulative_product(arr(0, dtype="complex64")),
    ),
    ("accumulated_phase", "f32[25]", lambda m: m.accumulated_phase(arr(25))),
    ("accumulated_phase", "f32[2,3]", lambda m: m.accumulated_phase(arr(2, 3))),
    ("accumulated_phase", "bf16[4]", lambda m: m.accumulated_phase(arr(4, dtype="bfloat16"))),
]
