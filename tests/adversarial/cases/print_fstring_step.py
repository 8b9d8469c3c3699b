"""f-string logging with format specs, conversions and expressions."""

import jax
import jax.numpy as jnp


@jax.jit
def log_metrics(step, loss, acc):
    print(f"step {step:04d}: loss={loss:.3f}, acc={acc * 100:.1f}%")
    return loss + acc


@jax.jit
def log_norm(grads):
    norm = jnp.sqrt(jnp.sum(grads**2))
    print(f"grad norm {norm:>10.4f} | max {jnp.max(jnp.abs(grads)):.2e}")
    return grads / (norm + 1e-6)


@jax.jit
def log_repr(x):
    print(f"x = {x!r}")
    return x + 1
