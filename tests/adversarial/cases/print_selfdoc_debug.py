"""`jax.debug.print` handed an f-string: formatted once, at trace time, with tracers (JAX206).

Run eagerly, `f"{x=}"` shows `repr(x)`: `x=Array(0.25, dtype=float32)`."""

import jax
import jax.numpy as jnp


@jax.jit
def report(loss, grads):
    jax.debug.print(f"{loss=}")
    jax.debug.print(f"grad norm {jnp.linalg.norm(grads)}")
    return loss - 0.1 * jnp.sum(grads)
