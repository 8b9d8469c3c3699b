"""jaxlint.verify: proving rewrites with real JAX in a child process (SPEC §5). No mocks."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from jaxlint.verify import STATUSES, VerifyRequest, VerifyResult, jax_available, verify
from jaxlint.verify.namespace import NamespaceError, build_module, decorator_name, resolve_target
from jaxlint.verify.protocol import request_from_wire, request_to_wire, result_from_wire

DATA = Path(__file__).parent / "data" / "verify"
REPO = Path(__file__).resolve().parents[1]

needs_jax = pytest.mark.skipif(not jax_available(), reason="JAX is not installed")


def request(
    request_id: str,
    original: str,
    rewritten: str,
    target: str,
    fix_code: str,
    *,
    require_fewer_eqns: bool = False,
    numpy_reference: bool = False,
) -> VerifyRequest:
    """A request from two fixture files, or from inline sources (anything with a newline)."""

    def source(name: str) -> str:
        return textwrap.dedent(name) if "\n" in name else (DATA / name).read_text()

    path = str(DATA / (original if "\n" not in original else f"{request_id}.py"))
    return VerifyRequest(
        request_id=request_id,
        path=path,
        original_source=source(original),
        rewritten_source=source(rewritten),
        target=target,
        fix_code=fix_code,
        require_fewer_eqns=require_fewer_eqns,
        numpy_reference=numpy_reference,
    )


# JAX204 on a parameter: under jit the original raises on every call, so the reference is the
# original on NumPy copies of its inputs (the NumPy semantics it was written for)
CLAMP_ENDS = """
    import jax
    import jax.numpy as jnp

    @jax.jit
    def clamp_ends(x, lo, hi):
        x[0] = lo
        x[-1] = hi
        x[1:-1] *= 0.5
        return x / jnp.max(jnp.abs(x))
"""
CLAMP_ENDS_AT = (
    CLAMP_ENDS.replace("x[0] = lo", "x = x.at[0].set(lo)")
    .replace("x[-1] = hi", "x = x.at[-1].set(hi)")
    .replace("x[1:-1] *= 0.5", "x = x.at[1:-1].multiply(0.5)")
)
# TD(λ) targets from the end: with λ drawn from a normal the targets grow, and compiling the
# original as written moves small results by more than the fixed tolerance (as the scan does)
TD_TARGETS = """
    import jax
    import jax.numpy as jnp

    @jax.jit
    def td_targets(rewards, values, lam):
        targets = []
        target = values[-1]
        for t in reversed(range(1, rewards.shape[0])):
            target = rewards[t - 1] + 0.99 * ((1 - lam) * values[t] + lam * target)
            targets.append(target)
        return jnp.stack(targets[::-1], axis=1)
"""
TD_TARGETS_SCAN = """
    import jax
    import jax.numpy as jnp

    @jax.jit
    def td_targets(rewards, values, lam):
        targets = []
        target = values[-1]

        def _scan_body(carry, _):
            t, target = carry
            target = rewards[t - 1] + 0.99 * ((1 - lam) * values[t] + lam * target)
            return (t - 1, target), target

        steps = len(range(1, rewards.shape[0]))
        if steps:
            types = jax.eval_shape(_scan_body, (rewards.shape[0] - 1, target), None)[0]
            target = jnp.broadcast_to(jnp.asarray(target, types[1].dtype), types[1].shape)
            start = (rewards.shape[0] - 1, target)
            (_, target), targets = jax.lax.scan(_scan_body, start, None, length=steps)
        return jnp.stack(targets[::-1], axis=1)
"""
ROUNDING_REQUESTS = [
    request("td-scan", TD_TARGETS, TD_TARGETS_SCAN, "td_targets", "JAX101"),
    # a discount off by one part in a thousand is not rounding
    request(
        "td-scan-wrong",
        TD_TARGETS,
        TD_TARGETS_SCAN.replace("0.99 *", "0.989 *"),
        "td_targets",
        "JAX101",
    ),
]

# An explicit heat step ported from NumPy (fixtures/fix/inplace_jitted_parameter). The fix as
# XLA's CPU backend compiles it on a host without bfloat16 units (a TPU VM's): arithmetic in
# float32, rounded to bfloat16 once, where NumPy rounds after every operation.
HEAT_STEP = """
    import jax
    import jax.numpy as jnp

    @jax.jit
    def heat_step(u: jax.Array, alpha: float, left: float, right: float) -> jax.Array:
        lap = jnp.zeros_like(u)
        lap = lap.at[1:-1].set(u[2:] - 2.0 * u[1:-1] + u[:-2])  # the safe fix, applied first
        u[1:-1] += alpha * lap[1:-1]
        u[0] = left
        u[-1] = right
        return u
"""
HEAT_STEP_ROUNDED_ONCE = """
    import jax
    import jax.numpy as jnp

    @jax.jit
    def heat_step(u: jax.Array, alpha: float, left: float, right: float) -> jax.Array:
        w = u.astype(jnp.promote_types(u.dtype, jnp.float32))
        lap = jnp.zeros_like(w).at[1:-1].set(w[2:] - 2.0 * w[1:-1] + w[:-2])
        w = w.at[1:-1].add(alpha * lap[1:-1]).at[0].set(left).at[-1].set(right)
        return w.astype(u.dtype)
