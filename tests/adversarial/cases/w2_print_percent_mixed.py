"""%-formatting in jitted code (JAX201): static and traced operands in one tuple.

The trap: `"epoch %d ..." % (epoch, mse, worst)` mixes a *static* argument (its `%d` is text
made at trace time) with traced values (`%.4f`, `%s`), and `"%08.3f"` must keep its zero
padding (NumPy's NaN and -inf pad as `00000nan` / `-0000inf`). `%d` of a traced count and a
width without the `0` flag (`%7.2f`) have no exact template: they must be refused, not
approximated as `{:d}` (raises on a float) or `{:7.2f}`."""

from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnums=(2,))
def eval_epoch(pred, target, epoch):
    err = pred - target
    mse = jnp.mean(err**2)
    worst = jnp.max(jnp.abs(err))
    print("epoch %d: mse %.4f worst %s" % (epoch, mse, worst))
    print("bias=%08.3f" % jnp.mean(err))
    return mse


@jax.jit
def count_hits(scores, threshold):
    hits = jnp.sum(scores > threshold)
    print("hits %d of %d" % (hits, scores.shape[0]))
    return hits


@jax.jit
def summary(x):
    print("mean %7.2f" % jnp.mean(x))
    return jnp.mean(x)
