"""Compare outputs, count jaxpr equations and time compilation."""

from __future__ import annotations

import math
import re
import statistics
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

# A single call wrapping the whole function (the rewritten function is usually jitted): count what
# is inside it, so a jitted rewrite is measured like the undecorated original.
_WRAPPERS = frozenset({"jit", "pjit", "closed_call", "core_call", "checkpoint", "remat"})


@dataclass(frozen=True)
class Comparison:
    """Whether two outputs agree, the largest absolute difference, and what differed."""

    same: bool
    max_abs_diff: float | None
    detail: str = ""
    values_only: bool = False  # trees, shapes and dtypes agree; only values differ


_NUMBER = re.compile(r"([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|[-+]?nan|[-+]?inf)")


def same_text(expected: str, actual: str, loose: bool = False) -> bool:
    """Printed texts agree: the same words, and numbers equal within the array tolerance.

    A jitted computation may differ from the eager one in the last bits, which changes a printed
    digit and NumPy's column alignment; neither is a different print.
    """
    want, got = _NUMBER.split(expected), _NUMBER.split(actual)
    if len(want) != len(got):
        return False
    rtol, atol = (1e-2, 1e-2) if loose else (1e-5, 1e-6)
    for position, (a, b) in enumerate(zip(want, got, strict=True)):
        if position % 2 == 0:
            if a.split() != b.split():
                return False
        elif a != b and not _close_numbers(a, b, rtol, atol):
            return False
    return True


def _close_numbers(a: str, b: str, rtol: float, atol: float) -> bool:
    x, y = float(a), float(b)
    if math.isnan(x) or math.isnan(y) or math.isinf(x) or math.isinf(y):
        return x == y or (math.isnan(x) and math.isnan(y))
    # NumPy picks the digits for the whole array: a printed number is only as exact as its digits
    slack = max(_resolution(a), _resolution(b))
    return abs(x - y) <= atol + rtol * abs(y) + slack


def _resolution(token: str) -> float:
    """Half a unit in the last printed digit: `1.25e+03` → 5.0, `0.125` → 0.0005."""
    mantissa, _, exponent = token.lower().partition("e")
    decimals = len(mantissa.partition(".")[2])
    return 0.5 * 10.0 ** (int(exponent or 0) - decimals)


def compare_outputs(
    expected: Any, actual: Any, zero_trip: bool = False, loose: bool = False
) -> Comparison:
    """Same tree structure, shapes and dtypes (weak types ignored), and allclose values.

    `zero_trip` (an input with an empty loop axis): leaves empty on both sides agree whatever
    their shape, and a leaf may come back broadcast to a larger shape, or promoted to a wider
    dtype, with the same values (a carry start cast to the type the loop gives it).
    `loose`: the inputs were 16-bit, so every output gets the 16-bit tolerance.
    """
    expected_leaves, expected_tree = jax.tree_util.tree_flatten(expected)
    actual_leaves, actual_tree = jax.tree_util.tree_flatten(actual)
    if expected_tree != actual_tree:
        detail = f"output structure differs: {expected_tree} vs {actual_tree}"
        return Comparison(False, None, detail)
    worst: float | None = None
    for index, (want, got) in enumerate(zip(expected_leaves, actual_leaves, strict=True)):
        where = f"output leaf {index}" if len(expected_leaves) > 1 else "output"
        want_array, got_array = _as_array(want), _as_array(got)
        # a Python scalar (or weakly typed value) takes the dtype it meets: 0 stays uint8 data's 0
        weak = isinstance(want, (bool, int, float, complex)) or getattr(want, "weak_type", False)
        if want_array is None or got_array is None:
            if want_array is not None or got_array is not None or want != got:
                return Comparison(False, worst, f"{where} differs: {want!r} vs {got!r}")
            continue
        if zero_trip and want_array.size == 0 and got_array.size == 0:
            continue
        adjusted = False  # a zero-trip allowance was used: not the same values, shapes, dtypes
        if zero_trip and want_array.shape != got_array.shape and _broadcasts(want_array, got_array):
            want_array = np.broadcast_to(want_array, got_array.shape)
            adjusted = True
        if want_array.shape != got_array.shape:
            return Comparison(
                False, worst, f"{where} shape differs: {want_array.shape} vs {got_array.shape}"
            )
        if (
            zero_trip
            and want_array.dtype != got_array.dtype
            and (weak or jnp.promote_types(want_array.dtype, got_array.dtype) == got_array.dtype)
        ):
            want_array = want_array.astype(got_array.dtype)
            adjusted = True
        if want_array.dtype != got_array.dtype:
            return Comparison(
                False, worst, f"{where} dtype differs: {want_array.dtype} vs {got_array.dtype}"
            )
        diff = _max_abs_diff(want_array, got_array)
        worst = diff if worst is None else max(worst, diff)
        if not _close(want_array, got_array, loose):
            detail = f"{where} values differ (max |Δ| {diff:.3g})"
            return Comparison(False, worst, detail, values_only=not adjusted)
    return Comparison(True, worst)


