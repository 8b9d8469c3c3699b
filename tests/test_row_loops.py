"""JAX305's vmap rewrites of the fixture, run: each applied fix returns what the per-row
original returns (verification decides which apply; this checks them again on other sizes)."""

from __future__ import annotations

import pytest

from jaxlint.engine.config import Config
from jaxlint.fixes.pipeline import lint_source
from tests.conftest import FIXTURES, module_from_source

jax = pytest.importorskip("jax")
np = pytest.importorskip("numpy")

PATH = FIXTURES / "rules" / "jax305_row_loops.py"
ROW_FUNCTIONS = [
    "norms",
    "softmaxes",
    "cumulative",
    "clipped",
    "outer_products",
    "row_weights",
    "masked_traces",
    "agent_q_values",
]


@pytest.fixture(scope="module")
def fixed():
    source = PATH.read_text(encoding="utf-8")
    result = lint_source(source, str(PATH), Config(select=("JAX305",)), fix=True)
    assert result.fixed_source is not None
    return (
        module_from_source(source, "_jax305_original", str(PATH)),
        module_from_source(result.fixed_source, "_jax305_fixed", str(PATH)),
        result,
    )


def test_the_row_wise_fixes_are_verified_and_applied(fixed):
    _, _, result = fixed
    applied = {d.line for d in result.diagnostics if d.fix and d.fix.applied}
    assert len(applied) >= 4, [d.fix for d in result.diagnostics]


@pytest.mark.parametrize("name", ROW_FUNCTIONS)
@pytest.mark.parametrize("n", [1, 5, 17])
def test_fixed_rows_equal_the_per_row_original(fixed, name, n):
    original, rewritten, _ = fixed
    np.testing.assert_allclose(
        np.asarray(getattr(rewritten, name)(n)), np.asarray(getattr(original, name)(n)), rtol=1e-6
    )
