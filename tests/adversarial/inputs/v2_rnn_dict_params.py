import jax.numpy as jnp
from adv_data import arr


def params(n_in=3, n_h=4, n_out=2, dtype="float32"):
    return {
        "W_xh": (arr(n_in, n_h, seed=1) * 0.5).astype(dtype),
        "W_hh": (arr(n_h, n_h, seed=2) * 0.3).astype(dtype),
        "b": (arr(n_h, seed=3) * 0.1).astype(dtype),
        "W_hy": (arr(n_h, n_out, seed=4)).astype(dtype),
    }


def with_nan(x, t):
    return x.at[t].set(jnp.nan)


CALLS = [
    ("run_rnn", "xs[7,3]", lambda m: m.run_rnn(params(), arr(7, 3))),
    ("run_rnn", "xs[1,3]", lambda m: m.run_rnn(params(), arr(1, 3))),
    (
        "run_rnn",
        "bf16 params, f32 xs[5,3]",
        lambda m: m.run_rnn(params(dtype="bfloat16"), arr(5, 3)),
    ),
    ("run_rnn", "int32 xs[6,3]", lambda m: m.run_rnn(params(), arr(6, 3, dtype="int32"))),
    ("run_rnn", "xs[4,2,3] batched", lambda m: m.run_rnn(params(), arr(4, 2, 3))),
    ("run_rnn", "xs[5,3] NaN at t=2", lambda m: m.run_rnn(params(), with_nan(arr(5, 3), 2))),
    ("encode", "xs[6,3], h0[4]", lambda m: m.encode(params(), arr(6, 3), arr(4, seed=9))),
    (
        "encode",
        "xs[4,2,3] batch, h0[4]",
        lambda m: m.encode(params(), arr(4, 2, 3), arr(4, seed=9)),
    ),
    ("encode", "xs[3,3], f16 h0", lambda m: m.encode(params(), arr(3, 3), arr(4, dtype="float16"))),
    ("encode", "T=0", lambda m: m.encode(params(), arr(0, 3), arr(4, seed=9))),
    ("readout", "xs[7,3]", lambda m: m.readout(params(), arr(7, 3))),
    ("readout", "xs[2,3] leak=1.0", lambda m: m.readout(params(), arr(2, 3), 1.0)),
    ("readout", "f16 xs[3,3]", lambda m: m.readout(params(), arr(3, 3, dtype="float16"))),
]
CALLS.append((("demo", "run_rnn", "encode", "readout"), "demo()", lambda m: m.demo()))
