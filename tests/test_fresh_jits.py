"""JAX302's fixture under real JAX: each flagged entry compiles again when called a second time
with the same inputs (counted with jax_log_compiles), each `# ok:` entry does not."""

from __future__ import annotations

import importlib.util
import logging
import sys

import pytest

from jaxlint.engine.config import Config
from jaxlint.fixes.pipeline import lint_source
from tests.conftest import FIXTURES

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")

PATH = FIXTURES / "rules" / "jax302_fresh_jits.py"
X = jnp.arange(1.0, 4.0)
A = jnp.eye(3) * 2.0
# entry → its arguments (each call should compile at most once when the jit is cached)
CALLS = {
    "scaled_sum": (X, X, 2.0),
    "apply_layer": (X, A, X),
    "normalized": (X,),
    "solve_all": ([A, A], [X, X]),
    "sweep": (A, [1.0, 2.0]),
    "energies": ([X, X], 0.5),
    "smooth": (X, 2),
    "residual_norm": (A, X, X),
    "rewrapped": (X,),
    "scaled_sum_fixed": (X, X, 2.0),
    "per_example_losses": (jnp.dot, X, [jnp.ones((2, 3))]),
}


# ok entries that build their jit once per call and reuse it in a loop: a call over more
# items compiles no more than a call over one (the next call builds it again, by design)
LOOP_OK = {
    "train": lambda n: (X, [X] * n),
    "fit": lambda n: (X, [X] * n),
    "multigrid": lambda n: (X, n),
    "per_example_losses_hoisted": lambda n: (jnp.dot, X, [jnp.ones((2, 3))] * n),
}


class _CompileCounter(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        if record.getMessage().startswith("Compiling "):
            self.count += 1


def _load():
    spec = importlib.util.spec_from_file_location("_jax302_fixture", PATH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _flagged() -> set[str]:
    source = PATH.read_text(encoding="utf-8")
    lines = source.splitlines()
    found = set()
    for diagnostic in lint_source(source, str(PATH), Config(select=("JAX302",))).diagnostics:
        above = (t for t in reversed(lines[: diagnostic.line]) if t.startswith("def "))
        found.add(next(above).split("def ")[1].split("(")[0])
    return found


def _compiles(call) -> int:
    counter = _CompileCounter()
    logger = logging.getLogger("jax")
    logger.addHandler(counter)
    previous = jax.config.jax_log_compiles
    jax.config.update("jax_log_compiles", True)
    try:
        jax.block_until_ready(call())
    finally:
        jax.config.update("jax_log_compiles", previous)
        logger.removeHandler(counter)
    return counter.count


def test_every_flagged_entry_is_called():
    assert _flagged() <= set(CALLS)
    assert not _flagged() & set(LOOP_OK)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_flagged_entries_compile_on_every_call_and_ok_ones_once(name):
    entry = getattr(_load(), name)
    args = CALLS[name]
    jax.block_until_ready(entry(*args))  # warm: the first call compiles whatever it needs
    count = _compiles(lambda: entry(*args))
    if name in _flagged():
        assert count >= 1, f"{name}: no compile on the second call"
    else:
        assert count == 0, f"{name}: {count} compiles on the second call"


@pytest.mark.parametrize("name", sorted(LOOP_OK))
def test_a_jit_built_once_per_call_is_reused_by_its_loop(name):
    entry = getattr(_load(), name)
    jax.block_until_ready(entry(*LOOP_OK[name](1)))  # warm the helpers both calls share
    once = _compiles(lambda: entry(*LOOP_OK[name](1)))
    thrice = _compiles(lambda: entry(*LOOP_OK[name](3)))
    assert once >= 1 and thrice == once


def test_a_nested_jit_in_a_method_a_base_class_loops_over_compiles_on_every_call(
    monkeypatch, caplog
) -> None:
    """fixtures/project: `ImplicitStep.inference_step` (implicit.py, flagged) compiles its nested
    jit on every call `ProximalStep.chained_inference_steps` (proximal.py) makes."""
    monkeypatch.syspath_prepend(str(FIXTURES / "project"))
    from trainer.implicit import ImplicitStep

    step = ImplicitStep(maxiter=2)
    x, a = jnp.ones((4, 2)), jnp.full(4, 0.25)
    with jax.log_compiles(True), caplog.at_level(logging.WARNING):
        step.chained_inference_steps(x, a, lambda y: jnp.sum(y**2, axis=1), 0.1, n_steps=3)
    compiles = [r for r in caplog.records if "Compiling jit(descend)" in r.getMessage()]
    assert len(compiles) == 3  # one per call of inference_step, though nothing else changed