"""

NUMPY_REFERENCE_REQUESTS = [
    request(
        "heat-rounded-once",
        HEAT_STEP,
        HEAT_STEP_ROUNDED_ONCE,
        "heat_step",
        "JAX204",
        numpy_reference=True,
    ),
    request(
        "heat-rounded-once-wrong",
        HEAT_STEP,
        HEAT_STEP_ROUNDED_ONCE.replace("alpha * lap", "1.01 * alpha * lap"),
        "heat_step",
        "JAX204",
        numpy_reference=True,
    ),
    request("at-set", CLAMP_ENDS, CLAMP_ENDS_AT, "clamp_ends", "JAX204", numpy_reference=True),
    request(
        "at-add-for-set",
        CLAMP_ENDS,
        CLAMP_ENDS_AT.replace("x.at[0].set(lo)", "x.at[0].add(lo)"),
        "clamp_ends",
        "JAX204",
        numpy_reference=True,
    ),
    request(
        "at-store-dropped",
        CLAMP_ENDS,
        CLAMP_ENDS_AT.replace("x = x.at[-1].set(hi)", "pass"),
        "clamp_ends",
        "JAX204",
        numpy_reference=True,
    ),
    request("at-set-as-written", CLAMP_ENDS, CLAMP_ENDS_AT, "clamp_ends", "JAX204"),
]


UNFINDABLE_INPUTS = """
    def frob(x, n):
        return x.frobnicate(n)
"""

MISSING_IMPORT = """
    import jax
    from jaxlint_verify_no_such_module import scale

    @jax.jit
    def scaled(x: jax.Array):
        return x * scale
"""

# 2100 unrolled adds: over the ~2000-equation bound, so compile time is not measured.
HUGE_UNROLL = """
    import jax

    @jax.jit
    def repeat_add(x: jax.Array):
        acc = 0.0
        for _ in range(2100):
            acc = acc + x
        return acc
"""

HUGE_FORI = """
    import jax

    @jax.jit
    def repeat_add(x: jax.Array):
        return jax.lax.fori_loop(0, 2100, lambda i, acc: acc + x, 0.0 * x)
"""

INT_CARRY_LOOP = """
    import jax
    import jax.numpy as jnp

    @jax.jit
    def total(x: jax.Array):
        acc = jnp.int32(0)
        for v in x:
            acc = acc + v
        return acc
"""

# A naive scan keeps the strongly typed int32 carry: scan's carry check raises (research §1b).
INT_CARRY_SCAN = """
    import jax
    import jax.numpy as jnp

    @jax.jit
    def total(x: jax.Array):
        acc, _ = jax.lax.scan(lambda c, v: (c + v, None), jnp.int32(0), x)
        return acc
"""

QUICK = """
    def double(x):
        return x * 2
"""

# The issue-7 rewrites that once verified and changed results: verification must refuse each.
SQUARED_LOSS = """
    import jax.numpy as jnp

    def squared_loss(X, y, w):
        loss = 0.0
        for i in range(X.shape[0]):
            loss = loss + (X[i] @ w - y[i]) ** 2
        return loss
"""
SQUARED_LOSS_ROW_START = """
    import jax
    import jax.numpy as jnp

    @jax.jit
    def squared_loss(X, y, w):
        loss = 0.0

        def _scan_body(loss, elements):
            X_i, y_i = elements
            loss = loss + (X_i @ w - y_i) ** 2
            return loss, None

        loss = jnp.zeros(X.shape[1:], jnp.result_type(loss, X.dtype)) + loss
        loss, _ = jax.lax.scan(_scan_body, loss, (X, y[: X.shape[0]]))
        return loss
"""
SQUARED_LOSS_ONE_STEP = SQUARED_LOSS_ROW_START.replace(
    "loss = jnp.zeros(X.shape[1:], jnp.result_type(loss, X.dtype)) + loss",
    "loss_type = jax.eval_shape(_scan_body, loss, (jax.ShapeDtypeStruct(X.shape[1:], X.dtype),"
    " jax.ShapeDtypeStruct(y.shape[1:], y.dtype)))[0]\n"
    "        loss = jnp.broadcast_to(jnp.asarray(loss, loss_type.dtype), loss_type.shape)",
)
DISCOUNTED = """
    import jax.numpy as jnp

    def discounted(rewards):
        ret = 0.0
        for t, r in enumerate(rewards):
            ret = ret + 0.5**t * r
        return ret
"""
DISCOUNTED_ARANGE = """
    import jax
    import jax.numpy as jnp

    @jax.jit
    def discounted(rewards):
        def _scan_body(ret, element):
            t, r = element
            return ret + 0.5**t * r, None

        ret = jnp.zeros(rewards.shape[1:], jnp.result_type(0.0, rewards.dtype))
        ret, _ = jax.lax.scan(_scan_body, ret, (jnp.arange(rewards.shape[0]), rewards))
        return ret
"""
PERCENT_PRINT = """
    import jax.numpy as jnp

    def report(err):
        print("rmse = %s" % jnp.sqrt(err))
        return err
"""
VMAPPED_PRINT = """
    from functools import partial

    import jax
    import jax.numpy as jnp

    TABLE = jnp.array([[0.0, 1.0], [1.0, 0.0], [0.5, 0.5]])

    @partial(jax.vmap, in_axes=[0, None])
    def lookup(action: jax.Array, scale: float):
        print("action", action, action.shape)
        return TABLE[action % 3] * scale
"""
VMAPPED_DEBUG_PRINT = """
    from functools import partial

    import jax
    import jax.numpy as jnp

    TABLE = jnp.array([[0.0, 1.0], [1.0, 0.0], [0.5, 0.5]])

    @partial(jax.vmap, in_axes=[0, None])
    def lookup(action: jax.Array, scale: float):
        jax.debug.print("action {action!s} {}", str(action.shape), action=action, ordered=True)
        return TABLE[action % 3] * scale
