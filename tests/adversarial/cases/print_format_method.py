"""str.format logging."""

import jax
import jax.numpy as jnp


@jax.jit
def log_loss(loss, step):
    print("step {} loss={:.3f}".format(step, loss))
    return loss


@jax.jit
def log_named(params):
    total = jnp.sum(params)
    print("total={total:.2f} first={first}".format(total=total, first=params[0]))
    return total
