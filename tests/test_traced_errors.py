"""The JAX102/JAX103 fixtures under real JAX: every flagged function raises the error its
diagnostic names, and every `# ok:` function runs."""

from __future__ import annotations

import importlib.util
import re
import sys
from types import ModuleType

import pytest

from jaxlint.engine.config import Config
from jaxlint.fixes.pipeline import lint_source
from tests.conftest import FIXTURES

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")

F = jnp.array([1.0, -2.0, 3.0])
np_array = pytest.importorskip("numpy").asarray
M = jnp.ones((4, 3))

# function → its arguments (positional, keyword); flagged ones must raise, ok ones must run
CALLS = {
    "jax102_solvers.py": {
        "relu": ((jnp.float32(1.0),), {}),
        "newton_sqrt": ((jnp.float32(2.0),), {}),
        "best_losses": ((F,), {}),
        "hinge": ((jnp.float32(1.0), jnp.float32(0.5)), {}),
        "safe_log": ((jnp.abs(F),), {}),
        "sgd_step": ((F, F, 0.1), {}),
        "both_positive": ((jnp.float32(1.0), jnp.float32(2.0)), {}),
        "simulate": ((F, F), {}),
        "first_crossing": ((jnp.arange(8.0), 3.0), {}),
        "flatten_batch": ((jnp.ones((3, 2, 2)),), {}),
        "scores": ((F,), {"normalize": True}),
        "masked_mean": ((F,), {}),
        "piecewise_grad": ((F,), {}),
        "cast_inputs": ((F,), {}),
        "scale": ((F,), {}),
        "host_newton": ((jnp.float32(2.0),), {}),
        "clipped": ((F,), {}),
        "pad_pair": ((F, F[:2]), {}),
        "apply_layers": (([jnp.eye(3)], F), {}),
    },
    "jax104_numpy_ports.py": {
        "gelu": ((F,), {}),
        "normalize": ((F,), {}),
        "clip_gradients": ((F, 1.0), {}),
        "log_likelihood": ((F, 0.0, 2.0), {}),
        "pairwise": ((M, M), {}),
        "merge": ((F, F), {}),
        "smooth": ((jnp.abs(F),), {}),
        "to_host": ((F,), {}),
        "softplus": ((F,), {}),
        "total": ((F,), {}),
        "gaussian_kernel": ((F, 1.0), {}),
        "preprocess": ((np_array(F),), {}),
        "cast": ((F,), {}),
        "jnp_version": ((F,), {}),
        "shapes": ((M,), {}),
        "flipped": ((M,), {}),
        "rotate": ((F,), {}),
    },
    "jax105_masks.py": {
        "nansum": ((F,), {}),
        "positive_mean": ((F,), {}),
        "zero_out_outliers": ((F, 2.0), {}),
        "active_indices": ((F > 0,), {}),
        "labels_seen": ((jnp.array([1, 2, 1]),), {}),
        "hit_positions": ((F, 0.0), {}),
        "histogram": ((jnp.array([1, 2, 1]),), {}),
        "valid_total": ((M,), {}),
        "expand_counts": ((F, jnp.array([1, 2, 1])), {}),
        "nansum_where": ((F,), {}),
        "first_active": ((F > 0,), {}),
        "class_counts": ((jnp.array([1, 2, 1]),), {}),
        "pick_rows": ((M, 1), {}),
        "even_rows": ((M,), {}),
        "host_filter": ((F,), {}),
        "repeat_each": ((F,), {}),
        "masked_update": ((F, 2.0), {}),
    },
    "jax103_shapes_and_indices.py": {
        "pad_to": ((F, 2), {}),
        "first_n": ((F, 2), {}),
        "report_loss": ((F, F), {}),
        "selected_features": ((M, jnp.array([True, False, True])), {}),
        "class_weight": ((1,), {}),
        "running_max": ((F,), {}),
        "repeat_rows": ((F, 2), {}),
        "std_dev": ((jnp.float32(4.0),), {}),
        "to_patches": ((M, 2), {}),
        "argmax_along": ((M, 1), {}),
        "static_pad": ((F,), {"n": 2}),
        "half": ((jnp.ones(4),), {}),
        "pick": ((F, 1), {}),
        "window": ((jnp.arange(6.0), 1), {}),
        "log_loss": ((F, F), {}),
        "first_rows": ((M,), {}),
        "zeros_like_batch": ((M,), {}),
        "grid": ((M,), {}),
        "ring": ((jnp.ones((1, 2)),), {}),
    },
}
# entry point → the function it stages (where the diagnostic is)
CALLERS = {
    "smooth": "ema_step",
    "valid_total": "keep_valid",
    "best_losses": "early_stopping_step",
    "simulate": "damped_update",
    "running_max": "running_max_step",
    "ring": "ring_pairs",
}
# What a flagged line's diagnostic names → the exception class JAX raises.
ERRORS = {
    "TracerBoolConversionError": jax.errors.TracerBoolConversionError,
    "ConcretizationTypeError": jax.errors.ConcretizationTypeError,
    "TracerIntegerConversionError": jax.errors.TracerIntegerConversionError,
    "TypeError": TypeError,
    "TracerArrayConversionError": jax.errors.TracerArrayConversionError,
    "NonConcreteBooleanIndexError": jax.errors.NonConcreteBooleanIndexError,
    "IndexError": IndexError,
}


def load(name: str) -> ModuleType:
    path = FIXTURES / "rules" / name
    spec = importlib.util.spec_from_file_location(f"_fixture_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def flagged(name: str) -> dict[str, list[str]]:
    """Function name → the exceptions its diagnostic names, for each flagged function."""
    path = FIXTURES / "rules" / name
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines()
    found = {}
    for diagnostic in lint_source(
        source, str(path), Config(select=("JAX102", "JAX103", "JAX104", "JAX105"))
    ).diagnostics:
        named = re.findall(r"\b(\w+(?:Error|Exception))\b", diagnostic.message.split("raises ")[-1])
        assert named, diagnostic.message
        function = next(
            line.split("def ")[1].split("(")[0]
            for line in reversed(lines[: diagnostic.line])
            if line.startswith("def ")
        )
        found[function] = named
    return found


CASES = [(name, function) for name, calls in CALLS.items() for function in calls]


@pytest.mark.parametrize("name, function", CASES, ids=[f"{n}::{f}" for n, f in CASES])
def test_flagged_functions_raise_what_the_message_names_and_ok_ones_run(name, function):
    module = load(name)
    args, kwargs = CALLS[name][function]
    entry = getattr(module, function)
    # a helper traced through its caller: the flagged function is the lax body or the helper
    raising = flagged(name)
    flagged_name = CALLERS.get(function, function)
    if flagged_name in raising:
        named = raising[flagged_name]
        expected = tuple(ERRORS[e] for e in named)
        with pytest.raises(expected):
            jax.block_until_ready(entry(*args, **kwargs))
    else:
        jax.block_until_ready(entry(*args, **kwargs))


def test_every_fixture_function_is_called():
    for name, calls in CALLS.items():
        called = set(calls) | set(CALLERS.values())
        raising = set(flagged(name))
        assert raising <= called, raising - called
