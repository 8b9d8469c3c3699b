"""Fix snapshots: `fixtures/fix/<case>.in.py` → `fixtures/fix/<case>.out.py`, with real JAX.

Conventions:
- `<case>.out.py` is byte for byte what `jaxlint check --fix` writes for `<case>.in.py`.
- A refused case (`*_refused_*`, and prints jaxlint leaves alone) has an `.out.py` identical to
  its `.in.py`; REFUSED names the words its diagnostic must give as the reason.
- KNOWN_BUGS lists cases whose `.out.py` is the output jaxlint *should* write (written by hand);
  their snapshot test is a strict xfail, so it fails loudly once the rewriter is fixed.
- CHECKS says what to call in each rewritten case: the un-jitted original (`.in.py`) and the
  jitted rewrite (`.out.py`) must agree, and for loops the rewrite's jaxpr must not grow with the
  input length while the original's does.

JAX starts in a child process for every verified fix, so the CLI runs once over all cases (two
jobs) and once more over the snapshots for idempotency; the other tests only read the results.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import FIXTURES

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
np = pytest.importorskip("numpy")

FIX_FIXTURES = FIXTURES / "fix"
CASES = sorted(p.name.removesuffix(".in.py") for p in FIX_FIXTURES.glob("*.in.py"))
# cases whose fix is another form on an accelerator: `<case>.accelerator.out.py`
ACCELERATOR_CASES = sorted(
    p.name.removesuffix(".accelerator.out.py") for p in FIX_FIXTURES.glob("*.accelerator.out.py")
)
SHORT, LONG = 8, 64  # input lengths for the jaxpr-size check

REFUSED = {
    "loop_refused_break": "`break`",
    "loop_refused_conditional_append": "appended to conditionally",
    "loop_refused_dict_write": "a write to an attribute or item",
    # `jnp.array([])` is float32 `(0,)` whatever the elements: lax.map keeps a row's shape
    "loop_refused_empty_list_shape": "raised TypeError on axis 7→0",
    "loop_refused_list_kept": "the list is used as a list",
    "loop_refused_two_arrays_indexed": "is indexed by `i` beside the rows mapped over",
    "loop_refused_slot_gap": "not all of its n slots or all but the first or last",
    "loop_refused_var_after": "the loop variable is read after the loop",
    "loop_refused_list_of_layers": "`blocks` may be a list or tuple of arrays",
    # `err[target > 0]` with `target` of shape (n,) beside `err` of (m, n)… selects columns of
    # rows: `err.mean(where=target > 0)` broadcasts the mask instead; verification finds it
    "masked_refused_row_mask": "output values differ",
    "method_refused_calls_other": "calls `self.features(...)`",
    "static_refused_value_use": "is also used as a value in `jnp.zeros(n) + x * n`",
    "static_refused_list_checked": "uses `sizes` as a list (isinstance(sizes, list))",
    "method_refused_default_flag": "`training` (default `False`) is used as a Python value",
    "method_refused_fitted_static": "`self.n_components` is used as a Python value",
    "method_refused_method_value": "reads `self.score`, a method, as a value",
    "method_refused_optional_bias": "`__init__` does not always set it",
    "print_refused_end": "end=",
    "print_refused_percent_d": "`%d` of a traced value",
    "print_refused_stderr": "file=",
    "print_refused_text_variable": "makes text from a traced value",
    "while_refused_break": "the body has `break`, which lax.while_loop cannot express",
    "print_static_marker": "prints only static values",
    "inplace_refused_host_parameter": "callers may expect their array changed in place",
}
NOT_FLAGGED = {"print_static_shape"}  # a print of static values only: left alone, no diagnostic
# Framework module methods taking `(key, n_samples, obs)`: case → (how to call the method on a
# fresh module, arguments for n observations); the `.in.py` runs unjitted, the `.out.py` as written.
MODULE_METHODS: dict[str, tuple[Callable[[Any, tuple], Any], Callable[[int], tuple]]] = {
    "module_equinox_sampler": (
        lambda m, args: m.GaussianModel(jnp.zeros(3), jnp.full(3, -1.0)).log_likelihood(*args),
        lambda n: (jax.random.PRNGKey(n), 16, _matrix(n, 3)),
    ),
    "module_linen_encoder": (
        lambda m, args: m.Encoder().apply(m.Encoder().init(jax.random.PRNGKey(0), *args), *args),
        lambda n: (jax.random.PRNGKey(n), 8, _matrix(n, 3)),
    ),
    "module_nnx_decoder": (
        lambda m, args: m.Decoder(3, 5, rngs=m.nnx.Rngs(0)).sample(*args),
        lambda n: (jax.random.key(n), 4, _matrix(n, 3)),
    ),
}
# Safe fixes of code that raises (or does nothing) even without jit, so the un-jitted original
# cannot be the reference: tests/test_arrays_and_dtypes.py runs these rules' fixes instead
# (JAX204 against the same code on NumPy arrays, JAX205 keeping the update, JAX206 printing values).
CHECKED_ELSEWHERE = {
    "inplace_ported",
    "inplace_jitted_parameter",  # below: against the original on NumPy arrays
    "discarded_at_update",
    "debug_print_fstring",
    # methods of equinox / flax linen / flax nnx modules: test_module_methods_verify_and_apply
    *MODULE_METHODS,
}
KNOWN_BUGS: dict[str, str] = {}  # case → why its snapshot is not what jaxlint writes yet


def _vector(n: int, seed: int = 0) -> Any:
    return jnp.asarray(np.random.RandomState(seed).standard_normal(n), jnp.float32)


def _matrix(rows: int, columns: int, seed: int = 0) -> Any:
    values = np.random.RandomState(seed).standard_normal((rows, columns))
    return jnp.asarray(values, jnp.float32)


def _image(rows: int, columns: int) -> Any:
    values = np.random.RandomState(rows).randint(0, 256, (rows, columns))
    return jnp.asarray(values, jnp.uint8)


def _rows(columns: int) -> Callable[[int], tuple]:
    """Arguments: one n × columns matrix."""
    return lambda n: (_matrix(n, columns),)


@dataclass(frozen=True)
class Check:
    """Call `target` (`function` or `Class.method`) on `args(n)`, constructing with `init()`.

    A method is called on one instance for every `n`, after `prepare(instance)` (e.g. `fit`).
    """

    target: str
    args: Callable[[int], tuple]
    init: Callable[[], tuple] = tuple
    prepare: Callable[[Any], object] = lambda instance: None


def _fit(*args: Any) -> Callable[[Any], object]:
    """`prepare` that calls the instance's `fit(*args)` first."""
    return lambda instance: instance.fit(*args)