"""
PERCENT_PRINT_TRACER_TEXT = """
    import jax
    import jax.numpy as jnp

    @jax.jit
    def report(err):
        jax.debug.print("{}", "rmse = %s" % jnp.sqrt(err))
        return err
"""
REJECTS_INTS = """
    import jax.numpy as jnp

    def halve(x):
        if jnp.issubdtype(x.dtype, jnp.integer):
            raise TypeError("float data only")
        return x / 2
"""
FLAGGED = """
    def scale(x, normalize=False):
        if normalize:
            return x / 10.0
        return x


    def caller(x):
        return scale(x, normalize=True)
"""
FLAG_IGNORED = """
    def scale(x, normalize=False):
        return x


    def caller(x):
        return scale(x, normalize=True)
"""

VECTORS_ONLY = """
    def norm1(x):
        if x.ndim != 1:
            raise ValueError("vectors only")
        return abs(x).sum()
"""

MAIN_REQUESTS = [
    request("vectors-only", VECTORS_ONLY, "def norm1(x):\n    return abs(x).sum()\n", "norm1", "X"),
    request("loss-row-start", SQUARED_LOSS, SQUARED_LOSS_ROW_START, "squared_loss", "JAX101"),
    request("loss-one-step", SQUARED_LOSS, SQUARED_LOSS_ONE_STEP, "squared_loss", "JAX101"),
    request("enumerate-arange", DISCOUNTED, DISCOUNTED_ARANGE, "discounted", "JAX101"),
    request("print-tracer-text", PERCENT_PRINT, PERCENT_PRINT_TRACER_TEXT, "report", "JAX201"),
    request("vmapped-print", VMAPPED_PRINT, VMAPPED_DEBUG_PRINT, "lookup", "JAX201"),
    request(
        "vmapped-print-wrong",
        VMAPPED_PRINT,
        VMAPPED_DEBUG_PRINT.replace("action=action", "action=action + 1"),
        "lookup",
        "JAX201",
    ),
    request("bool-doubling", QUICK, QUICK.replace("x * 2", "x + x"), "double", "JAX101"),
    request("rejects-ints", REJECTS_INTS, "def halve(x):\n    return x / 2\n", "halve", "X"),
    request("flag-ignored", FLAGGED, FLAG_IGNORED, "scale", "X"),
    request(
        "scan", "cumsum_loop.py", "cumsum_scan.py", "cumsum", "JAX101", require_fewer_eqns=True
    ),
    request(
        "scan-wrong",
        "cumsum_loop.py",
        "cumsum_scan_wrong.py",
        "cumsum",
        "JAX101",
        require_fewer_eqns=True,
    ),
    request("method", "scale_class.py", "scale_class_helper.py", "ScaleClass.apply", "JAX301"),
    request(
        "static-self", "scale_class.py", "scale_class_static_self.py", "ScaleClass.apply", "JAX301"
    ),
    request("print", "selu_print.py", "selu_debug_print.py", "selu", "JAX201"),
    request(
        "local-import",
        "local_import.py",
        "local_import_scan.py",
        "shifted_total",
        "JAX101",
        require_fewer_eqns=True,
    ),
    request("huge", HUGE_UNROLL, HUGE_FORI, "repeat_add", "JAX101", require_fewer_eqns=True),
    request(
        "int-carry", INT_CARRY_LOOP, INT_CARRY_SCAN, "total", "JAX101", require_fewer_eqns=True
    ),
    request(
        "same-size", INT_CARRY_LOOP, INT_CARRY_LOOP, "total", "JAX101", require_fewer_eqns=True
    ),
    request("no-inputs", UNFINDABLE_INPUTS, UNFINDABLE_INPUTS, "frob", "JAX101"),
    request("missing-import", MISSING_IMPORT, MISSING_IMPORT, "scaled", "JAX101"),
    request("no-such-target", "cumsum_loop.py", "cumsum_scan.py", "cumsum_typo", "JAX101"),
    request("bad-rewrite", "cumsum_loop.py", "def cumsum(x:\n", "cumsum", "JAX101"),
]


def sibling_module_requests(root: Path) -> list[VerifyRequest]:
    """Two projects whose files import a sibling `offsets.py` that differs between them."""
    made = []
    for project, offset in (("a", 1.0), ("b", 2.0)):
        folder = root / project
        folder.mkdir()
        (folder / "offsets.py").write_text(f"OFFSET = {offset}\n")
        original = "from offsets import OFFSET\n\ndef shift(x):\n    return x + OFFSET\n"
        rewritten = f"def shift(x):\n    return x + {offset}\n"
        path = str(folder / "shift.py")
        made.append(
            VerifyRequest(f"sibling-{project}", path, original, rewritten, "shift", "X", False)
        )
    return made


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, VerifyResult]:
    """One verify() run (one child process) shared by the tests below."""
    if not jax_available():
        pytest.skip("JAX is not installed")
    projects = sibling_module_requests(tmp_path_factory.mktemp("projects"))
    requests = MAIN_REQUESTS + NUMPY_REFERENCE_REQUESTS + ROUNDING_REQUESTS + projects
    done = verify(requests, time_limit_s=120.0)
    assert [r.request_id for r in done] == [r.request_id for r in requests]
    return {r.request_id: r for r in done}


def test_16_bit_values_may_differ_as_much_as_float32_evaluation_moves_them(
    results: dict[str, VerifyResult],
) -> None:
    verified = results["heat-rounded-once"]
    # (where the compiled fix rounds as NumPy does, the remark is not needed and not made)
    assert verified.status == "verified", verified.reason
    wrong = results["heat-rounded-once-wrong"]
    assert wrong.status == "failed" and "values differ" in wrong.reason, wrong.reason


def test_values_may_differ_as_much_as_compiling_the_original_moves_them(
    results: dict[str, VerifyResult],
) -> None:
    verified = results["td-scan"]
    assert verified.status == "verified", verified.reason
    assert "no more than the original compiled as written differs" in verified.reason
    wrong = results["td-scan-wrong"]
    assert wrong.status == "failed" and "values differ" in wrong.reason, wrong.reason


def _within_noise(*outputs, **options):
    from jaxlint.verify.compare import within_noise

    return within_noise(*(_sent(output) for output in outputs), **options)


def _rounding_dominated(*outputs, **options):
    from jaxlint.verify.compare import rounding_dominated

    return rounding_dominated(*(_sent(output) for output in outputs), **options)


@needs_jax
def test_within_noise_allows_twice_the_compiled_originals_difference() -> None:
    import jax.numpy as jnp

    want = jnp.array([100.0, 1e-3, -50.0])
    compiled = want.at[1].add(2e-5)  # compiling moved the small entry by 2e-5
    assert _within_noise(want, want.at[1].add(3e-5), compiled)
    assert not _within_noise(want, want.at[1].add(5e-5), compiled)  # more than twice that
    assert not _within_noise(want, want.at[1].add(3e-5), want)  # compiled exactly: no allowance
    assert not _within_noise(jnp.arange(3), jnp.arange(3) + 1, jnp.arange(3) + 1)  # ints exact
    assert not _within_noise((want, want), (want,), (want, want))


@needs_jax
def test_store_into_a_parameter_is_verified_against_numpy(
    results: dict[str, VerifyResult],
) -> None:
    verified = results["at-set"]
    assert verified.status == "verified", verified.reason
    assert "the original on NumPy copies of the array inputs" in verified.reason
    assert "only NumPy raises on int32 data" in verified.reason  # `.at[].multiply` casts
    for wrong in ("at-add-for-set", "at-store-dropped"):
        assert results[wrong].status == "failed", results[wrong].reason
        assert "values differ" in results[wrong].reason
    # without the NumPy reference the original raises everywhere: nothing to compare with
    as_written = results["at-set-as-written"]
    assert as_written.status == "unverifiable" and "TypeError" in as_written.reason


def test_loop_rewrite_is_verified_with_smaller_jaxpr(results: dict[str, VerifyResult]) -> None:
    result = results["scan"]
    assert result.status == "verified", result.reason
    # 3 input sets of each signature the original accepts (x: float32[7], [7,3], [7,3,4]), then
    # the first varied: 7 rows made 0, 1 and 19; int32, bool, bfloat16, float16, complex64 data
    assert (result.inputs_tried, result.inputs_passed) == (17, 17)
    assert "float32[7,3]" in result.reason and "float32[7,3,4]" in result.reason
    assert "axis 7→0, axis 7→1, axis 7→19, int32 data, bool data" in result.reason
    assert result.max_abs_diff is not None and result.max_abs_diff < 1e-5
    # x: float32[7] (first rung of the ladder for a jax.Array): 7 × (slice, squeeze, add) unrolled,
    # then jnp.array(y) = 7 broadcast_in_dim + concatenate; the rewrite is the carry's
    # initialisation (one add) and the scan (1 equation + the add of its body).
    assert (result.eqns_before, result.eqns_total_before) == (29, 29)
    assert (result.eqns_after, result.eqns_total_after) == (2, 3)
    assert result.compile_s_before is not None and result.compile_s_after is not None
    assert "x: float32[7]" in result.reason and "29 → 2" in result.reason


def test_row_shaped_start_of_a_scalar_loss_fails(results: dict[str, VerifyResult]) -> None:
    # `jnp.zeros(X.shape[1:]) + loss` passes only where w is square: w: float32[3] (a scalar
    # loss) is a signature of its own, so the vector it returns is caught.
    result = results["loss-row-start"]
    assert result.status == "failed"
    assert "shape differs: () vs (3,)" in result.reason, result.reason
    assert "w: float32[3]" in result.reason


def test_one_step_start_of_a_scalar_loss_is_verified(results: dict[str, VerifyResult]) -> None:
    result = results["loss-one-step"]
    assert result.status == "verified", result.reason
    assert "w: float32[3]" in result.reason and "w: float32[3,3]" in result.reason


def test_int32_enumerate_index_fails_on_16_bit_data(results: dict[str, VerifyResult]) -> None:
    # Python's int index keeps bfloat16 rewards bfloat16; an int32 `arange` promotes the body's
    # result to float32, which scan rejects as a carry type change.
    result = results["enumerate-arange"]
    assert result.status == "failed"
    assert "rewritten discounted raised TypeError on bfloat16 data" in result.reason


def test_print_of_tracer_text_fails(results: dict[str, VerifyResult]) -> None:
    result = results["print-tracer-text"]
    assert result.status == "failed"
    assert "printed text differs" in result.reason and "rmse" not in result.reason  # not shown
    assert "the rewrite prints a tracer where the original prints values" in result.reason


def test_dtype_variants_catch_a_bool_difference(results: dict[str, VerifyResult]) -> None:
    # x * 2 and x + x agree on numbers, not on bools (2 * True is 2, True + True is True).
    result = results["bool-doubling"]
    assert result.status == "failed"
    assert "on bool data" in result.reason, result.reason


def test_rewrite_must_raise_where_the_original_raises(results: dict[str, VerifyResult]) -> None:
    result = results["rejects-ints"]
    assert result.status == "failed"
    assert result.reason.startswith("the original raises TypeError on int32 data (halve(x: ")


def test_rewrite_must_reject_signatures_the_original_rejects(
    results: dict[str, VerifyResult],
) -> None:
    result = results["vectors-only"]
    assert result.status == "failed"
    assert result.reason.startswith("the original raises ValueError on (norm1(x: float32[7,3]))")
    assert result.reason.endswith(") but the rewrite returns"), result.reason


def test_defaults_are_varied_over_call_site_values(results: dict[str, VerifyResult]) -> None:
    result = results["flag-ignored"]
    assert result.status == "failed"
    assert "on normalize=True" in result.reason, result.reason


def test_verification_json_object(results: dict[str, VerifyResult]) -> None:
    payload = results["scan"].to_json()
    assert payload["status"] == "verified"
    assert payload["eqns_before"] == 29 and payload["eqns_after"] == 2
    assert "request_id" not in payload
    json.dumps(payload, allow_nan=False)


def test_wrong_carry_init_fails(results: dict[str, VerifyResult]) -> None:
    result = results["scan-wrong"]
    assert result.status == "failed"
    assert "values differ" in result.reason and "input set 0" in result.reason
    assert (result.inputs_tried, result.inputs_passed) == (1, 0)
    assert result.max_abs_diff == pytest.approx(1.0)  # every element is off by the 1.0 start


def test_method_helper_rewrite_is_verified(results: dict[str, VerifyResult]) -> None:
    # The original is `@jax.jit` on a method, which raises TypeError: it runs undecorated.
    result = results["method"]
    assert result.status == "verified", result.reason
    assert result.inputs_passed == result.inputs_tried >= 11
    assert "ScaleClass(scale: float32[7]).apply(x: float32[7])" in result.reason
    assert "agrees after changing self.scale" in result.reason
    assert (result.eqns_before, result.eqns_after) == (1, 1)


def test_static_self_rewrite_fails_on_stale_cache(results: dict[str, VerifyResult]) -> None:
    result = results["static-self"]
    assert result.status == "failed"
    assert result.inputs_passed == result.inputs_tried >= 11  # fine until an attribute changes
    assert "stale result after changing self.scale" in result.reason


def test_print_rewrite_is_verified(results: dict[str, VerifyResult]) -> None:
    # The original prints at every eager call: user output must not corrupt the protocol.
    result = results["print"]
    assert result.status == "verified", result.reason
    assert result.inputs_passed == result.inputs_tried >= 11
    assert result.eqns_after == result.eqns_before + 1  # the debug_print equation


def test_print_in_a_vmapped_function_is_compared_per_element(
    results: dict[str, VerifyResult],
) -> None:
    # Unstaged, the original prints a batch tracer even under disable_jit; the reference is what
    # the function under `vmap` prints on each element, which the rewrite prints too.
    assert results["vmapped-print"].status == "verified", results["vmapped-print"].reason
    wrong = results["vmapped-print-wrong"]
    assert wrong.status == "failed"
    assert "printed text differs" in wrong.reason and "Tracer" not in wrong.reason


def test_only_needed_definitions_run(results: dict[str, VerifyResult]) -> None:
    # cumsum_loop.py opens a missing file at top level and raises in its __main__ block:
    # a verified result means neither ran.
    assert results["scan"].status == "verified"


def test_local_import_and_unused_failing_import(results: dict[str, VerifyResult]) -> None:
    result = results["local-import"]
    assert result.status == "verified", result.reason
    assert "x: float32[7]" in result.reason  # loop over rows of a 1-D array sums scalars
    assert result.eqns_after is not None and result.eqns_before is not None
    assert result.eqns_after < result.eqns_before


def test_each_file_gets_its_own_sibling_modules(results: dict[str, VerifyResult]) -> None:
    assert results["sibling-a"].status == "verified", results["sibling-a"].reason
    assert results["sibling-b"].status == "verified", results["sibling-b"].reason


def test_compile_time_skipped_for_huge_original(results: dict[str, VerifyResult]) -> None:
    result = results["huge"]
    assert result.status == "verified", result.reason
    assert result.eqns_before == 2100 and result.eqns_after == 2  # mul (0.0 * x), while
    assert result.compile_s_before is None and result.compile_s_after is None
    assert "compile time not measured: original has 2100 equations" in result.reason


def test_rewritten_that_raises_fails_with_the_error(results: dict[str, VerifyResult]) -> None:
    result = results["int-carry"]
    assert result.status == "failed"
    assert result.reason.startswith("rewritten total raised TypeError on input set 0 of total(x: ")
    assert "on input set 0 of total(x: float32[7])" in result.reason
    assert (result.inputs_tried, result.inputs_passed) == (1, 0)


def test_loop_rewrite_must_shrink_the_jaxpr(results: dict[str, VerifyResult]) -> None:
    result = results["same-size"]
    assert result.status == "failed"
    assert result.inputs_passed == result.inputs_tried >= 11  # right answers, but no smaller
    # 7 × (slice, squeeze, add) on both sides.
    assert result.reason == (
        "rewritten jaxpr is not smaller: 21 → 21 top-level equations (21 → 21 in total)"
    )


def test_no_inputs_is_unverifiable(results: dict[str, VerifyResult]) -> None:
    result = results["no-inputs"]
    assert result.status == "unverifiable"
    assert result.reason.startswith("no example inputs found for frob(x, n)")
    assert result.inputs_tried == 0


def test_needed_import_failure_is_unverifiable(results: dict[str, VerifyResult]) -> None:
    result = results["missing-import"]
    assert result.status == "unverifiable"
    assert "import of scale failed" in result.reason
    assert "ModuleNotFoundError" in result.reason


def test_missing_target_is_unverifiable(results: dict[str, VerifyResult]) -> None:
    result = results["no-such-target"]
    assert result.status == "unverifiable"
    assert "`cumsum_typo` is not defined at module level" in result.reason


def test_unparseable_rewrite_fails(results: dict[str, VerifyResult]) -> None:
    result = results["bad-rewrite"]
    assert result.status == "failed"
    assert "syntax error" in result.reason


SLOW = """
    import time

    def slow(x):
        time.sleep(60)
        return x
