"""Self-documenting f-strings and explicit conversions."""

import jax
import jax.numpy as jnp


@jax.jit
def debug_loss(loss):
    print(f"{loss=}")
    return loss


@jax.jit
def debug_spec(loss):
    print(f"{loss=:.3f}")
    return loss


@jax.jit
def debug_str_conv(x):
    print(f"value {x!s} and sum {jnp.sum(x)!s}")
    return x


@jax.jit
def debug_repeat(x):
    print("{0} then {0} again, total {1}".format(x.max(), x.sum()))
    return x