def identical_outputs(first: Any, second: Any) -> bool:
    """Are two outputs of one function on the same inputs the same, bit for bit (NaN equal to
    NaN)? A deterministic function's are: JAX's kernels and NumPy's give the same bits for the
    same inputs on one machine."""
    first_leaves, first_tree = jax.tree_util.tree_flatten(first)
    second_leaves, second_tree = jax.tree_util.tree_flatten(second)
    if first_tree != second_tree:
        return False
    for one, other in zip(first_leaves, second_leaves, strict=True):
        arrays = _as_array(one), _as_array(other)
        if arrays[0] is None or arrays[1] is None:
            if arrays[0] is not None or arrays[1] is not None or one != other:
                return False
            continue
        if arrays[0].shape != arrays[1].shape or arrays[0].dtype != arrays[1].dtype:
            return False
        equal_nan = arrays[0].dtype.kind in "fc"
        if not np.array_equal(arrays[0], arrays[1], equal_nan=equal_nan):
            return False
    return True


# How far, relative to a leaf's largest magnitude, compiling may move the original before the
# move is no longer rounding: reassociating a float32 sum of n terms moves it by about n·2⁻²⁴
# of the terms' magnitudes (1e-3 is a sum of ~16,000 terms, cancellation included); a random
# draw made at trace time, or any other change of meaning, moves it by the magnitude itself.
_ROUNDING_CAP = {False: 1e-3, True: 1e-1}  # (loose: 16-bit data)


def within_noise(expected: Any, actual: Any, jitted: Any, loose: bool = False) -> bool:
    """Are `actual`'s values as close to `expected` (the unstaged original's) as rounding allows,
    measured by how far the original compiled as written (`jitted`) is from it on the same
    inputs? Trees, shapes and dtypes must already agree.

    XLA fuses and reassociates float arithmetic, so a compiled function can differ from its
    op-by-op run by more than a fixed tolerance where a result is small beside the values it
    was computed from. Each element may differ by the fixed tolerance plus twice the largest
    difference the compiled original shows in that leaf: a rewrite no further from the
    reference than compilation moves the original itself. That difference must look like
    rounding (`_ROUNDING_CAP`): a compiled original far from its eager run proves nothing
    about a rewrite's rounding."""
    leaves = [jax.tree_util.tree_leaves(tree) for tree in (expected, actual, jitted)]
    if len({len(tree) for tree in leaves}) != 1:
        return False
    for want, got, compiled in zip(*leaves, strict=True):
        arrays = [_as_array(leaf) for leaf in (want, got, compiled)]
        if any(a is None for a in arrays) or len({a.shape for a in arrays}) != 1:
            return False
        want_array, got_array, compiled_array = arrays
        tolerance = _tolerance(want_array.dtype, loose)
        if tolerance is None:
            if not np.array_equal(want_array, got_array):
                return False
            continue
        rtol, atol = tolerance
        wide = (
            np.complex128 if jnp.issubdtype(want_array.dtype, jnp.complexfloating) else np.float64
        )
        a, b, c = (x.astype(wide) for x in (want_array, got_array, compiled_array))
        with np.errstate(invalid="ignore"):
            noise = np.nanmax(np.abs(c - a), initial=0.0)
            scale = np.nanmax(np.abs(a), initial=0.0)
            cap = _ROUNDING_CAP[loose or jnp.finfo(want_array.dtype).bits <= 16]
            if noise > max(cap * scale, atol):
                return False  # the compiled original differs by more than rounding
            allowed = atol + rtol * np.abs(a) + 2 * noise
            close = (np.abs(b - a) <= allowed) | (np.isnan(a) & np.isnan(b))
        if not bool(np.all(close)):
            return False
    return True


def rounding_dominated(expected: Any, precise: Any, loose: bool = False) -> bool:
    """Is some float leaf of `expected` further from the same computation in float64
    (`precise`) than rounding moves a result (`_ROUNDING_CAP` of its magnitude)? Then the
    float32 values are mostly rounding error: an ill-conditioned solve, a near-singular `inv`."""
    leaves = jax.tree_util.tree_leaves(expected), jax.tree_util.tree_leaves(precise)
    if len(leaves[0]) != len(leaves[1]):
        return False
    for want, wide in zip(*leaves, strict=True):
        a, c = _as_array(want), _as_array(wide)
        if a is None or c is None or a.shape != c.shape or _tolerance(a.dtype, loose) is None:
            continue
        _, atol = _tolerance(a.dtype, loose)  # type: ignore[misc]
        cap = _ROUNDING_CAP[loose or jnp.finfo(a.dtype).bits <= 16]
        a, c = a.astype(np.complex128), c.astype(np.complex128)
        with np.errstate(invalid="ignore"):
            error = np.nanmax(np.abs(c - a), initial=0.0)
            scale = np.nanmax(np.abs(a), initial=0.0)
        if error > max(cap * scale, atol):
            return True
    return False


