"""JAX102's `jnp.where` suggestion: what `--unsafe-fixes` writes, and that it computes, jitted,
what the original computes without jit on float data (the case the suggestion is for)."""

from __future__ import annotations

import textwrap
import types

import pytest

from jaxlint.engine.config import Config
from jaxlint.fixes.pipeline import lint_source

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")

SOURCE = textwrap.dedent(
    """\
    import jax
    import jax.numpy as jnp


    @jax.jit
    def hinge(margin, score):
        loss = (margin - score) if margin > score else 0.0
        return loss * 2.0


    @jax.jit
    def clip_step(g, limit):
        norm = jnp.linalg.norm(g)
        if norm > limit:
            step = g / norm * limit
        else:
            step = g
        return step


    @jax.jit
    def logged(x):
        y = print(x) if x > 0 else x
        return y


    @jax.jit
    def either(x, y):
        return x if x > 0 and y > 0 else y


    @jax.jit
    def commented(x):
        if x.sum() > 0:
            v = x  # keep positive sums
        else:
            v = -x
        return v
    """
)


def fixed(unsafe: bool) -> tuple[str, dict[str, str]]:
    """The fixed text, and per function the note of its diagnostic's fix."""
    result = lint_source(
        SOURCE, "w.py", Config(select=("JAX102",)), fix=True, unsafe_fixes=unsafe, verify=False
    )
    notes = {
        d.message.split("traced value in `")[1].split("`")[0]: (d.fix.note or "") if d.fix else ""
        for d in result.diagnostics
    }
    return result.fixed_source or SOURCE, notes


def test_plain_fix_leaves_the_suggestion_alone() -> None:
    source, notes = fixed(unsafe=False)
    assert source == SOURCE
    assert notes["hinge"] == notes["clip_step"] == ""  # offered (shown with --diff), not applied


def test_unsafe_fixes_write_jnp_where() -> None:
    source, _ = fixed(unsafe=True)
    assert "    loss = jnp.where(margin > score, (margin - score), 0.0)\n" in source
    assert "    step = jnp.where(norm > limit, g / norm * limit, g)\n    return step" in source
    assert "if norm > limit" not in source


def test_refusals_say_why() -> None:
    _, notes = fixed(unsafe=True)
    assert "`print(x)` is not a JAX function" in notes["logged"]
    assert "and/or/not" in notes["either"]
    assert "comments" in notes["commented"]


def test_the_suggestion_computes_what_the_original_does_on_float_data() -> None:
    rewritten, _ = fixed(unsafe=True)
    original = types.ModuleType("original")
    exec(compile(SOURCE, "original.py", "exec"), vars(original))  # noqa: S102
    new = types.ModuleType("rewritten")
    exec(compile(rewritten, "rewritten.py", "exec"), vars(new))  # noqa: S102
    cases = [
        ("hinge", (jnp.float32(2.0), jnp.float32(0.5))),
        ("hinge", (jnp.float32(-1.0), jnp.float32(0.5))),
        ("clip_step", (jnp.array([3.0, 4.0]), 1.0)),
        ("clip_step", (jnp.array([0.3, 0.4]), 1.0)),
    ]
    for name, args in cases:
        with pytest.raises(jax.errors.TracerBoolConversionError):
            getattr(original, name)(*args)
        with jax.disable_jit():
            expected = getattr(original, name)(*args)
        actual = getattr(new, name)(*args)  # jitted
        assert jnp.allclose(jnp.asarray(expected), actual), name
        assert jnp.shape(expected) == actual.shape


EXTREMA = textwrap.dedent(
    """\
    import jax


    @jax.jit
    def hinge(margin, score):
        return max(margin - score, 0.0)


    @jax.jit
    def clip_ratio(ratio):
        return min(1.2, ratio)


    @jax.jit
    def clip_steps(steps, limit):
        return min(steps, limit) * 2
    """
)


def test_max_and_min_are_suggestions_with_pythons_semantics() -> None:
    """Python's max returns the winner as it is (`min(int32 steps, float32 limit)` is int32 or
    float32 by value; `max(x, 0.0)` of a vector raises), which no traced form does: `--fix`
    leaves max/min alone. Written by --unsafe-fixes, `jnp.where(b > a, b, a)` keeps Python's
    choice on ties and NaN (`min(1.2, nan)` is 1.2, where jnp.minimum gives NaN)."""
    plain = lint_source(
        EXTREMA, "m.py", Config(select=("JAX102",)), fix=True, unsafe_fixes=False, verify=False
    )
    assert (plain.fixed_source or EXTREMA) == EXTREMA
    assert {d.fix.kind for d in plain.diagnostics if d.fix} == {"suggestion"}
    unsafe = lint_source(
        EXTREMA, "m.py", Config(select=("JAX102",)), fix=True, unsafe_fixes=True, verify=False
    )
    module = types.ModuleType("unsafe")
    exec(compile(unsafe.fixed_source or "", "m.py", "exec"), vars(module))  # noqa: S102
    original = types.ModuleType("original")
    exec(compile(EXTREMA, "original.py", "exec"), vars(original))  # noqa: S102
    cases = [
        ("hinge", (jnp.float32(2.0), jnp.float32(0.5))),
        ("hinge", (jnp.float32(-1.0), jnp.float32(0.5))),
        ("hinge", (jnp.float32(jnp.nan), jnp.float32(0.5))),  # NaN first: Python keeps it
        ("clip_ratio", (jnp.float32(0.5),)),
        ("clip_ratio", (jnp.float32(jnp.nan),)),  # NaN second: Python keeps 1.2
        ("clip_steps", (jnp.int32(3), jnp.int32(7))),
    ]
    for name, args in cases:
        with jax.disable_jit():
            expected = getattr(original, name)(*args)
        actual = getattr(module, name)(*args)
        assert jnp.allclose(jnp.asarray(expected), actual, equal_nan=True), (name, args)
