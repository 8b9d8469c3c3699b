from adv_data import arr


def _run(opt, params, grads, n):
    trace = []
    for _ in range(n):
        params = opt.update(params, grads)
        trace.append(params)
    return trace


def _at_step(m, step):
    opt = m.WarmupSGD(0.5, 3, 0.9)
    opt.step = step
    return opt.apply(arr(1), arr(1, seed=3))


CALLS = [
    (
        ("WarmupSGD.apply", "WarmupSGD.update"),
        "5 updates, warmup 2, dict params",
        lambda m: _run(
            m.WarmupSGD(0.1, 2),
            {"w": arr(3, 2), "b": arr(2)},
            {"w": arr(3, 2, seed=1), "b": arr(2, seed=2)},
            5,
        ),
    ),
    (
        ("WarmupSGD.apply", "WarmupSGD.update"),
        "4 updates, warmup 1, decay 0.25, bf16",
        lambda m: _run(
            m.WarmupSGD(1.0, 1, 0.25), arr(4, dtype="bfloat16"), arr(4, dtype="bfloat16", seed=5), 4
        ),
    ),
    ("WarmupSGD.apply", "step set by hand to 7", lambda m: _at_step(m, 7)),
    (
        "WarmupSGD.apply",
        "list params, step 0",
        lambda m: m.WarmupSGD(0.3, 4).apply(
            [arr(2), arr(1, 1)], [arr(2, seed=7), arr(1, 1, seed=8)]
        ),
    ),
]
