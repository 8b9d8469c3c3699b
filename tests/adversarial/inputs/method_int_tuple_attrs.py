from adv_data import arr


def _change_depth(m):
    net = m.TinyMLP(arr(4, 4) * 0.5, 1, (2, 2))
    a = net.forward(arr(4))
    net.n_layers = 3
    b = net.forward(arr(4))
    net.out_shape = (4,)
    c = net.forward(arr(4))
    return a, b, c


CALLS = [
    (
        "TinyMLP.forward",
        "2 layers x[6,3]->(3,6)",
        lambda m: m.TinyMLP(arr(3, 3), 2, (3, 6)).forward(arr(6, 3)),
    ),
    ("TinyMLP.forward", "0 layers", lambda m: m.TinyMLP(arr(2, 2), 0, (4,)).forward(arr(2, 2))),
    (
        "TinyMLP.forward",
        "list out_shape",
        lambda m: m.TinyMLP(arr(2, 2), 1, [2, 2]).forward(arr(2, 2)),
    ),
    ("TinyMLP.forward", "change depth and shape", _change_depth),
]
