from adv_data import arr


def _model(m):
    params = {"w": arr(3, 2), "b": arr(2, seed=1)}
    layers = [(arr(3, 5, seed=2), arr(5, seed=3)), (arr(5, 3, seed=4), arr(3, seed=5))]
    return m.Model(params, layers)


def _swap(m):
    model = _model(m)
    a = model.body(arr(4, 3))
    model.layers = model.layers[:1]
    b = model.body(arr(4, 3))
    model.params = {"w": arr(3, 2, seed=8), "b": arr(2, seed=9)}
    return a, b, model.head(arr(4, 3))


CALLS = [
    ("Model.head", "x[4,3]", lambda m: _model(m).head(arr(4, 3))),
    ("Model.head", "x[3]", lambda m: _model(m).head(arr(3))),
    ("Model.body", "x[6,3]", lambda m: _model(m).body(arr(6, 3))),
    (("Model.head", "Model.body"), "swap layers and params", _swap),
    ("Model.body", "no layers", lambda m: m.Model({}, []).body(arr(2, 2))),
]
