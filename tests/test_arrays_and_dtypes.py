"""The JAX204/JAX205/JAX206/JAX401 fixtures under real JAX, before and after their fixes.

- JAX204: each flagged function raises TypeError (JAX arrays are immutable); its fixed version
  returns what the original computes on NumPy arrays (the module run with `jnp` as NumPy).
- JAX205: each flagged function returns its array without the update; the fixed one with it.
- JAX206: each flagged call prints a tracer's text or raises TypeError; the fixed one prints
  the values.
- JAX401: each flagged request gives a 32-bit dtype.
Every `# ok:` function runs.
"""

from __future__ import annotations

import contextlib
import io
from types import ModuleType

import pytest

from jaxlint.engine.config import Config
from jaxlint.fixes.pipeline import lint_source
from tests.conftest import FIXTURES, module_from_source

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
np = pytest.importorskip("numpy")

F = jnp.array([3.0, -2.0, 1.0, 0.5])
M = jnp.arange(12.0).reshape(4, 3) + 1.0
KEY = jax.random.PRNGKey(0)

CALLS: dict[str, dict[str, tuple]] = {
    "jax204_ports.py": {
        "identity_with_border": (4,),
        "one_hot": (2, 5),
        "add_bias_column": (M,),
        "scale_first_row": (F,),
        "reset_velocity": (F,),
        "cumulative_counts": (jnp.array([0, 1, 1, 3]), 4),
        "laplacian_1d": (4,),
        "normalize_columns": (M,),
        "scatter_updates": (jnp.array([1, 3]), jnp.array([2.0, 5.0])),
        "numpy_identity": (3,),
        "host_copy": (F,),
        "rollout_dones": (jnp.array([1.0, 0.0]),),
        "axis_index": (1, 2, 3),
        "one_hot_at": (1, 3),
        "sgd": ({"w": F}, {"w": F}, 0.1),
        "collect": ([F, F],),
        "to_host": (F,),
        # `/=` into an integer array: NumPy truncates into int32, `.at[].divide` would be float
        "halve_counts": (jnp.array([7, -7, 9]),),
    },
    "jax205_updates.py": {
        "spawn_units": (2, 5),
        "mask_diagonal": (jnp.ones((3, 3)),),
        "clip_first": (F,),
        "accumulate_counts": (jnp.array([0, 2, 2]),),
        "selected_volume": (4, jnp.array([1, 2])),
        "decay_row": (M, 1),
        "halve_last": (F,),
        "spawn_units_fixed": (2, 5),
        "one_hot": (1, 3),
        "peek": (F, 1),
        "bump": (F,),
        "masked_sum": (F, 0),
        "swap": (F,),
        "step": (F,),
    },
    "jax206_debug_prints.py": {
        "train_step": (F[:3], M, F),
        "report_norm": (F,),
        "self_documenting": (F,),
        "log_step": (F, 3),
        "scan_sum": (F,),
        "shapes_and_values": (F,),
        "per_example": (M,),
        "two_parts": (jnp.float32(1.0), jnp.float32(2.0)),
        "train_step_fixed": (F[:3], M, F),
        "shape_marker": (F,),
        "marker": (F,),
        "host_report": (F,),
        "positional": (F,),
        "plain": (F,),
        "templated": (F,),
        "versioned": (F,),
    },
    "jax401_dtypes.py": {
        "high_precision_sum": ([F, F],),
        "as_double": (F,),
        "ids": (4,),
        "spectrum": (3,),
        "constant": (),
        "random_doubles": (KEY, 3),
        "counter": (3,),
        "cast_back": (F,),
        "host_table": (3,),
        "is_double": (F,),
        "is_float": (F,),
        "single": (3,),
        "eps": (),
        "host_cast": (F,),
        "default": (3,),
        "plogis": (F,),
        "counts": (3,),
        "fft_double": (F,),
        "host_double": (F,),
        "is_default_float": (F,),
        "boxcox": (F, 0.5),
        "single_positional": (F,),
        "rgamma": (KEY, 2.0, (3,)),
        "_rgamma": (KEY, 2.0, (3,), jnp.float_),
        "_draw_normal": (KEY, (3,), jnp.float64),
        "noise": (KEY,),
        "step_function": (F, F, 0.7),
        "runiform": (KEY, (3,)),
    },
}
WIDE = {np.dtype("float64"), np.dtype("int64"), np.dtype("complex128")}


def _read(name: str) -> str:
    return (FIXTURES / "rules" / name).read_text(encoding="utf-8")


