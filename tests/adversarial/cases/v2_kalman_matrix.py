"""Linear-Gaussian Kalman filter and RTS smoother with shape-coupled matrices F, H, Q, R, P.

Traps for a loop → scan rewrite:
- several carries of different ranks (`x[n]`, `P[n,n]`, a scalar log-likelihood started as the
  Python float 0.0) and two stacked outputs;
- `kalman_std` builds Q, R and P0 from noise scales inside the function (P starts as the
  identity, int32 when `x0` is int32) and returns only the log-likelihood and the last mean;
- `x0` and `P0` may be integer arrays (a zero mean, an identity): the first step makes them float;
- the smoother walks backwards (`range(T - 2, -1, -1)`), reads rows `t` of two arrays, and
  builds its output list starting from a NON-EMPTY list `[x]` with `insert(0, ...)`: the
  stacked result has T rows, one more than the loop runs.
"""

import jax
import jax.numpy as jnp


def _solve(S, B, jitter=1e-3):
    return jnp.linalg.solve(S + jitter * jnp.eye(S.shape[0]), B)


@jax.jit
def kalman_filter(zs, F, H, Q, R, x0, P0):
    x, P = x0, P0
    n = F.shape[0]
    loglik = 0.0
    means = []
    covs = []
    for t in range(zs.shape[0]):
        x = F @ x
        P = F @ P @ F.T + Q
        S = H @ P @ H.T + R
        K = _solve(S, H @ P).T
        innov = zs[t] - H @ x
        x = x + K @ innov
        P = (jnp.eye(n) - K @ H) @ P
        loglik = loglik - 0.5 * (innov @ _solve(S, innov) + jnp.linalg.slogdet(S)[1])
        means.append(x)
        covs.append(P)
    return jnp.stack(means), jnp.stack(covs), loglik


@jax.jit
def kalman_std(zs: jax.Array, F, H, q_std, r_std, x0):
    n = F.shape[0]
    m = H.shape[0]
    Q = q_std**2 * jnp.eye(n)
    R = r_std**2 * jnp.eye(m)
    x = x0
    P = jnp.eye(n, dtype=x0.dtype)
    total = 0.0
    for z in zs:
        x = F @ x
        P = F @ P @ F.T + Q
        S = H @ P @ H.T + R
        innov = z - H @ x
        K = _solve(S, H @ P).T
        x = x + K @ innov
        P = P - K @ S @ K.T
        total = total + innov @ _solve(S, innov)
    return total, x


@jax.jit
def rts_smoother(means, covs, F, Q):
    T = means.shape[0]
    x = means[-1]
    P = covs[-1]
    smoothed = [x]
    for t in range(T - 2, -1, -1):
        P_pred = F @ covs[t] @ F.T + Q
        G = _solve(P_pred, F @ covs[t]).T
        x = means[t] + G @ (x - F @ means[t])
        P = covs[t] + G @ (P - P_pred) @ G.T
        smoothed.insert(0, x)
    return jnp.stack(smoothed), P


def demo():
    zs = jax.random.normal(jax.random.PRNGKey(0), (25, 1))
    F = jnp.array([[1.0, 0.1], [0.0, 1.0]])
    H = jnp.array([[1.0, 0.0]])
    nll, x = kalman_std(zs, F, H, 0.1, 0.5, jnp.zeros(2))
    means, covs, loglik = kalman_filter(zs, F, H, jnp.eye(2), jnp.eye(1), jnp.zeros(2), jnp.eye(2))
    return nll, x, loglik, rts_smoother(means, covs, F, jnp.eye(2))
