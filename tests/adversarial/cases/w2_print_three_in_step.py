"""A training step with three differently formatted prints (JAX201).

The trap: one jitted step prints a format-spec f-string with an expression field
(`{loss:.3f}`, `{w[0]:+.2e}`), a self-documenting field of a *local* (`{gnorm=}`, which run
eagerly shows `repr` of the array: `gnorm=Array(1.5, dtype=float32)`), and several values
joined by `sep=" | "`. All three must be rewritten together, in order (`ordered=True`), into
templates whose text equals the eager prints: the specs kept, `=` kept as `repr`, the
separator folded into the template. A learning rate passed as a Python number reaches the
jitted rewrite as a float32 array."""

import jax
import jax.numpy as jnp


def _loss(w, x, y):
    return jnp.mean((x @ w - y) ** 2)


@jax.jit
def train_step(w, x, y, lr):
    loss, g = jax.value_and_grad(_loss)(w, x, y)
    gnorm = jnp.sqrt(jnp.sum(g * g))
    print(f"loss {loss:.3f} (w0={w[0]:+.2e})")
    print(f"{gnorm=}")
    new_w = w - lr * g
    print("lr", lr, "max|dw|", jnp.max(jnp.abs(new_w - w)), sep=" | ")
    return new_w, loss
