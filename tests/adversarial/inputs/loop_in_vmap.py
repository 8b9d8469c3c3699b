from adv_data import arr

CALLS = [
    ("sequence_energy", "batch[3,8,2]", lambda m: m.batched_energy(arr(3, 8, 2))),
    ("sequence_energy", "batch[2,1]", lambda m: m.batched_energy(arr(2, 1))),
    ("sequence_energy", "batch[4,0,3]", lambda m: m.batched_energy(arr(4, 0, 3))),
    ("sequence_prefix", "batch[2,6,3]", lambda m: m.batched_prefix(arr(2, 6, 3))),
    ("sequence_prefix", "int32 batch[3,4]", lambda m: m.batched_prefix(arr(3, 4, dtype="int32"))),
]
