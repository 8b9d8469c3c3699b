from adv_data import arr


def _rnn(m, h, d):
    return m.RNN(arr(h, h) * 0.3, arr(h, d, seed=1), arr(h, seed=2))


CALLS = [
    ("RNN.final_state", "h 4 d 3 T 10", lambda m: _rnn(m, 4, 3).final_state(arr(10, 3, seed=3))),
    ("RNN.final_state", "h 2 d 5 T 1", lambda m: _rnn(m, 2, 5).final_state(arr(1, 5, seed=3))),
    ("RNN.final_state", "h 3 d 2 T 0", lambda m: _rnn(m, 3, 2).final_state(arr(0, 2, seed=3))),
    ("RNN.total_input", "h 4 d 3 T 7", lambda m: _rnn(m, 4, 3).total_input(arr(7, 3, seed=3))),
    ("RNN.total_input", "h 2 d 2 T 40", lambda m: _rnn(m, 2, 2).total_input(arr(40, 2, seed=3))),
]
