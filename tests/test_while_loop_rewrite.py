"""JAX102's `while` → `lax.while_loop` rewrite: what it carries, and why it is refused."""

from __future__ import annotations

import textwrap

from jaxlint.engine.config import Config
from jaxlint.fixes.pipeline import lint_source

SOURCE = textwrap.dedent(
    """\
    import jax
    import jax.numpy as jnp


    def converged(x):
        return x < 1e-3


    @jax.jit
    def first_bound_inside(x):
        while x > 1.0:
            x = x / 2
            halves = x
        return x, halves


    @jax.jit
    def list_state(x):
        history = [x]
        while x > 1.0:
            x = x / 2
            history = history + [x]
        return history


    def called_eagerly_too(x):
        while x > 1.0:
            x = x / 2
        return x


    called_jitted = jax.jit(called_eagerly_too)


    @jax.jit
    def user_call_in_and(x, y):
        while x > 1.0 and not converged(y):
            x = x / 2
            y = y / 3
        return x


    @jax.jit
    def test_never_changes(x, limit):
        total = 0.0
        while limit > 0.5:
            total = total + x
        return total


    @jax.jit
    def appends(x):
        seen = []
        while x > 1.0:
            x = x / 2
            seen.append(x)
        return x
    """
)


def _notes() -> dict[str, str]:
    config = Config(select=("JAX102",))
    result = lint_source(SOURCE, "solvers.py", config, fix=True, verify=False)
    found: dict[str, str] = {}
    for d in result.diagnostics:
        name = d.message.split("a traced value in `")[1].split("`")[0]
        found[name] = d.fix.note if d.fix and d.fix.note else ""
    return found


def test_refusals_say_why() -> None:
    found = _notes()
    assert "`halves` is first assigned inside the loop" in found["first_bound_inside"]
    assert "`history` is a Python container" in found["list_state"]
    assert "may also run eagerly" in found["called_eagerly_too"]
    assert "`converged(y)` is not a JAX function" in found["user_call_in_and"]
    assert "assigns nothing the test reads" in found["test_never_changes"]
    assert "a call made for its side effects" in found["appends"]


def test_carries_are_the_tested_and_live_names() -> None:
    source = textwrap.dedent(
        """\
        import jax
        import jax.numpy as jnp


        @jax.jit
        def power_iteration(A, v, tol=1e-6):
            delta = jnp.inf
            steps = 0
            while delta > tol:
                w = A @ v
                w = w / jnp.linalg.norm(w)
                delta = jnp.linalg.norm(w - v)
                v = w
                steps += 1
            return v, steps
        """
    )
    config = Config(select=("JAX102",))
    result = lint_source(source, "power.py", config, fix=True, verify=False)
    (diagnostic,) = result.diagnostics
    # delta, v and steps; `w` is a temporary of one iteration (assigned before it is read, not
    # live after the loop)
    assert diagnostic.fix is not None and "(3 carries)" in diagnostic.fix.description