def _function_at(lines: list[str], line: int) -> str:
    """The top-level function or class around a line (a lax body: the function making it)."""
    above = (t for t in reversed(lines[:line]) if t.startswith(("def ", "class ")))
    return next(above).split(" ", 1)[1].split("(")[0].split(":")[0]


def _flagged(name: str, code: str) -> set[str]:
    """The functions (or methods) holding a finding of `code`."""
    source = _read(name)
    diagnostics = lint_source(source, name, Config(select=(code,))).diagnostics
    return {_function_at(source.splitlines(), d.line) for d in diagnostics}


def _fix(name: str, code: str) -> tuple[str, set[str]]:
    """The fixed source, and the functions whose findings all got their fix applied."""
    source = _read(name)
    result = lint_source(source, name, Config(select=(code,)), fix=True, verify=False)
    assert result.fixed_source is not None
    lines = source.splitlines()
    applied: dict[str, bool] = {}
    for d in result.diagnostics:
        function = _function_at(lines, d.line)
        applied[function] = applied.get(function, True) and bool(d.fix and d.fix.applied)
    return result.fixed_source, {f for f, ok in applied.items() if ok}


def _fixed(name: str, code: str) -> str:
    return _fix(name, code)[0]


def _call(module: ModuleType, function: str, args: tuple):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        value = jax.block_until_ready(getattr(module, function)(*args))
        jax.effects_barrier()
    return value, out.getvalue()


def _cases(name: str) -> list[tuple[str, str]]:
    return [(name, function) for function in CALLS[name]]


@pytest.mark.parametrize("name, function", _cases("jax204_ports.py"))
def test_jax204_raises_and_the_fix_computes_what_numpy_does(name, function):
    original = module_from_source(_read(name), "_jax204_original")
    if function not in _flagged(name, "JAX204"):
        _call(original, function, CALLS[name][function])
        return
    args = CALLS[name][function]
    with pytest.raises(TypeError, match="immutable"):
        _call(original, function, args)
    source, fixed_functions = _fix(name, "JAX204")
    fixed = module_from_source(source, "_jax204_fixed")
    if function not in fixed_functions:  # refused (with its reason): still the original error
        with pytest.raises(TypeError, match="immutable"):
            _call(fixed, function, args)
        return
    reference = module_from_source(_read(name), "_jax204_numpy")
    reference.jnp = np  # the NumPy semantics the ported code was written for
    target = getattr(reference, function)
    numpy_args = tuple(np.asarray(a) if isinstance(a, jax.Array) else a for a in args)
    expected = getattr(target, "__wrapped__", target)(*numpy_args)
    got, _ = _call(fixed, function, args)
    np.testing.assert_allclose(np.asarray(got), np.asarray(expected), rtol=1e-6)
    if isinstance(expected, np.ndarray):  # NumPy keeps the array's dtype through a store
        assert np.asarray(got).dtype.kind == expected.dtype.kind


def test_jax204_fixes_the_local_arrays_and_refuses_index_arrays():
    _, fixed_functions = _fix("jax204_ports.py", "JAX204")
    assert "laplacian_1d" in fixed_functions and "normalize_columns" in fixed_functions
    assert "scatter_updates" not in fixed_functions  # `table[indices] += values`: repeats?
    assert "one_hot" not in fixed_functions  # `label` may be an index array


@pytest.mark.parametrize("name, function", _cases("jax205_updates.py"))
def test_jax205_update_is_lost_and_the_fix_keeps_it(name, function):
    args = CALLS[name][function]
    original = module_from_source(_read(name), "_jax205_original")
    if function not in _flagged(name, "JAX205"):
        _call(original, function, args)
        return
    fixed = module_from_source(_fixed(name, "JAX205"), "_jax205_fixed")
    before, _ = _call(original, function, args)
    after, _ = _call(fixed, function, args)
    assert not np.array_equal(np.asarray(before), np.asarray(after)), "the update took effect"


def test_jax205_method_update_is_lost_and_the_fix_keeps_it():
    name = "jax205_updates.py"
    assert "Board" in _flagged(name, "JAX205")
    original = module_from_source(_read(name), "_jax205_original_board").Board(3)
    fixed = module_from_source(_fixed(name, "JAX205"), "_jax205_fixed_board").Board(3)
    assert int(original.place(1, 1, 7)[1, 1]) == 0
    assert int(fixed.place(1, 1, 7)[1, 1]) == 7


