"""JAX103's static_argnames fix: when it is offered, and the reason when it is refused."""

from __future__ import annotations

import textwrap

from jaxlint.engine.config import Config
from jaxlint.fixes.pipeline import lint_source

SOURCE = textwrap.dedent(
    """\
    import functools

    import jax
    import jax.numpy as jnp


    @jax.jit
    def never_called(x, n):
        return x[:n]


    @jax.jit
    def called_with_a_variable(x, n):
        return jnp.zeros(n) + x.sum()


    @jax.jit
    def indexed(x, n):
        return x[:n] + x[n]


    @jax.jit
    def rebound(x, n):
        n = n + 1
        return jnp.ones(n) * x.sum()


    @functools.partial(jax.jit, static_argnames=("mode",))
    def listed(x, n, mode):
        return jnp.zeros(n) + x.sum()


    def host(x, size):
        called_with_a_variable(x, size)
        indexed(x, 3)
        rebound(x, 3)
        listed(x, 3, "a")
    """
)


def notes() -> dict[str, str]:
    result = lint_source(SOURCE, "s.py", Config(select=("JAX103",)), fix=True, verify=False)
    found: dict[str, str] = {}
    for d in result.diagnostics:
        name = d.message.split(" is traced in `")[1].split("`")[0]
        found.setdefault(name, d.fix.note if d.fix and d.fix.note else "")
    return found


def test_refusals_say_why() -> None:
    found = notes()
    assert "no call of `never_called` in this module" in found["never_called"]
    assert "passes `n` something other than a hashable constant" in found["called_with_a_variable"]
    assert "an index" in found["indexed"]
    assert "reassigned" in found["rebound"]
    assert "already has static_argnames" in found["listed"]