"""

CRASH = """
    import os

    def crash(x):
        os._exit(3)
"""


@needs_jax
def test_timeouts_and_crashes_restart_the_child() -> None:
    done = verify(
        [
            request("crash", CRASH, CRASH, "crash", "JAX101"),
            request("slow", SLOW, SLOW, "slow", "JAX101"),
            request("quick", QUICK, QUICK.replace("x * 2", "2 * x"), "double", "JAX101"),
        ],
        time_limit_s=4.0,
    )
    assert [r.status for r in done] == ["unverifiable", "timeout", "verified"], done
    assert done[0].reason.startswith("verification child exited unexpectedly (code 3)")
    assert done[1].reason == "verification exceeded the 4 s time limit"


@needs_jax
def test_a_session_verifies_concurrent_requests_in_children_of_their_own() -> None:
    """Two threads asking at once (the pool's workers, through `remote`): with two children
    the second request runs beside the first instead of waiting for it, and both children
    are kept for the next requests; with one child, the second waits and reuses it."""
    import threading

    from jaxlint.verify.runner import VerificationSession

    napping = "\n    import time\n\n    time.sleep(3)  # at import: holds its child 3 s\n" + QUICK
    for children, kept in ((2, 2), (1, 1)):
        with VerificationSession(children=children) as session:
            done: list = []

            def ask(name: str, source: str, session=session, done=done) -> None:
                done.extend(session.verify([request(name, source, source, "double", "JAX201")]))

            first = threading.Thread(target=ask, args=("slow", napping))
            first.start()
            time.sleep(1)  # the first request holds its child (JAX starts, then 3 s at import)
            ask("quick", QUICK)
            first.join()
            assert sorted(r.status for r in done) == ["verified", "verified"], done
            assert len(session._idle) == kept


def test_jax_missing(tmp_path: Path) -> None:
    # The same interpreter without site-packages: it cannot find JAX.
    python = tmp_path / "python-without-site"
    python.write_text(f'#!/bin/sh\nexec "{sys.executable}" -S "$@"\n')
    python.chmod(0o755)
    assert not jax_available(str(python))
    done = verify([request("q", QUICK, QUICK, "double", "JAX101")], python=str(python))
    assert [(r.status, r.reason) for r in done] == [
        ("jax-missing", "not verified: install jaxlint[verify]")
    ]


@needs_jax
def test_linter_process_never_imports_jax() -> None:
    script = textwrap.dedent(
        """
        import sys
        from jaxlint.verify import VerifyRequest, jax_available, verify
        assert jax_available()
        source = "def double(x):\\n    return x * 2\\n"
        request = VerifyRequest("q", "q.py", source, source, "double", "JAX201", False)
        [result] = verify([request])
        assert result.status == "verified", result
        assert "jax" not in sys.modules, "the parent imported jax"
        print("ok")
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=300
    )
    assert done.stdout.strip() == "ok", done.stderr


