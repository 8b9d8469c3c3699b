"""Prints inside helpers that jitted code calls, one helper also called from host code (JAX201).

The traps: `_log(tag, value)` prints a *string parameter* beside a traced value: the tag is
static text at every traced call site, but it is a parameter, so it cannot be handed to
`jax.debug.print` as an argument; `_log` is called twice in one jitted function, so the two
prints must stay in order; `evaluate` calls `_log` eagerly with a Python int after the jitted
call, so a rewrite must still print `host 3` after the traced prints; `_report` prints an
expression of a keyword argument."""

import jax
import jax.numpy as jnp


def _log(tag, value):
    print(tag, value)
    return value


def _report(step_loss, scale=1.0):
    print("scaled loss:", step_loss * scale)


@jax.jit
def forward(w, x):
    h = _log("hidden", jnp.tanh(x @ w))
    out = _log("out", h.sum(axis=-1))
    _report(out.mean(), scale=0.5)
    return out


def evaluate(w, x):
    out = forward(w, x)
    _log("host", 3)
    return out