CHECKS: dict[str, list[Check]] = {
    "loop_cumsum_seed": [Check("cumulative_sum", lambda n: (_vector(n),))],
    "loop_len_total": [Check("mean_abs_error", lambda n: (_vector(n), _vector(n, 1)))],
    "loop_iter_elements": [Check("sum_of_squares", lambda n: (_vector(n),))],
    "loop_enumerate_index": [Check("discounted_return", lambda n: (_vector(n),))],
    "loop_two_accumulators": [Check("mean_and_variance", lambda n: (_vector(n),))],
    "loop_acc_two_lists": [Check("ema_with_residuals", lambda n: (_vector(n),))],
    "loop_stack_rows": [Check("normalize_rows", _rows(3))],
    "loop_rows_scalar_init": [Check("column_sums", _rows(3))],
    "loop_rows_scalar_init_2d": [Check("column_means", _rows(3))],
    "loop_int_init_float_data": [Check("total_energy", lambda n: (_vector(n),))],
    "loop_two_arrays": [Check("weighted_sum", lambda n: (_vector(n), _vector(n, 1)))],
    "loop_two_loops_reused_name": [Check("moments", lambda n: (_vector(n),))],
    "loop_carry_from_body": [Check("weighted_features", lambda n: (_vector(n), _vector(3, 1)))],
    "loop_rnn": [Check("rnn", lambda n: (0.5 * _matrix(4, 4, 1), _matrix(4, 3, 2), _matrix(n, 3)))],
    # A weight vector gives a scalar loss, a weight matrix a vector of losses.
    "loop_loss_vector_weights": [
        Check("squared_error", lambda n: (_matrix(n, 3), _vector(n, 1), _vector(3, 2))),
        Check("squared_error", lambda n: (_matrix(n, 3), _vector(n, 1), _matrix(3, 2, 2))),
    ],
    # A Python-int counter over 300 rows of uint8 data: cast to the data's dtype it wraps at 255.
    "loop_step_counter": [Check("count_rows_and_hits", lambda n: (_image(300 + n, 4),))],
    "loop_index_arithmetic": [Check("total_variation", lambda n: (_vector(n),))],
    "loop_moving_average": [Check("moving_average", lambda n: (_vector(n),))],
    "loop_counter_scatter": [Check("bin_totals", lambda n: (_vector(n),))],
    "loop_nested_in_if": [Check("batch_gradient", _rows(3))],
    "loop_zip_pairs": [
        Check("hinge_loss", lambda n: (_vector(n), jnp.sign(_vector(n, 1)))),
        Check("hinge_loss", lambda n: (_vector(n), jnp.sign(_vector(n + 3, 1)))),  # zip stops
    ],
    "loop_reversed_returns": [Check("discounted_returns", lambda n: (_vector(n),))],
    # NumPy's functions on concrete arrays (the un-jitted original) against jax.numpy's, jitted
    # A size parameter made static: the un-jitted original against the jitted rewrite
    "static_shape_param": [
        Check("pad_to", lambda n: (_vector(n), n + 4)),
        Check("moving_sum", lambda n: (_vector(n), 3, "valid")),
        Check("moving_sum", lambda n: (_vector(n), 2, "same")),
    ],
    # NumPy-style selections (the un-jitted original) against `where=` reductions, jitted
    "masked_reduction": [
        Check("positive_mean", lambda n: (_vector(n),)),
        Check("tail_energy", lambda n: (_vector(n), 0.5)),
    ],
    "numpy_on_traced": [
        Check("gelu", lambda n: (_vector(n),)),
        Check("normalize", lambda n: (_vector(n),)),
    ],
    "loop_stack_axis": [Check("time_features", _rows(3))],
    # the eager original's `while` against the jitted lax.while_loop, on inputs that end it
    "while_solvers": [
        Check("newton_sqrt", lambda n: (jnp.float32(n + 1.0),)),
        Check("newton_sqrt", lambda n: (jnp.float32(0.25 * n + 0.1),)),
        Check("least_squares_gd", lambda n: (_vector(3), _matrix(n, 3, 1), _vector(n, 2))),
        Check(
            "least_squares_gd", lambda n: (jnp.zeros(3, jnp.int32), _matrix(n, 3, 1), _vector(n))
        ),
        Check("bisect_cubic_root", lambda n: (jnp.float32(n - 4.0),)),
        Check("bisect_cubic_root", lambda n: (jnp.float32(n), -1.0, 3.0, 1e-2)),
    ],
    "loop_comprehension_rows": [Check("row_softmax", _rows(3))],
    # rows mapped over, one row per element; a weakly typed counter in `**`
    "loop_bound_comprehension": [
        Check("centered_rows", lambda n: (_matrix(n, 3),)),
        Check("centered_rows", lambda n: (_matrix(n, 3).astype(jnp.int32),)),
        Check("discounted_rewards", lambda n: (_vector(n), jnp.float32(0.9))),
        Check("discounted_rewards", lambda n: (_vector(n).astype(jnp.float16), 0.9)),
    ],
    "loop_builtin_sum": [Check("mean_gradient", _rows(3))],
    # a prepended list, a reversed one rebound; `values` with the bootstrap entry, or without
    # (then `values[t + 1]` reads past the end, which JAX clamps, traced or not)
    "loop_slot_list": [
        Check("gae", lambda n: (_vector(n), _vector(n, 1), _vector(n, 2) > 1, 0.99, 0.95)),
        Check("gae", lambda n: (_matrix(n, 2), _matrix(n, 2, 1), _matrix(n, 2, 2) > 1, 0.9, 0.5)),
        Check("smooth", lambda n: (_vector(n), 0.3)),
        Check("smooth", lambda n: (_matrix(n, 3), jnp.float32(0.8))),
    ],
    "loop_reversed_range": [
        Check("gae", lambda n: (_vector(n), _vector(n + 1, 1), _vector(n, 2) > 1, 0.99, 0.95)),
        Check(
            "gae", lambda n: (_matrix(n, 2), _matrix(n, 2, 1), _vector(n, 2)[:, None] > 1, 0.9, 0.5)
        ),
        Check("gae", lambda n: (_vector(n), _vector(n, 1), _vector(n, 2) > 1, 0.99, 0.95)),
        Check("returns_to_go", lambda n: (_vector(n), 0.9)),
        Check("returns_to_go", lambda n: (_vector(n).astype(jnp.float16), jnp.float32(0.9))),
    ],
    "loop_live_after_static_if": [
        Check("running_peak", lambda n: (_matrix(n, 3),)),
        Check("running_peak", lambda n: (_matrix(0, 3),)),
    ],
    "method_static_flag": [
        Check("Linear.predict", _rows(3), lambda: (_matrix(3, 2, 1), _vector(2), True)),
        Check("Linear.predict", _rows(3), lambda: (_matrix(3, 2, 1), _vector(2), False)),
    ],
    # the scale changes after construction: the jitted original would keep the first one
    "method_static_self": [
        Check("Scaler.apply", lambda n: (_vector(n),), lambda: (2.0, 0.5)),
        Check("Scaler.apply", lambda n: (_vector(n),), lambda: (2.0,), lambda s: s.set_scale(-1.0)),
    ],
    "method_array_attribute": [Check("Scale.apply", _rows(3), lambda: (_vector(3, 1),))],
    "method_base_class_attribute": [
        Check("Dense.__call__", _rows(3), lambda: (_matrix(3, 2, 1), _vector(2), "relu")),
        Check("Dense.__call__", _rows(3), lambda: (_matrix(3, 2, 1), _vector(2), "tanh")),
    ],
    # One instance, called twice: a per-coordinate learning rate the shape of the parameters is
    # a donatable buffer, so donating the wrong helper position deletes it and the 2nd call raises.
    "method_donate_argnums": [
        Check(
            "MomentumSGD.step",
            lambda n: (_vector(n), _vector(n, 1), _vector(n, 2)),
            lambda: (0.1, 0.9),
        ),
        Check(
            "MomentumSGD.step",
            lambda n: (_vector(SHORT), _vector(SHORT, 1), _vector(SHORT, 2)),
            lambda: (jnp.full(SHORT, 0.1, jnp.float32), jnp.float32(0.9)),
        ),
    ],
    # Statistics are None in `__init__` and arrays after `fit`: they must be traced.
    "method_fitted_scaler": [
        Check("StandardScaler.transform", _rows(3)),
        Check("StandardScaler.transform", _rows(3), prepare=_fit(_matrix(16, 3, 3))),
        Check("StandardScaler.transform", _rows(3), lambda: (False,), _fit(_matrix(16, 3, 3))),
    ],
    "method_kwonly_default": [
        Check("SoftmaxClassifier.probabilities", _rows(3), lambda: (_matrix(3, 4, 1), _vector(4))),
    ],
    "method_static_argnums": [
        Check(
            "DiagonalGaussian.sample",
            lambda n: (jax.random.PRNGKey(n), n),
            lambda: (_vector(3), 0.1 * _vector(3, 1)),
        ),
    ],
    "method_several_attributes": [
        Check("LayerNorm.__call__", _rows(4), lambda: (_vector(4, 1), _vector(4))),
        Check("LayerNorm.__call__", _rows(4), lambda: (_vector(4, 1), _vector(4), 1e-3, "none")),
    ],
    "print_plain": [Check("sgd_step", lambda n: (_vector(n), _vector(n, 1)))],
    "print_two_in_step": [Check("sgd_step", lambda n: (_vector(n), _vector(n, 1)))],
    "print_fstring_spec": [Check("mse", lambda n: (_vector(n), _vector(n, 1)))],
    "print_sep": [Check("softmax", lambda n: (_vector(n),))],
    "print_static_and_traced": [Check("normalize", lambda n: (_vector(n),))],
    "print_percent_loss": [
        Check("train_step", lambda n: (_vector(n), _vector(n, 1), _vector(n, 2)))
    ],
    "print_str_concat": [Check("clip_by_max", lambda n: (_vector(n),))],
    "print_format_method": [Check("standardize", lambda n: (_vector(n),))],
    "print_shape_tuple": [Check("rescale", lambda n: (_vector(n),))],
    "print_sep_end": [Check("affine", lambda n: (_vector(n), _vector(n, 1), _vector(n, 2)))],
}
LOOP_CASES = [c for c in CHECKS if c.startswith("loop_")]


