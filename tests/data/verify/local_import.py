"""A function using a sibling module, next to an import nothing needs (and that fails)."""

import jax
import jaxlint_verify_no_such_module  # noqa: F401 — unused, so its failure must not matter
from verify_local_helpers import OFFSET


@jax.jit
def shifted_total(x: jax.Array):
    total = 0.0
    for row in x:
        total = total + row + OFFSET
    return total