def test_verify_of_nothing_starts_nothing() -> None:
    assert verify([]) == []


# --- building callables (pure ast + exec; these sources do not import JAX) ---

NAMESPACE_SOURCE = """
    import math
    from functools import partial

    raise RuntimeError("top-level statements must not run")

    SCALE = 2.0
    UNUSED = undefined_name()
    LIMIT: int = 3

    def _helper(x):
        return x * SCALE

    @undefined_decorator
    def unrelated(x):
        return x

    def target(x, n=LIMIT):
        return _helper(math.sqrt(x)) + n

    target_alias = partial(target, n=1)

    class Model:
        def __init__(self, w):
            self.w = w

        @undefined_jit_free_name.jit
        def apply(self, x):
            return _helper(self.w * x)

    if __name__ == "__main__":
        raise SystemExit(1)
"""


def test_build_module_runs_only_imports_and_needed_definitions() -> None:
    source = textwrap.dedent(NAMESPACE_SOURCE)
    module = build_module(source, "m.py", "target", strip_staging=True, module_name="_t_verify_1")
    try:
        assert module.target(4.0) == 7.0
        assert module.__file__ == "m.py"
        assert {"SCALE", "LIMIT", "_helper", "math"} <= set(vars(module))
        # `partial` is only used by `target_alias`: an import the target does not need
        assert not {"partial", "UNUSED", "unrelated", "target_alias", "Model"} & set(vars(module))
    finally:
        sys.modules.pop("_t_verify_1", None)


