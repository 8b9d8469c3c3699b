import jax.numpy as jnp
from adv_data import arr


def S(m, q, p):
    return m.State(q, p)


def plain(m, out):
    """(is it still a State?, its fields, the rest): the State class differs between the original
    and the fixed module, so the pytree structure is compared through this flag."""
    state, rest = out
    return isinstance(state, m.State), tuple(state), rest


def grid(n, dtype="float32"):
    return (jnp.linspace(0.0, 1.0, n) ** 1.5).astype(dtype)


CALLS = [
    (
        "leapfrog",
        "State(f32[3], f32[3]), ts[8]",
        lambda m: plain(m, m.leapfrog(S(m, arr(3), arr(3, seed=2)), grid(8), 2.0)),
    ),
    (
        "leapfrog",
        "ts[2] one step",
        lambda m: plain(m, m.leapfrog(S(m, arr(2), arr(2, seed=2)), grid(2), 1.0)),
    ),
    (
        "leapfrog",
        "State(1.0, 0.0) python floats",
        lambda m: plain(m, m.leapfrog(S(m, 1.0, 0.0), grid(6), 1.5)),
    ),
    (
        "leapfrog",
        "int32 q, f32 p",
        lambda m: plain(m, m.leapfrog(S(m, arr(4, dtype="int32"), arr(4, seed=2)), grid(5), 0.5)),
    ),
    (
        "leapfrog",
        "f16 grid",
        lambda m: plain(m, m.leapfrog(S(m, arr(3), arr(3, seed=2)), grid(5, "float16"), 1.0)),
    ),
    (
        "leapfrog",
        "ts[1] (steps=0)",
        lambda m: plain(m, m.leapfrog(S(m, arr(3), arr(3, seed=2)), grid(1), 1.0)),
    ),
    (
        "euler_energy",
        "State(f32[2,2]) ts[7]",
        lambda m: plain(m, m.euler_energy(S(m, arr(2, 2), arr(2, 2, seed=3)), grid(7))),
    ),
    (
        "euler_energy",
        "State(1.0, 0.5) ts[4] k=3",
        lambda m: plain(m, m.euler_energy(S(m, 1.0, 0.5), grid(4), 3.0)),
    ),
    (
        "euler_energy",
        "int32 grid",
        lambda m: plain(
            m, m.euler_energy(S(m, arr(3), arr(3, seed=3)), jnp.arange(5, dtype=jnp.int32), 0.1)
        ),
    ),
    (
        "euler_energy",
        "ts[1] (steps=0)",
        lambda m: plain(m, m.euler_energy(S(m, arr(3), arr(3, seed=3)), grid(1))),
    ),
]
CALLS += [
    (
        "verlet_positions",
        "State(f32[3]) dts[6]",
        lambda m: plain(m, m.verlet_positions(S(m, arr(3), arr(3, seed=2)), jnp.full(6, 0.1), 1.0)),
    ),
    (
        "verlet_positions",
        "State(1.0, 0.0) dts[2]",
        lambda m: plain(m, m.verlet_positions(S(m, 1.0, 0.0), jnp.array([0.05, 0.2]), 2.0)),
    ),
    (
        "verlet_positions",
        "int32 q, bf16 dts",
        lambda m: plain(
            m,
            m.verlet_positions(
                S(m, arr(2, dtype="int32"), arr(2)), jnp.full(3, 0.1, jnp.bfloat16), 1.0
            ),
        ),
    ),
    (
        "verlet_positions",
        "dts[1], q[2,2]",
        lambda m: plain(
            m, m.verlet_positions(S(m, arr(2, 2), arr(2, 2, seed=3)), jnp.array([0.3]), 0.5)
        ),
    ),
]