def _broadcasts(small: np.ndarray, large: np.ndarray) -> bool:
    try:
        return np.broadcast_shapes(small.shape, large.shape) == large.shape
    except ValueError:
        return False


def _as_array(value: Any) -> np.ndarray | None:
    if isinstance(value, jax.Array) and jnp.issubdtype(value.dtype, jax.dtypes.prng_key):
        value = jax.random.key_data(value)
    if isinstance(value, (jax.Array, np.ndarray, np.generic, bool, int, float, complex)):
        # Through jnp so a Python scalar gets the dtype JAX would give it (float → float32).
        return np.asarray(jnp.asarray(value))
    return None


def _tolerance(dtype: np.dtype, loose: bool) -> tuple[float, float] | None:
    """(rtol, atol) for inexact dtypes; None means exact comparison."""
    if not jnp.issubdtype(dtype, jnp.inexact):
        return None
    if loose or jnp.finfo(dtype).bits <= 16:
        return 1e-2, 1e-2
    return 1e-5, 1e-6


def _close(want: np.ndarray, got: np.ndarray, loose: bool) -> bool:
    tolerance = _tolerance(want.dtype, loose)
    if tolerance is None:
        return bool(np.array_equal(want, got))
    rtol, atol = tolerance
    wide = np.complex128 if jnp.issubdtype(want.dtype, jnp.complexfloating) else np.float64
    return bool(
        np.allclose(want.astype(wide), got.astype(wide), rtol=rtol, atol=atol, equal_nan=True)
    )


def _max_abs_diff(want: np.ndarray, got: np.ndarray) -> float:
    if want.size == 0 or want.dtype == np.bool_:
        return 0.0 if want.size == 0 or np.array_equal(want, got) else 1.0
    wide = np.complex128 if jnp.issubdtype(want.dtype, jnp.complexfloating) else np.float64
    a, b = want.astype(wide), got.astype(wide)
    both_nan = np.isnan(a) & np.isnan(b)
    with np.errstate(invalid="ignore"):
        diff = np.where(both_nan, 0.0, np.abs(a - b))
    return float(np.max(diff))


def count_eqns(fn: Callable[..., Any], args: tuple[Any, ...]) -> tuple[int, int]:
    """(top-level, total including nested jaxprs) equation counts of `fn` traced on `args`."""
    jaxpr = jax.make_jaxpr(fn)(*args).jaxpr
    while len(jaxpr.eqns) == 1 and jaxpr.eqns[0].primitive.name in _WRAPPERS:
        inner = list(_sub_jaxprs(jaxpr.eqns[0]))
        if len(inner) != 1:
            break
        jaxpr = inner[0]
    return len(jaxpr.eqns), _total_eqns(jaxpr)


def _total_eqns(jaxpr: Any) -> int:
    return sum(1 + sum(_total_eqns(sub) for sub in _sub_jaxprs(eqn)) for eqn in jaxpr.eqns)


def _sub_jaxprs(eqn: Any) -> Iterator[Any]:
    # `jax.core.jaxprs_in_params` is gone in newer JAX: walk the params by shape instead.
    for value in eqn.params.values():
        yield from _jaxprs_in(value)


def _jaxprs_in(value: Any) -> Iterator[Any]:
    if isinstance(value, (list, tuple)):
        for item in value:
            yield from _jaxprs_in(item)
    elif hasattr(value, "eqns"):  # Jaxpr
        yield value
    elif hasattr(getattr(value, "jaxpr", None), "eqns"):  # ClosedJaxpr
        yield value.jaxpr


RUN_CALLS = 7  # timed calls of a compiled function, after one untimed call


def compile_and_run_seconds(
    fn: Callable[..., Any], args: tuple[Any, ...]
) -> tuple[float, float | None]:
    """Wall time of `jax.jit(fn).lower(*args).compile()`, and the steady-state time of one call
    of the compiled function (the median of RUN_CALLS calls, each until its outputs are ready;
    None when calling it raises)."""
    start = time.perf_counter()
    compiled = jax.jit(fn).lower(*args).compile()
    compile_s = time.perf_counter() - start
    try:
        jax.block_until_ready(compiled(*args))
        times = []
        for _ in range(RUN_CALLS):
            start = time.perf_counter()
            jax.block_until_ready(compiled(*args))
            times.append(time.perf_counter() - start)
    except Exception:  # noqa: BLE001 - user code: the run time is then not measured
        return compile_s, None
    return compile_s, statistics.median(times)