def test_build_module_strips_only_staging_decorators_of_the_target() -> None:
    source = textwrap.dedent(NAMESPACE_SOURCE).replace("undefined_jit_free_name.jit", "jit")
    source = source.replace("import math", "import math\njit = None  # called if not stripped")
    module = build_module(
        source, "m.py", "Model.apply", strip_staging=True, module_name="_t_verify_2"
    )
    try:
        target = resolve_target(module, "Model.apply")
        assert target.is_instance_method and target.method == "apply"
        assert module.Model(3.0).apply(1.0) == 6.0
    finally:
        sys.modules.pop("_t_verify_2", None)


def test_build_module_reports_a_failing_needed_definition() -> None:
    source = textwrap.dedent(
        """
        BROKEN = 1 / 0

        def f(x):
            return x + BROKEN
        """
    )
    with pytest.raises(NamespaceError, match="defining BROKEN failed: ZeroDivisionError"):
        build_module(source, "m.py", "f", strip_staging=True, module_name="_t_verify_3")
    sys.modules.pop("_t_verify_3", None)


@pytest.mark.parametrize(
    ("decorator", "name"),
    [
        ("jax.jit", "jit"),
        ("jit", "jit"),
        ("jax.jit(static_argnames=('n',))", "jit"),
        ("functools.partial(jax.jit, static_argnums=1)", "jit"),
        ("partial(jax.jit, donate_argnums=0)", "jit"),
        ("eqx.filter_jit", "filter_jit"),
        ("jax.vmap", "vmap"),
        ("staticmethod", "staticmethod"),
    ],
)
def test_decorator_name(decorator: str, name: str) -> None:
    import ast

    assert decorator_name(ast.parse(decorator, mode="eval").body) == name