@pytest.mark.parametrize("name, function", _cases("jax206_debug_prints.py"))
def test_jax206_prints_tracers_and_the_fix_prints_values(name, function):
    args = CALLS[name][function]
    original = module_from_source(_read(name), "_jax206_original")
    if function not in _flagged(name, "JAX206"):
        _, printed = _call(original, function, args)
        assert "Tracer" not in printed
        return
    try:
        _, printed = _call(original, function, args)
    except TypeError as error:
        assert "format" in str(error)
    else:
        assert "Tracer" in printed, printed
    fixed = module_from_source(_fixed(name, "JAX206"), "_jax206_fixed")
    _, printed = _call(fixed, function, args)
    assert printed and "Tracer" not in printed, printed
    # what the original means is what it prints run eagerly (`{x=}` shows repr(x) there)
    with jax.disable_jit():
        try:
            _, eager = _call(original, function, args)
        except TypeError:  # `f"{x:.3f}"` of an array raises eagerly too
            return
    if "Tracer" not in eager:  # (under vmap, disable_jit still traces: no eager text to match)
        assert sorted(printed.splitlines()) == sorted(eager.splitlines())


@pytest.mark.parametrize("name, function", _cases("jax401_dtypes.py"))
def test_jax401_requests_come_back_32_bit(name, function):
    module = module_from_source(_read(name), "_jax401")
    value, _ = _call(module, function, CALLS[name][function])
    if function in _flagged(name, "JAX401"):
        assert np.asarray(value).dtype not in WIDE
        assert isinstance(value, jax.Array)


def test_every_fixture_function_is_called():
    for name, calls in CALLS.items():
        code = name[:6].upper()
        assert _flagged(name, code) - {"Board"} <= set(calls), name


def _snapshot(case: str, suffix: str) -> ModuleType:
    source = (FIXTURES / "fix" / f"{case}{suffix}").read_text(encoding="utf-8")
    return module_from_source(source, f"_snapshot_{case}_{suffix.split('.')[1]}")


def test_fix_snapshots_run_as_the_numpy_code_they_were_ported_from():
    reference = _snapshot("inplace_ported", ".in.py")
    reference.jnp = np
    fixed = _snapshot("inplace_ported", ".out.py")
    np.testing.assert_allclose(fixed.laplacian_1d(5, 0.5), reference.laplacian_1d(5, 0.5))
    u = np.linspace(0.0, 1.0, 6)
    np.testing.assert_allclose(
        fixed.with_boundary(jnp.asarray(u), 2.0, 3.0), reference.with_boundary(u, 2.0, 3.0)
    )
    with pytest.raises(TypeError, match="immutable"):  # refused: still the original error
        fixed.histogram(jnp.array([1, 1, 2]), 4)

    original = _snapshot("discarded_at_update", ".in.py")
    fixed = _snapshot("discarded_at_update", ".out.py")
    assert not original.reset_units(KEY, 2, 6, 3).any()  # every enemy left at type 0
    assert fixed.reset_units(KEY, 2, 6, 3)[2:].any()
    assert float(original.mark_selected(4, jnp.array([1])).sum()) == 4.0
    assert float(fixed.mark_selected(4, jnp.array([1])).sum()) == 3.0

    args = (jnp.ones(3), M, F, 0.1)
    with pytest.raises(TypeError, match="format"):
        _call(_snapshot("debug_print_fstring", ".in.py"), "train_step", args)
    _, printed = _call(_snapshot("debug_print_fstring", ".out.py"), "train_step", args)
    lines = sorted(printed.splitlines())  # the two prints are not ordered with each other
    # `{loss=}` shows repr(loss), as the f-string run eagerly does
    assert lines[0].startswith("loss "), printed
    assert lines[1].startswith("loss=Array(") and lines[1].endswith(" shapes (4, 3) (3,)"), printed


def test_a_functions_own_jax_import_leaves_the_modules_numpy_arrays_mutable():
    module = module_from_source(_read("jax204_local_import.py"), "_jax204_local_import")
    x0 = np.arange(6.0).reshape(2, 3)
    jacobian = module.finite_difference_jacobian(lambda x: 2.0 * x, x0)
    assert np.allclose(jacobian[0, 0, 0, 0], 2.0)  # the NumPy stores ran
    assert module.spectrum(np.ones(8))[0] == 0.0
    with pytest.raises(TypeError, match="immutable"):
        module.make_diffusion(3)(jnp.ones((3, 3)))  # the flagged store, on a JAX array
