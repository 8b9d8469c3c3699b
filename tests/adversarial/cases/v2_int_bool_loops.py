"""Loops over integer labels and boolean masks, and over data with NaN and inf.

Traps for a loop → scan rewrite:
- `label_histogram` scatters into a counts vector with each label (`counts.at[lab].add(1)`),
  labels may be negative (they wrap to the end) or out of range (dropped);
- `longest_run` keeps two Python-int counters updated through `jnp.where` on a mask, which may
  be bool, int 0/1 or float with NaN (truthy);
- `survival` starts a flag as the Python `True` and `&`s it with `~done`: for an int32 `done`
  `~` is a bitwise not, and the flag becomes an int32 array;
- `clipped_cumsum` carries a running sum through `jnp.clip` with inf bounds.
"""

from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnames=("n_classes",))
def label_histogram(labels, n_classes=4):
    counts = jnp.zeros(n_classes, jnp.int32)
    for i in range(labels.shape[0]):
        counts = counts.at[labels[i]].add(1)
    return counts


@jax.jit
def longest_run(mask: jax.Array):
    run = 0
    longest = 0
    for m in mask:
        run = jnp.where(m, run + 1, 0)
        longest = jnp.maximum(longest, run)
    return longest


@jax.jit
def survival(done: jax.Array):
    alive = True
    flags = []
    for d in done:
        alive = alive & ~d
        flags.append(alive)
    return jnp.stack(flags)


@jax.jit
def clipped_cumsum(x: jax.Array, lo, hi):
    s = 0.0
    out = []
    for v in x:
        s = jnp.clip(s + v, lo, hi)
        out.append(s)
    return jnp.stack(out)