# --- value types ---


def test_request_and_result_round_trip_through_json() -> None:
    original = MAIN_REQUESTS[0]
    assert request_from_wire(json.loads(json.dumps(request_to_wire(original)))) == original
    result = VerifyResult("r", "failed", "why", 3, 1, float("nan"), 29, 1, 29, 2, 0.1, 0.05)
    wire = json.loads(json.dumps({**result.to_json(), "request_id": "r"}))
    assert wire["max_abs_diff"] is None  # non-finite floats are not JSON
    assert result_from_wire(wire).eqns_total_after == 2
    with pytest.raises(ValueError, match="unknown verification status"):
        result_from_wire({**wire, "status": "maybe"})
    assert "jax-missing" in STATUSES


# --- inputs and comparisons (these import JAX in the test process, which is fine) ---


@needs_jax
def test_annotations_give_argument_kinds() -> None:
    from jaxlint.verify.inputs import ARRAY_LADDER, FLOAT, INT, ArgKind, DimTable
    from jaxlint.verify.inputs import kinds_from_annotation as kinds

    dims = DimTable()
    assert kinds('Float[Array, "n d"]', dims) == (ArgKind("array", (7, 3), "float32"),)
    assert kinds('Int[Array, "d 2 *batch"]', dims) == (ArgKind("array", (3, 2), "int32"),)
    assert kinds("BFloat16[jax.Array, '']", dims) == (ArgKind("array", (), "bfloat16"),)
    assert kinds("jax.Array", dims) == kinds("jnp.ndarray", dims) == ARRAY_LADDER
    assert kinds("jnp.array", dims) == kinds("Optional[Array]", dims) == ARRAY_LADDER
    assert kinds("float", dims) == (FLOAT,) and kinds("int | None", dims) == (INT,)
    assert kinds("Callable[[int], int]", dims) is None


@needs_jax
def test_inputs_are_the_same_every_run_and_differ_between_sets() -> None:
    import inspect

    import numpy as np

    from jaxlint.verify.inputs import CALL_LADDER, DimTable, candidate_bindings, parameters

    def f(x, n, scale=2.0, *, flag):
        return x

    params = parameters(inspect.signature(f), DimTable(), CALL_LADDER)
    assert [p.name for p in params if not p.candidates] == ["scale"]
    first = next(candidate_bindings(params, salt=0, limit=10))
    assert first.describe() == "x: float32[7], n: float32[7], flag: float32[7]"
    (x0, n0), kwargs0 = first.make(0)
    (x0_again, _), _ = first.make(0)
    (x1, _), _ = first.make(1)
    assert set(kwargs0) == {"flag"}
    np.testing.assert_array_equal(x0, x0_again)
    assert not np.array_equal(x0, x1) and not np.array_equal(x0, n0)


def _sent(value):
    """`value` as jaxlint receives it from the child: flattened to data and rebuilt."""
    from jaxlint.verify.observed import output_from_wire
    from jaxlint.verify.serialise import output_to_wire

    return output_from_wire(json.loads(json.dumps(output_to_wire(value))))


@needs_jax
def test_compare_outputs() -> None:
    import jax.numpy as jnp

    from jaxlint.verify.compare import compare_outputs

    def compared(expected, actual, **options):
        return compare_outputs(_sent(expected), _sent(actual), **options)

    x = jnp.arange(3.0)
    assert compared(2.0, jnp.float32(2.0)).same  # weak vs strong float32
    assert compared((x, {"a": 1}), (x + 1e-7, {"a": 1})).same
    assert "structure" in compared((x, x), [x, x]).detail
    assert "dtype" in compared(x, x.astype(jnp.int32)).detail
    assert "shape" in compared(x, x[:2]).detail
    assert compared(jnp.float32(1), x[:1]).detail == "output shape differs: () vs (1,)"
    assert not compared(jnp.arange(3), jnp.arange(3) + 1).same  # ints are exact
    half = jnp.arange(3.0, dtype=jnp.bfloat16)
    assert compared(half, half * 1.004).same  # bf16 gets a looser tolerance
    assert "dtype differs: bfloat16 vs float16" in compared(half, half.astype(jnp.float16)).detail
    assert compared(jnp.array([jnp.nan]), jnp.array([jnp.nan])).same
    assert not compared(("a",), ("b",)).same  # a value that is no array: by type and repr
    assert compared(("a",), ("a",)).same
    # a loop that ran zero times: the carry's start, broadcast and promoted as the loop does
    assert compared(jnp.int8(0), jnp.zeros(3, jnp.int32), zero_trip=True).same
    assert not compared(jnp.float32(0), jnp.zeros(3, jnp.int32), zero_trip=True).same


