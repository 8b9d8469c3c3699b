from adv_data import arr

CALLS = [
    ("truncated_ema", "x[8], no limit", lambda m: m.truncated_ema(arr(8), 0.3)),
    ("truncated_ema", "x[8], max_steps 3", lambda m: m.truncated_ema(arr(8), 0.3, max_steps=3)),
    (
        "truncated_ema",
        "x[4,2], max_steps 10",
        lambda m: m.truncated_ema(arr(4, 2), 0.5, max_steps=10),
    ),
    ("skip_warmup", "x[7]", lambda m: m.skip_warmup(arr(7))),
    ("skip_warmup", "x[3,2], warmup 1", lambda m: m.skip_warmup(arr(3, 2), warmup=1)),
    ("skip_warmup", "x[2], warmup 5", lambda m: m.skip_warmup(arr(2), warmup=5)),
    ("first_pass", "x[5]", lambda m: m.first_pass(arr(5))),
    ("first_pass", "x[4,3], order 0", lambda m: m.first_pass(arr(4, 3), order=0)),
    ("first_pass", "int32 x[6], order 2", lambda m: m.first_pass(arr(6, dtype="int32"), order=2)),
    ("tail_sum", "x[9]", lambda m: m.tail_sum(arr(9))),
    ("tail_sum", "x[2], stop 3", lambda m: m.tail_sum(arr(2))),
    ("tail_sum", "int32 x[5], stop 0", lambda m: m.tail_sum(arr(5, dtype="int32"), stop=0)),
]
