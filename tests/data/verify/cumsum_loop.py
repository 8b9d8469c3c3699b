"""The seed article's cumulative sum: a Python loop under jax.jit (JAX101)."""

import jax
import jax.numpy as jnp

# Top-level statements the verifier must never run.
open("/nonexistent/jaxlint-verify-must-not-run")  # noqa: SIM115
DATA = jnp.ones(10_000)


@jax.jit
def cumsum(x: jax.Array):
    acc = 0.0
    y = []
    for i in range(x.shape[0]):
        acc += x[i]
        y.append(acc)
    return jnp.array(y)


if __name__ == "__main__":
    raise SystemExit("the verifier must not run the main block")
