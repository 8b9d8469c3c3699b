"""Compare what the original and the rewrite returned and printed: on jaxlint's side of the
verification, with NumPy alone, over outputs the child sent as data (`jaxlint.verify.observed`)."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from jaxlint.verify.observed import Leaf, Output


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
    expected: Output, actual: Output, zero_trip: bool = False, loose: bool = False
) -> Comparison:
    """Same tree structure, shapes and dtypes (weak types ignored), and allclose values.

    `zero_trip` (an input with an empty loop axis): leaves empty on both sides agree whatever
    their shape, and a leaf may come back broadcast to a larger shape, or promoted to a wider
    dtype, with the same values (a carry start cast to the type the loop gives it).
    `loose`: the inputs were 16-bit, so every output gets the 16-bit tolerance.
    Details name leaves by position, shapes and dtypes only: never a value the code made.
    """
    if expected.structure != actual.structure or len(expected.leaves) != len(actual.leaves):
        detail = (
            f"output structure differs ({len(expected.leaves)} leaves from the original,"
            f" {len(actual.leaves)} from the rewrite)"
        )
        return Comparison(False, None, detail)
    worst: float | None = None
    for index, (want, got) in enumerate(zip(expected.leaves, actual.leaves, strict=True)):
        where = f"output leaf {index}" if len(expected.leaves) > 1 else "output"
        if not want.is_array or not got.is_array:
            if not _same_value(want, got):
                return Comparison(False, worst, f"{where} differs (a value that is no array)")
            continue
        assert want.values is not None and got.values is not None
        if zero_trip and want.values.size == 0 and got.values.size == 0:
            continue
        adjusted = False  # a zero-trip allowance was used: not the same values, shapes, dtypes
        want_values, want_dtype = want.values, want.dtype
        if (
            zero_trip
            and want_values.shape != got.values.shape
            and _broadcasts(want_values, got.values)
        ):
            want_values = np.broadcast_to(want_values, got.values.shape)
            adjusted = True
        if want_values.shape != got.values.shape:
            return Comparison(
                False, worst, f"{where} shape differs: {want_values.shape} vs {got.values.shape}"
            )
        if (
            zero_trip
            and want_dtype != got.dtype
            and (want.weak or promotes_to(want_dtype, got.dtype))
        ):
            want_values, want_dtype = want_values.astype(got.values.dtype), got.dtype
            adjusted = True
        if want_dtype != got.dtype:
            return Comparison(False, worst, f"{where} dtype differs: {want_dtype} vs {got.dtype}")
        diff = _max_abs_diff(want_values, got.values)
        worst = diff if worst is None else max(worst, diff)
        if not _close(want_values, got.values, got, loose):
            detail = f"{where} values differ (max |Δ| {diff:.3g})"
            return Comparison(False, worst, detail, values_only=not adjusted)
    return Comparison(True, worst)


def identical_outputs(first: Output, second: Output) -> bool:
    """Are two outputs of one function on the same inputs the same, bit for bit (NaN equal to
    NaN)? A deterministic function's are: JAX's kernels and NumPy's give the same bits for the
    same inputs on one machine."""
    if first.structure != second.structure or len(first.leaves) != len(second.leaves):
        return False
    for one, other in zip(first.leaves, second.leaves, strict=True):
        if one.values is None or other.values is None:
            if not _same_value(one, other):
                return False
            continue
        if one.values.shape != other.values.shape or one.dtype != other.dtype:
            return False
        if not np.array_equal(one.values, other.values, equal_nan=one.inexact):
            return False
    return True


# How far, relative to a leaf's largest magnitude, compiling may move the original before the
# move is no longer rounding: reassociating a float32 sum of n terms moves it by about n·2⁻²⁴
# of the terms' magnitudes (1e-3 is a sum of ~16,000 terms, cancellation included); a random
# draw made at trace time, or any other change of meaning, moves it by the magnitude itself.
_ROUNDING_CAP = {False: 1e-3, True: 1e-1}  # (loose: 16-bit data)


def within_noise(expected: Output, actual: Output, jitted: Output, loose: bool = False) -> bool:
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
    trees = (expected, actual, jitted)
    if len({len(tree.leaves) for tree in trees}) != 1:
        return False
    for want, got, compiled in zip(*(tree.leaves for tree in trees), strict=True):
        arrays = [leaf.values for leaf in (want, got, compiled)]
        if any(a is None for a in arrays) or len({a.shape for a in arrays}) != 1:
            return False
        want_array, got_array, compiled_array = arrays
        tolerance = _tolerance(want, loose)
        if tolerance is None:
            if not np.array_equal(want_array, got_array):
                return False
            continue
        rtol, atol = tolerance
        a, b, c = (x.astype(_wide(want)) for x in (want_array, got_array, compiled_array))
        with np.errstate(invalid="ignore"):
            noise = np.nanmax(np.abs(c - a), initial=0.0)
            scale = np.nanmax(np.abs(a), initial=0.0)
            cap = _ROUNDING_CAP[loose or want.bits <= 16]
            if noise > max(cap * scale, atol):
                return False  # the compiled original differs by more than rounding
            allowed = atol + rtol * np.abs(a) + 2 * noise
            close = (np.abs(b - a) <= allowed) | (np.isnan(a) & np.isnan(b))
        if not bool(np.all(close)):
            return False
    return True


def rounding_dominated(expected: Output, precise: Output, loose: bool = False) -> bool:
    """Is some float leaf of `expected` further from the same computation in float64
    (`precise`) than rounding moves a result (`_ROUNDING_CAP` of its magnitude)? Then the
    float32 values are mostly rounding error: an ill-conditioned solve, a near-singular `inv`."""
    if len(expected.leaves) != len(precise.leaves):
        return False
    for want, wide in zip(expected.leaves, precise.leaves, strict=True):
        a, c = want.values, wide.values
        tolerance = _tolerance(want, loose)
        if a is None or c is None or a.shape != c.shape or tolerance is None:
            continue
        _, atol = tolerance
        cap = _ROUNDING_CAP[loose or want.bits <= 16]
        a, c = a.astype(np.complex128), c.astype(np.complex128)
        with np.errstate(invalid="ignore"):
            error = np.nanmax(np.abs(c - a), initial=0.0)
            scale = np.nanmax(np.abs(a), initial=0.0)
        if error > max(cap * scale, atol):
            return True
    return False


def rounded_like(output: Output, like: Output) -> Output | None:
    """`output`'s values rounded to the dtypes of `like`'s leaves (a float32 evaluation of a
    16-bit computation, rounded back once); None when the trees differ."""
    if output.structure != like.structure or len(output.leaves) != len(like.leaves):
        return None
    leaves = []
    for leaf, model in zip(output.leaves, like.leaves, strict=True):
        if leaf.values is not None and model.values is not None and leaf.dtype != model.dtype:
            try:
                storage = _storage(model.dtype)
            except (ImportError, AttributeError):  # no ml_dtypes beside this jaxlint
                return None
            rounded = leaf.values.astype(storage).astype(model.values.dtype)
            leaf = Leaf(model.dtype, rounded, leaf.weak)
        leaves.append(leaf)
    return Output(output.structure, tuple(leaves))


def _storage(dtype: str) -> type | str:
    """The NumPy dtype that rounds like JAX's `dtype`; 16-bit brain floats round through
    ml_dtypes, loaded only here (a NumPy reference on bfloat16 data)."""
    if dtype in _NUMPY_NAMES:
        return dtype
    import ml_dtypes

    storage: type = getattr(ml_dtypes, dtype)
    return storage


_NUMPY_NAMES = frozenset(
    ["bool", "float16", "float32", "float64", "complex64", "complex128"]
    + [f"{sign}int{bits}" for sign in ("", "u") for bits in (8, 16, 32, 64)]
)

# JAX's type promotion lattice (jax.numpy.promote_types), for `promotes_to`
_INT_BITS = (8, 16, 32, 64)


def promotes_to(narrow: str, wide: str) -> bool:
    """Is `wide` what JAX promotes `narrow` and `wide` together to (so `wide` holds it)?"""
    if narrow == wide or narrow == "bool":
        return True
    narrow_leaf, wide_leaf = Leaf(narrow), Leaf(wide)
    if wide_leaf.complex:
        if narrow_leaf.complex:
            return narrow_leaf.bits <= wide_leaf.bits
        return not narrow_leaf.inexact or narrow_leaf.bits <= wide_leaf.bits
    if wide_leaf.inexact:  # a float
        if narrow_leaf.complex:
            return False
        if not narrow_leaf.inexact:
            return True  # every integer promotes to every float in JAX
        return narrow_leaf.bits < wide_leaf.bits  # float16 and bfloat16 meet at float32
    if narrow_leaf.inexact or wide == "bool":
        return False
    narrow_signed, wide_signed = narrow.startswith("int"), wide.startswith("int")
    if narrow_signed and not wide_signed:
        return False
    if narrow_signed == wide_signed:
        return narrow_leaf.bits <= wide_leaf.bits
    return narrow_leaf.bits < wide_leaf.bits  # unsigned into a wider signed integer


def _same_value(one: Leaf, other: Leaf) -> bool:
    """Two leaves that are no arrays: the same type and `repr`."""
    return not one.is_array and not other.is_array and one.digest == other.digest


def _broadcasts(small: np.ndarray, large: np.ndarray) -> bool:
    try:
        return np.broadcast_shapes(small.shape, large.shape) == large.shape
    except ValueError:
        return False


def _tolerance(leaf: Leaf, loose: bool) -> tuple[float, float] | None:
    """(rtol, atol) for inexact dtypes; None means exact comparison."""
    if not leaf.inexact:
        return None
    if loose or leaf.bits <= 16:
        return 1e-2, 1e-2
    return 1e-5, 1e-6


def _wide(leaf: Leaf) -> type:
    return np.complex128 if leaf.complex else np.float64


def _close(want: np.ndarray, got: np.ndarray, leaf: Leaf, loose: bool) -> bool:
    tolerance = _tolerance(leaf, loose)
    if tolerance is None:
        return bool(np.array_equal(want, got))
    rtol, atol = tolerance
    wide = _wide(leaf)
    return bool(
        np.allclose(want.astype(wide), got.astype(wide), rtol=rtol, atol=atol, equal_nan=True)
    )


def _max_abs_diff(want: np.ndarray, got: np.ndarray) -> float:
    if want.size == 0 or want.dtype == np.bool_:
        return 0.0 if want.size == 0 or np.array_equal(want, got) else 1.0
    wide = np.complex128 if np.iscomplexobj(want) else np.float64
    a, b = want.astype(wide), got.astype(wide)
    both_nan = np.isnan(a) & np.isnan(b)
    with np.errstate(invalid="ignore"):
        diff = np.where(both_nan, 0.0, np.abs(a - b))
    return float(np.max(diff))
