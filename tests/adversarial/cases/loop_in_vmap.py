"""A per-example loop, batched with jax.vmap."""

import jax
import jax.numpy as jnp


def sequence_energy(seq):
    e = 0.0
    for step in seq:
        e = e + jnp.sum(step**2)
    return e


def sequence_prefix(seq):
    acc = jnp.zeros(seq.shape[1:], seq.dtype)
    outs = []
    for step in seq:
        acc = acc + step
        outs.append(acc)
    return jnp.stack(outs)


batched_energy = jax.vmap(sequence_energy)
batched_prefix = jax.jit(jax.vmap(sequence_prefix))
