from adv_data import arr

CALLS = [
    ("second_moment", "f32[30] center=False", lambda m: m.second_moment(arr(30))),
    ("second_moment", "f32[30] center=True", lambda m: m.second_moment(arr(30), center=True)),
    ("second_moment", "f32[6,3] center=True", lambda m: m.second_moment(arr(6, 3), center=True)),
    (
        "second_moment",
        "int32[9] center=True",
        lambda m: m.second_moment(arr(9, dtype="int32"), center=True),
    ),
    ("total_and_peak", "f32[20] track", lambda m: m.total_and_peak(arr(20), True)),
    ("total_and_peak", "f32[20] no track", lambda m: m.total_and_peak(arr(20), False)),
    ("total_and_peak", "f32[8,2] track", lambda m: m.total_and_peak(arr(8, 2), True)),
    ("total_and_peak", "f32[0,2] no track", lambda m: m.total_and_peak(arr(0, 2), False)),
    ("accumulate_from", "f32[12] default", lambda m: m.accumulate_from(arr(12))),
    (
        "accumulate_from",
        "f32[12] init first",
        lambda m: m.accumulate_from(arr(12), init_with_first=True),
    ),
    (
        "accumulate_from",
        "f32[5,3] init first",
        lambda m: m.accumulate_from(arr(5, 3), init_with_first=True),
    ),
    ("accumulate_from", "f32[1] default", lambda m: m.accumulate_from(arr(1))),
]
