"""local_import.py after the JAX101 rewrite."""

import jax
import jax.numpy as jnp
import jaxlint_verify_no_such_module  # noqa: F401 — unused, so its failure must not matter
from verify_local_helpers import OFFSET


@jax.jit
def shifted_total(x: jax.Array):
    total = 0.0

    def _scan_body(total, row):
        total = total + row + OFFSET
        return total, None

    total, _ = jax.lax.scan(_scan_body, jnp.zeros(x.shape[1:], x.dtype) + total, x)
    return total
