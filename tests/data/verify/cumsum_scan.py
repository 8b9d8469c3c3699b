"""cumsum_loop.py after the JAX101 rewrite: the carry starts at the loop's own initial value."""

import jax
import jax.numpy as jnp

# Top-level statements the verifier must never run.
open("/nonexistent/jaxlint-verify-must-not-run")  # noqa: SIM115
DATA = jnp.ones(10_000)


@jax.jit
def cumsum(x: jax.Array):
    acc = 0.0

    def _scan_body(acc, x_i):
        acc = acc + x_i
        _y0 = acc
        return acc, _y0

    acc = jnp.zeros(x.shape[1:], jnp.result_type(acc, x.dtype)) + acc  # rows of any rank
    acc, _o0 = jax.lax.scan(_scan_body, acc, x)
    return _o0


if __name__ == "__main__":
    raise SystemExit("the verifier must not run the main block")