def _snapshot_params() -> list:
    marks = {c: pytest.mark.xfail(strict=True, reason=KNOWN_BUGS[c]) for c in KNOWN_BUGS}
    return [pytest.param(c, marks=marks.get(c, ()), id=c) for c in CASES]


# -- running the CLI ------------------------------------------------------------------------------


@dataclass(frozen=True)
class FixRun:
    """Files after `jaxlint check --fix` over a folder of cases, and what it reported."""

    fixed: dict[str, str]
    diagnostics: dict[str, list[dict]]
    output: str


def _run_fix(
    folder: Path, sources: dict[str, str], output_format: str, target: str = "cpu"
) -> FixRun:
    """Write each case as `<case>.py` into `folder`, fix them all, read them back. `target`:
    the backend the fixes are chosen for (`cpu` here whatever the machine has)."""
    folder.mkdir()
    # JAX306 is opt-in; its fix fixture needs it (no other case has a static `self`)
    config = f'[tool.jaxlint]\nextend-select = ["JAX306"]\ntarget = "{target}"\n'
    (folder / "pyproject.toml").write_text(config, encoding="utf-8")
    for case, text in sources.items():
        (folder / f"{case}.py").write_text(text, encoding="utf-8")
    command = [sys.executable, "-m", "jaxlint", "check", "--fix", "--no-cache", "--jobs", "2"]
    done = subprocess.run(
        [*command, "--output-format", output_format, "."],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode in (0, 1), done.stderr
    diagnostics: dict[str, list[dict]] = {case: [] for case in sources}
    if output_format == "json":
        for diagnostic in json.loads(done.stdout):
            diagnostics[Path(diagnostic["path"]).name.removesuffix(".py")].append(diagnostic)
    fixed = {c: (folder / f"{c}.py").read_text(encoding="utf-8") for c in sources}
    return FixRun(fixed, diagnostics, done.stdout)


def _read(case: str, suffix: str) -> str:
    return (FIX_FIXTURES / f"{case}{suffix}").read_text(encoding="utf-8")


@pytest.fixture(scope="session")
def first_fix(tmp_path_factory) -> FixRun:
    sources = {case: _read(case, ".in.py") for case in CASES}
    return _run_fix(tmp_path_factory.mktemp("fix") / "in", sources, "json")


@pytest.fixture(scope="session")
def accelerator_fix(tmp_path_factory) -> FixRun:
    """The cases whose fix differs on an accelerator, fixed with `target = "tpu"`."""
    sources = {case: _read(case, ".in.py") for case in ACCELERATOR_CASES}
    return _run_fix(tmp_path_factory.mktemp("fix") / "accelerator", sources, "json", "tpu")


@pytest.fixture(scope="session")
def second_fix(tmp_path_factory) -> FixRun:
    sources = {case: _read(case, ".out.py") for case in CASES}
    return _run_fix(tmp_path_factory.mktemp("fix") / "out", sources, "text")


# -- snapshots ------------------------------------------------------------------------------------


def test_every_case_is_classified():
    """A new fixture needs calls to check, or a refusal reason, or a reason it is left alone."""
    for case in CASES:
        assert (FIX_FIXTURES / f"{case}.out.py").exists(), f"{case}: no .out.py"
        kinds = [case in CHECKS, case in REFUSED, case in NOT_FLAGGED, case in CHECKED_ELSEWHERE]
        assert sum(kinds) == 1, f"{case}: in CHECKS, REFUSED, NOT_FLAGGED or CHECKED_ELSEWHERE"
        unchanged = _read(case, ".in.py") == _read(case, ".out.py")
        changed = case in CHECKS or case in CHECKED_ELSEWHERE
        assert unchanged == (not changed), f"{case}: .out.py vs .in.py"


@pytest.mark.parametrize("case", _snapshot_params())
def test_fix_writes_the_snapshot(case, first_fix):
    assert first_fix.fixed[case] == _read(case, ".out.py")


@pytest.mark.parametrize("case", CASES)
def test_fixing_the_snapshot_changes_nothing(case, second_fix):
    assert second_fix.fixed[case] == _read(case, ".out.py")


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_refused_fix_keeps_the_diagnostic_and_says_why(case, first_fix, second_fix):
    diagnostics = first_fix.diagnostics[case]
    assert diagnostics
    for diagnostic in diagnostics:
        assert diagnostic["fix"]["applied"] is False
        assert REFUSED[case] in diagnostic["fix"]["note"]
    text = [line for line in second_fix.output.splitlines() if line.startswith(f"{case}.py:")]
    assert len(text) == len(diagnostics), second_fix.output
    assert all(REFUSED[case] in line for line in text), second_fix.output


@pytest.mark.parametrize("case", sorted(NOT_FLAGGED))
def test_static_print_is_left_alone(case, first_fix):
    assert first_fix.diagnostics[case] == []


@pytest.mark.parametrize("case", sorted(CHECKED_ELSEWHERE))
def test_safe_fixes_are_applied_where_their_preconditions_hold(case, first_fix):
    states = {d["fix"]["applied"] for d in first_fix.diagnostics[case]}
    assert True in states, first_fix.diagnostics[case]


@pytest.mark.parametrize("case", sorted(set(CHECKS) - set(KNOWN_BUGS)))
def test_applied_fix_was_verified(case, first_fix):
    diagnostics = first_fix.diagnostics[case]
    assert diagnostics
    for diagnostic in diagnostics:
        assert diagnostic["fix"]["applied"] is True
        if diagnostic["fix"]["kind"] == "verified":  # a safe fix is applied without
            assert diagnostic["fix"]["verification"]["status"] == "verified"


def test_stores_into_a_jitted_parameter_are_verified_on_numpy_copies(first_fix, modules):
    case = "inplace_jitted_parameter"
    by_line = {d["line"]: d["fix"] for d in first_fix.diagnostics[case]}
    local, parameter = by_line[12], by_line[13]
    assert local["kind"] == "safe" and local["applied"] is True
    assert parameter["kind"] == "verified" and parameter["applied"] is True
    assert parameter["verification"]["status"] == "verified"
    assert "NumPy copies" in parameter["verification"]["reason"]
    original, fixed = modules(case, "in"), modules(case, "out")
    with pytest.raises(TypeError, match="immutable"):
        original.heat_step(_vector(5), 0.1, 1.0, -1.0)
    reference = _unjit(original.heat_step)
    for n in (2, 5, 11):  # lengths verification did not try
        u = np.asarray(_vector(n, seed=n))
        original.jnp = np  # the NumPy semantics the ported code was written for
        try:
            expected = reference(u.copy(), 0.1, 1.0, -1.0)
        finally:
            original.jnp = jnp
        got = fixed.heat_step(jnp.asarray(u), 0.1, 1.0, -1.0)
        np.testing.assert_allclose(np.asarray(got), expected, rtol=1e-6, atol=1e-6)


# -- running the fixtures -------------------------------------------------------------------------


@pytest.fixture(scope="session")
def modules(tmp_path_factory) -> Callable[[str, str], Any]:
    """Import `<case>.in.py` / `.out.py` from a temp copy (no __pycache__ in fixtures/)."""
    folder = tmp_path_factory.mktemp("modules")
    cache: dict[tuple[str, str], Any] = {}

    def load(case: str, side: str) -> Any:
        if (case, side) not in cache:
            name = f"fix_fixture_{case}_{side.replace('.', '_')}"
            path = folder / f"{name}.py"
            shutil.copyfile(FIX_FIXTURES / f"{case}.{side}.py", path)
            spec = importlib.util.spec_from_file_location(name, path)
            assert spec is not None and spec.loader is not None
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            cache[case, side] = module
        return cache[case, side]

    return load


def _unjit(function: Any) -> Any:
    return getattr(function, "__wrapped__", function)


def _original(module: Any, check: Check) -> Any:
    """The `.in.py` target with its jit decorator removed: the reference semantics."""
    owner, _, name = check.target.rpartition(".")
    if not owner:
        return _unjit(getattr(module, name))
    cls = getattr(module, owner)
    instance = cls(*check.init())
    check.prepare(instance)
    return functools.partial(_unjit(cls.__dict__[name]), instance)


def _rewritten(module: Any, check: Check) -> Any:
    """The `.out.py` target as a user calls it, jitted (a method calls its jitted helper)."""
    owner, _, name = check.target.rpartition(".")
    if owner:
        instance = getattr(module, owner)(*check.init())
        check.prepare(instance)
        return getattr(instance, name)
    function = getattr(module, name)
    return function if hasattr(function, "lower") else jax.jit(function)


def _assert_same(expected: Any, actual: Any) -> None:
    assert jax.tree.structure(expected) == jax.tree.structure(actual)
    for old, new in zip(jax.tree.leaves(expected), jax.tree.leaves(actual), strict=True):
        assert jnp.shape(old) == jnp.shape(new)
        assert jnp.result_type(old) == jnp.result_type(new)
        np.testing.assert_allclose(np.asarray(new), np.asarray(old), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("case", sorted(CHECKS))
def test_rewrite_computes_what_the_original_did(case, modules):
    for check in CHECKS[case]:
        original = _original(modules(case, "in"), check)
        rewritten = _rewritten(modules(case, "out"), check)
        for n in (SHORT, LONG):
            _assert_same(original(*check.args(n)), rewritten(*check.args(n)))


@pytest.mark.parametrize("case", ACCELERATOR_CASES)
def test_accelerator_fix_writes_its_snapshot(case, accelerator_fix):
    """`<case>.accelerator.out.py`: what `--fix` writes with `target = "tpu"` (a linear
    recurrence by `lax.associative_scan`, a scatter-add, a weakly typed loop counter, where the
    CPU gets `lax.scan`), verified here on CPU."""
    assert accelerator_fix.fixed[case] == _read(case, ".accelerator.out.py")
    assert _read(case, ".accelerator.out.py") != _read(case, ".out.py")
    fixes = [diagnostic["fix"] for diagnostic in accelerator_fix.diagnostics[case]]
    assert any("lax.scan" not in fix["description"] and fix["applied"] for fix in fixes)
    for fix in fixes:
        if fix["applied"]:
            assert fix["verification"]["status"] == "verified"
        else:  # `smooth`: alpha drawn from a normal, |1 - alpha| > 1 amplifies bfloat16 rounding
            assert fix["note"].startswith("verification failed: output values differ"), fix


@pytest.mark.parametrize("case", ACCELERATOR_CASES)
def test_accelerator_rewrite_computes_what_the_original_did(case, modules):
    """On lengths verification did not try."""
    for check in CHECKS[case]:
        original = _original(modules(case, "in"), check)
        rewritten = _rewritten(modules(case, "accelerator.out"), check)
        for n in (1, SHORT, LONG):
            _assert_same(original(*check.args(n)), rewritten(*check.args(n)))


@pytest.mark.parametrize("case", sorted(MODULE_METHODS))
def test_module_methods_verify_and_apply(case, first_fix, modules):
    """Inputs for an equinox / flax module method come from its declarations and the module's
    calls; the scan it gets computes what the unrolled loop did."""
    pytest.importorskip("equinox")
    pytest.importorskip("flax")
    (diagnostic,) = first_fix.diagnostics[case]
    assert diagnostic["fix"]["applied"] is True
    assert diagnostic["fix"]["verification"]["status"] == "verified"
    assert "n_samples: " in diagnostic["fix"]["verification"]["reason"]
    call, arguments = MODULE_METHODS[case]
    for n in (1, SHORT, LONG):
        with jax.disable_jit():
            expected = call(modules(case, "in"), arguments(n))
        _assert_same(expected, call(modules(case, "out"), arguments(n)))


def _eqns(function: Any, args: tuple) -> int:
    return len(jax.make_jaxpr(function)(*args).jaxpr.eqns)


@pytest.mark.parametrize("case", LOOP_CASES)
def test_rewritten_loop_jaxpr_does_not_grow(case, modules):
    check = CHECKS[case][0]
    original = _unjit(getattr(modules(case, "in"), check.target))
    rewritten = _unjit(getattr(modules(case, "out"), check.target))
    short, long = check.args(SHORT), check.args(LONG)
    assert _eqns(original, short) < _eqns(original, long)
    assert _eqns(rewritten, short) == _eqns(rewritten, long)
    assert _eqns(rewritten, long) < _eqns(original, short)
