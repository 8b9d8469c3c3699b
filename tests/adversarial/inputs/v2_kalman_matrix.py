import jax.numpy as jnp
from adv_data import arr


def model(n, m, dtype="float32"):
    F = jnp.eye(n) * 0.9 + 0.05 * arr(n, n, seed=1)
    H = arr(m, n, seed=2)
    Q = 0.1 * jnp.eye(n)
    R = 0.5 * jnp.eye(m)
    return F.astype(dtype), H.astype(dtype), Q.astype(dtype), R.astype(dtype)


def filt(mod, T, n, m, x0=None, P0=None, zs=None, dtype="float32"):
    F, H, Q, R = model(n, m, dtype)
    zs = arr(T, m, seed=5).astype(dtype) if zs is None else zs
    x0 = jnp.zeros(n) if x0 is None else x0
    P0 = jnp.eye(n) if P0 is None else P0
    return mod.kalman_filter(zs, F, H, Q, R, x0, P0)


def smooth(mod, T, n):
    F, H, Q, R = model(n, 1)
    means = arr(T, n, seed=6)
    covs = (
        jnp.stack([jnp.eye(n) * (1.0 + 0.1 * k) for k in range(T)]) if T else jnp.zeros((0, n, n))
    )
    return mod.rts_smoother(means, covs, F, Q)


CALLS = [
    ("kalman_filter", "T=9, n=2, m=1", lambda m: filt(m, 9, 2, 1)),
    ("kalman_filter", "T=1, n=3, m=2", lambda m: filt(m, 1, 3, 2)),
    (
        "kalman_filter",
        "int32 x0 and P0",
        lambda m: filt(m, 5, 2, 2, x0=jnp.zeros(2, jnp.int32), P0=jnp.eye(2, dtype=jnp.int32)),
    ),
    (
        "kalman_filter",
        "NaN observation at t=3",
        lambda m: filt(m, 6, 2, 1, zs=arr(6, 1, seed=5).at[3, 0].set(jnp.nan)),
    ),
    (
        "kalman_filter",
        "int32 observations",
        lambda m: filt(m, 4, 3, 1, zs=arr(4, 1, dtype="int32")),
    ),
    ("rts_smoother", "T=7, n=2", lambda m: smooth(m, 7, 2)),
    ("rts_smoother", "T=2, n=3", lambda m: smooth(m, 2, 3)),
    ("rts_smoother", "T=1 (steps=0)", lambda m: smooth(m, 1, 2)),
]


def filt_std(mod, T, n, m, x0=None, zs=None, q=0.3, r=0.7):
    F, H, _, _ = model(n, m)
    zs = arr(T, m, seed=7) if zs is None else zs
    x0 = jnp.zeros(n) if x0 is None else x0
    return mod.kalman_std(zs, F, H, q, r, x0)


CALLS += [
    ("kalman_std", "T=8, n=2, m=1", lambda m: filt_std(m, 8, 2, 1)),
    ("kalman_std", "T=1, n=3, m=3", lambda m: filt_std(m, 1, 3, 3)),
    (
        "kalman_std",
        "int32 x0 (P int32 identity)",
        lambda m: filt_std(m, 5, 2, 2, x0=jnp.array([1, -1], jnp.int32)),
    ),
    (
        "kalman_std",
        "NaN observation",
        lambda m: filt_std(m, 4, 2, 1, zs=arr(4, 1, seed=7).at[1, 0].set(jnp.nan)),
    ),
    (
        "kalman_std",
        "f32 scales, int32 zs",
        lambda m: filt_std(
            m, 6, 3, 2, zs=arr(6, 2, dtype="int32"), q=jnp.float32(0.1), r=jnp.float32(1.5)
        ),
    ),
    ("kalman_std", "T=0", lambda m: filt_std(m, 0, 2, 1)),
]
CALLS.append(
    (("demo", "kalman_std", "kalman_filter", "rts_smoother"), "demo()", lambda m: m.demo())
)
