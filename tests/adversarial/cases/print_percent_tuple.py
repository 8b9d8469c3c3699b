"""%-formatting with tuples, dicts and %% escapes."""

import jax
import jax.numpy as jnp


@jax.jit
def ratio(hits, total):
    print("hit rate %d/%d = %.1f%%" % (hits, total, 100.0 * hits / total))
    return hits / total


@jax.jit
def named(x):
    print("%(mean).3f +- %(std).3f" % {"mean": jnp.mean(x), "std": jnp.std(x)})
    return x


@jax.jit
def padded(x):
    print("[%8.3f] [%-6d]" % (x.sum(), x.shape[0]))
    return x
