"""JAX306 under real JAX: a static `self` keeps stale attributes (or raises for a plain
dataclass); the helper rewrite reads them on every call."""

from __future__ import annotations

import importlib.util
import sys

import pytest

from jaxlint.engine.config import Config
from jaxlint.fixes.pipeline import lint_source
from tests.conftest import FIXTURES

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")


def _load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def test_static_self_is_stale_and_the_helper_is_not():
    x = jnp.ones(3)
    original = _load(FIXTURES / "fix" / "method_static_self.in.py", "_jax306_in").Scaler(2.0)
    fixed = _load(FIXTURES / "fix" / "method_static_self.out.py", "_jax306_out").Scaler(2.0)
    for scaler in (original, fixed):
        scaler.apply(x)
        scaler.set_scale(-1.0)
    assert float(original.apply(x)[0]) == pytest.approx(float(jnp.tanh(2.0)))  # stale
    assert float(fixed.apply(x)[0]) == pytest.approx(float(jnp.tanh(-1.0)))


def test_a_plain_dataclass_with_static_self_raises_as_the_message_says():
    module = _load(FIXTURES / "rules" / "jax306_static_self.py", "_jax306_rules")
    with pytest.raises(ValueError, match="Non-hashable static arguments"):
        module.Config().pad(jnp.ones(2))
    with pytest.raises(ValueError, match="Non-hashable static arguments"):
        module.Window().smooth(jnp.ones(4))
    module.FrozenConfig().pad(jnp.ones(2))  # ok: frozen hashes its fields
    module.Kernel().apply(jnp.ones(4))


def test_jax306_is_opt_in():
    source = (FIXTURES / "rules" / "jax306_static_self.py").read_text(encoding="utf-8")
    default = lint_source(source, "s.py", Config()).diagnostics
    assert "JAX306" not in {d.code for d in default}


def test_a_round_trip_store_changes_nothing_and_a_computed_store_is_stale():
    module = _load(FIXTURES / "rules" / "jax306_round_trip.py", "_jax306_round_trip")
    trainer, reference = module.Trainer(4), module.Trainer(4)
    rescaler, fresh = module.Rescaler(), module.Rescaler()
    x = jnp.arange(4.0)
    with jax.disable_jit():
        expected = [float(reference.solve(x).sum()) for _ in range(3)]
        first, second = fresh.fit(x), fresh.fit(x)
    assert [float(trainer.solve(x).sum()) for _ in range(3)] == pytest.approx(expected)
    rescaler.fit(x)
    assert rescaler.fit(x) == pytest.approx(first)  # stale: the first `scale` again
    assert not jnp.allclose(second, first)
