from adv_data import arr


def _rnn(m, hidden, inp, steps):
    W_h = arr(hidden, hidden, seed=1) * 0.3
    W_x = arr(hidden, inp, seed=2)
    return m.rnn_forward(W_h, W_x, arr(hidden, seed=3), arr(steps, inp, seed=4))


def _last(m, hidden, inp, steps):
    W_h = arr(hidden, hidden, seed=1) * 0.3
    W_x = arr(hidden, inp, seed=2)
    return m.rnn_last(W_h, W_x, arr(hidden, seed=5), arr(steps, inp, seed=6))


CALLS = [
    ("rnn_forward", "hidden 4, input 3, T=10", lambda m: _rnn(m, 4, 3, 10)),
    ("rnn_forward", "hidden 2, input 5, T=1", lambda m: _rnn(m, 2, 5, 1)),
    ("rnn_forward", "hidden 3, input 3, T=0 (stack raises)", lambda m: _rnn(m, 3, 3, 0)),
    ("rnn_forward", "hidden 6, input 2, T=45", lambda m: _rnn(m, 6, 2, 45)),
    ("rnn_last", "hidden 5, input 2, T=7", lambda m: _last(m, 5, 2, 7)),
    ("rnn_last", "hidden 3, input 4, T=0 (returns h0)", lambda m: _last(m, 3, 4, 0)),
]
