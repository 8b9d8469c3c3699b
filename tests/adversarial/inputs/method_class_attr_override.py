from adv_data import arr


def _instance_override(m):
    act = m.Activation(2.0)
    a = act(arr(6))
    act.slope = 0.9
    return a, act(arr(6))


CALLS = [
    ("Activation.__call__", "base x[6]", lambda m: m.Activation(1.5)(arr(6))),
    ("Activation.__call__", "subclass slope", lambda m: m.SteepActivation(1.0)(arr(6))),
    ("Activation.__call__", "subclass kind relu", lambda m: m.PlainRelu(3.0)(arr(2, 3))),
    ("Activation.__call__", "instance override", _instance_override),
    ("Activation.__call__", "array gain", lambda m: m.Activation(arr(4, seed=5))(arr(4))),
]
