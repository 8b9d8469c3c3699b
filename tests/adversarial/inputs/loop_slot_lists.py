from adv_data import arr

BOOL_DONES = lambda n: arr(n, dtype="bool", seed=4)  # noqa: E731

CALLS = [
    ("gae_slots", "T=8", lambda m: m.gae_slots(arr(8), arr(8, seed=2), BOOL_DONES(8), 0.99, 0.95)),
    ("gae_slots", "T=2", lambda m: m.gae_slots(arr(2), arr(2, seed=2), BOOL_DONES(2), 0.9, 0.9)),
    ("gae_slots", "T=1", lambda m: m.gae_slots(arr(1), arr(1, seed=2), BOOL_DONES(1), 0.9, 0.9)),
    (
        "gae_slots",
        "T=5 x 3 envs",
        lambda m: m.gae_slots(arr(5, 3), arr(5, 3, seed=2), arr(5, 3, dtype="bool"), 0.99, 0.95),
    ),
    (
        "gae_slots",
        "bf16 values",
        lambda m: m.gae_slots(
            arr(6, dtype="bfloat16"), arr(6, dtype="bfloat16", seed=2), BOOL_DONES(6), 0.99, 0.95
        ),
    ),
    ("discounted_returns", "n=7", lambda m: m.discounted_returns(arr(7), 0.9)),
    ("discounted_returns", "n=1", lambda m: m.discounted_returns(arr(1), 0.9)),
    ("discounted_returns", "n=0", lambda m: m.discounted_returns(arr(0), 0.9)),
    (
        "discounted_returns",
        "int rewards",
        lambda m: m.discounted_returns(arr(6, dtype="int32"), 0.5),
    ),
    ("discounted_returns", "float16", lambda m: m.discounted_returns(arr(5, dtype="float16"), 0.5)),
    ("prefix_max", "n=9", lambda m: m.prefix_max(arr(9))),
    ("prefix_max", "n=1", lambda m: m.prefix_max(arr(1))),
    ("prefix_max", "(6, 3)", lambda m: m.prefix_max(arr(6, 3))),
    ("prefix_max", "int32", lambda m: m.prefix_max(arr(7, dtype="int32"))),
    ("with_spare_slot", "n=5", lambda m: m.with_spare_slot(arr(5), 2.0)),
    ("with_spare_slot", "n=0", lambda m: m.with_spare_slot(arr(0, 2), 2.0)),
    ("with_spare_slot", "(4, 3) int", lambda m: m.with_spare_slot(arr(4, 3, dtype="int32"), 3)),
    ("counts_as_ints", "n=6", lambda m: m.counts_as_ints(arr(6))),
    ("counts_as_ints", "uint8", lambda m: m.counts_as_ints(arr(5, dtype="uint8"))),
    ("counts_as_ints", "bool", lambda m: m.counts_as_ints(arr(4, dtype="bool"))),
    ("inner_slots", "n=6", lambda m: m.inner_slots(arr(6))),
    ("reads_previous_slot", "n=6", lambda m: m.reads_previous_slot(arr(6))),
]
