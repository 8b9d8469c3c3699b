"""Examples for dynamiqs 0.3.7, as its documentation's quick start uses it.

Run by bench/fix_share.py --examples as `--examples-from` (cwd: the package copy, which is on
PYTHONPATH): jump-trajectory solves of a damped oscillator with the `Event` method, for two
sizes and two sets of jump operators.
"""

import dynamiqs as dq
import jax
import jax.numpy as jnp

for n in (6, 8):
    a = dq.destroy(n)
    H = a.dag() @ a
    psi0 = dq.coherent(n, 1.0)
    tsave = jnp.linspace(0.0, 1.0, 11)
    keys = jax.random.split(jax.random.PRNGKey(n), 3)
    for jump_ops in ([a], [a, 0.5 * a.dag() @ a]):
        dq.jssesolve(H, jump_ops, psi0, tsave, keys, method=dq.method.Event(dtmax=0.05))
print("dynamiqs examples ran")
