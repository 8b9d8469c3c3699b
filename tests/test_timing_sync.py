"""JAX307's fixes under real JAX: every fixed benchmark still runs and returns what the original
returns (its timing now waits; what the unsynced timing misses is measured by
bench/timing_sync.py, never asserted here)."""

from __future__ import annotations

import pytest

from jaxlint.engine.config import Config
from jaxlint.fixes.pipeline import lint_source
from tests.conftest import FIXTURES, module_from_source

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
np = pytest.importorskip("numpy")

PATH = FIXTURES / "rules" / "jax307_benchmarks.py"
A = jnp.eye(8) + 0.1
X = jnp.ones((6, 4))
KEY = jax.random.PRNGKey(0)
CALLS = {
    "bench_matmul": (A, A),
    "bench_perf_counter": (A, A),
    "bench_loop": (A, A, 3),
    "bench_jnp": (X,),
    "bench_inline_jit": (jnp.arange(8.0),),
    "bench_timeit": (A, A),
    "bench_random": (KEY, 4),
    "bench_grad": (jnp.ones(4), X),
}


def _values(result):
    """The computed part of a result: the timing (a float) left out."""
    leaves = jax.tree_util.tree_leaves(result)
    return [np.asarray(leaf) for leaf in leaves if not isinstance(leaf, float)]


def test_fixes_are_applied_where_the_timed_statement_is_a_call():
    source = PATH.read_text(encoding="utf-8")
    result = lint_source(source, str(PATH), Config(select=("JAX307",)), fix=True, verify=False)
    applied = [d for d in result.diagnostics if d.fix and d.fix.applied]
    refused = [d for d in result.diagnostics if not (d.fix and d.fix.applied)]
    assert len(applied) == 8 and len(refused) == 1  # bench_loop: wait after the loop by hand
    assert "block" in (refused[0].fix.note or "")


@pytest.mark.parametrize("name", sorted(CALLS))
def test_fixed_benchmarks_compute_what_the_originals_do(name):
    source = PATH.read_text(encoding="utf-8")
    fixed = lint_source(source, str(PATH), Config(select=("JAX307",)), fix=True, verify=False)
    original = module_from_source(source, "_jax307_original", str(PATH))
    rewritten = module_from_source(fixed.fixed_source or "", "_jax307_fixed", str(PATH))
    before = _values(getattr(original, name)(*CALLS[name]))
    after = _values(getattr(rewritten, name)(*CALLS[name]))
    assert len(before) == len(after)
    for want, got in zip(before, after, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-6)


def test_the_fix_keeps_the_whole_timed_expression():
    # a long call with a string holding two spaces: the fix must copy it exactly
    source = (
        "import time\n\nimport jax\nimport jax.numpy as jnp\n\n\n@jax.jit\ndef step(a, b):\n"
        "    return a @ b\n\n\ndef bench(a, b):\n    t0 = time.perf_counter()\n"
        '    out = step(jnp.concatenate([a, a, a, a, a, a, a, a], axis=0), b * len("a  b"))\n'
        "    return out, time.perf_counter() - t0\n"
    )
    result = lint_source(source, "bench.py", Config(select=("JAX307",)), fix=True, verify=False)
    fixed = result.fixed_source or ""
    assert (
        "out = jax.block_until_ready(step(jnp.concatenate([a, a, a, a, a, a, a, a], axis=0), "
        'b * len("a  b")))' in fixed
    )
