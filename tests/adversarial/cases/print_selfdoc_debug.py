"""`jax.debug.print` handed an f-string: formatted once, at trace time, with tracers (JAX206).

Run eagerly, `f"{x=}"` shows `repr(x)`: `x=Array(0.25, dtype=float32)` for an array. A
parameter may be a Python number eagerly (`lr=0.1`) and an array under jit: no one form
prints both, so `report_rate` is left for the author."""

import jax
import jax.numpy as jnp


@jax.jit
def report(loss, grads):
    norm = jnp.linalg.norm(grads)
    new_loss = loss - 0.1 * jnp.sum(grads)
    jax.debug.print(f"{new_loss=}")
    jax.debug.print(f"grad norm {norm}")
    return new_loss


@jax.jit
def report_rate(lr):
    jax.debug.print(f"{lr=}")
    return lr * 2