def test_jaxs_type_promotion_decides_what_a_zero_trip_carry_may_widen_to() -> None:
    from jaxlint.verify.compare import promotes_to

    assert promotes_to("int8", "int32") and promotes_to("uint8", "int16")
    assert promotes_to("int32", "bfloat16")  # every integer promotes to every float in JAX
    assert promotes_to("float16", "float32") and promotes_to("float32", "complex64")
    assert not promotes_to("float16", "bfloat16")  # they meet at float32
    assert not promotes_to("int8", "uint32") and not promotes_to("float64", "complex64")
    assert not promotes_to("float32", "int32") and promotes_to("bool", "uint8")


@needs_jax
def test_count_eqns_walks_nested_jaxprs_and_unwraps_jit() -> None:
    import jax
    import jax.numpy as jnp

    from jaxlint.verify.measure import count_eqns

    def body(x):
        return jax.lax.cond(x.sum() > 0, lambda v: v + 1, lambda v: v * 2, x)

    top, total = count_eqns(body, (jnp.ones(3),))
    assert top == 4  # reduce_sum, gt, convert_element_type, cond
    assert total == top + 2  # one equation in each branch
    assert count_eqns(jax.jit(body), (jnp.ones(3),)) == (top, total)


@needs_jax
def test_the_originals_float64_result_measures_its_rounding() -> None:
    """An ill-conditioned computation's float32 result is off from its float64 one by more than
    a fixed tolerance; a rewrite may round as differently, no more (twice that distance)."""
    import jax.numpy as jnp

    want = jnp.array([12.0, -3.0, 0.5])
    precise = want.at[2].add(4e-4)  # float64 says the float32 result is 4e-4 off
    assert _within_noise(want, want.at[2].add(7e-4), precise)
    assert not _within_noise(want, want.at[2].add(9e-4), precise)  # more than twice that
    assert not _rounding_dominated(want, precise)  # 4e-4 of 12 looks like rounding
    assert _rounding_dominated(want, want.at[0].add(0.5))  # a singular solve: mostly rounding
    assert not _rounding_dominated(jnp.arange(3), jnp.arange(3) + 1)  # ints are exact


@needs_jax
def test_the_child_compiles_cheaply_and_times_with_xlas_defaults(monkeypatch) -> None:
    """The child's XLA_FLAGS lower XLA's back-end optimisation (verification compiles a program
    per input set), the user's own setting of a flag is kept, and a timed compile asks for
    XLA's defaults again, by option names this JAX accepts (a misspelt one raises)."""
    import jax.numpy as jnp

    from jaxlint.verify.compile_settings import (
        CHEAP,
        LOWERED_NAME,
        cheap_compile_environment,
        timed_compile_options,
    )
    from jaxlint.verify.measure import compile_and_run_seconds

    env = cheap_compile_environment({"XLA_FLAGS": "--xla_backend_optimization_level=2"})
    assert env["XLA_FLAGS"] == (
        "--xla_backend_optimization_level=2 --xla_llvm_disable_expensive_passes=true"
    )
    monkeypatch.setenv(LOWERED_NAME, env[LOWERED_NAME])
    assert timed_compile_options() == {"xla_llvm_disable_expensive_passes": False}
    users = "--xla_backend_optimization_level=3 --xla_llvm_disable_expensive_passes=false"
    assert cheap_compile_environment({"XLA_FLAGS": users}) == {"XLA_FLAGS": users}

    monkeypatch.setenv(LOWERED_NAME, ",".join(CHEAP))
    compile_s, run_s = compile_and_run_seconds(lambda x: jnp.tanh(x) @ x, (jnp.ones((4, 4)),))
    assert compile_s > 0 and run_s is not None
    monkeypatch.setenv(LOWERED_NAME, "xla_backend_optimization_level,not_an_option")
    assert timed_compile_options() == {"xla_backend_optimization_level": 3}


def test_the_fusion_emitters_are_turned_off_only_under_a_jaxlib_known_to_define_the_flag(
    monkeypatch,
) -> None:
    """XLA ends a process whose XLA_FLAGS name a flag it does not define: the child adds
    `--xla_cpu_use_fusion_emitters=false` (its own jaxlib's version decides, after the parent's
    CHEAP), keeping the options lowered before; a timed compile turns them on again."""
    from jaxlint.verify.compile_settings import (
        FUSION_EMITTERS,
        LOWERED_NAME,
        cheap_compile_environment,
        installed_jaxlib,
        timed_compile_options,
    )

    parent = cheap_compile_environment({})
    child = cheap_compile_environment(parent, "0.10.2")
    assert child["XLA_FLAGS"] == parent["XLA_FLAGS"] + " --xla_cpu_use_fusion_emitters=false"
    assert child[LOWERED_NAME] == parent[LOWERED_NAME] + ",xla_cpu_use_fusion_emitters"
    for unknown in ("0.9.9", "0.11.0", "1.0", "nightly"):
        assert cheap_compile_environment(parent, unknown) == parent
    users = {"XLA_FLAGS": "--xla_cpu_use_fusion_emitters=true"}
    assert "false" not in cheap_compile_environment(users, "0.10.2")["XLA_FLAGS"]
    monkeypatch.setenv(LOWERED_NAME, child[LOWERED_NAME])
    assert timed_compile_options()["xla_cpu_use_fusion_emitters"] is True
    version = installed_jaxlib()
    if version is None or cheap_compile_environment({}, version) == parent:
        return  # this jaxlib is not one of those: the option may not exist in it
    import jax.numpy as jnp

    from jaxlint.verify.measure import compile_and_run_seconds

    assert set(FUSION_EMITTERS) <= set(timed_compile_options())
    compile_s, run_s = compile_and_run_seconds(lambda x: jnp.tanh(x) @ x, (jnp.ones((4, 4)),))
    assert compile_s > 0 and run_s is not None
