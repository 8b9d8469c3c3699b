"""Adversarial fix suite: every verified fix jaxlint applies must keep behaviour.

`tests/adversarial/cases/*.py` are realistic JAX modules written to break naive rewrites (JAX101
loops, JAX301 jitted methods, JAX201 prints). The suite copies them to a temporary folder, runs
`jaxlint check --fix --output-format json --jobs 2` once over them (once per half of the cases:
`TestFirstHalf`, `TestSecondHalf`, which two test workers run at once), then for every case
runs the entries of `tests/adversarial/inputs/<case>.py` on the original module (under
`jax.disable_jit()`: the reference semantics; prints show values, jitted methods run) and on the
fixed module (as written), and compares: pytree structure, shapes, dtypes, values (`allclose`
with per-dtype tolerances), stdout and stderr (equal up to float digits and NumPy's column
padding), and whether the call raised.

Input files define `CALLS`, a list of `(targets, label, run)`:
- `targets`: the qualified name (`"fn"` or `"Class.method"`) or a tuple of names whose code the
  entry exercises. An entry is compared only when the fix changed one of them and none of them
  still holds an unfixed JAX301 (a jitted method left alone raises by design). Printed-text
  differences in code that still holds an unfixed JAX201 print are reported as notes, not
  failures (the leftover print shows tracers: not the fix's doing);
- `label`: a short description of the inputs;
- `run(module)`: calls into the module and returns a pytree of results (it may print).

Every applied fix must lie in code some entry exercises. A case whose file jaxlint left unchanged
is skipped with the fix states as the reason; `test_suite_applies_fixes` prints the summary
(applied / failed / unverifiable / suggestion per rule, and why each fix was not applied; run
with `-s` or `-rA`). Set JAXLINT_ADVERSARIAL_KEEP=1 to keep the fixed copies for inspection.
"""

from __future__ import annotations

import ast
import collections
import contextlib
import fnmatch
import importlib.util
import io
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

import pytest

pytestmark = pytest.mark.adversarial

ADV = Path(__file__).resolve().parent / "adversarial"
CASES = ADV / "cases"
INPUTS = ADV / "inputs"
# JAXLINT_ADVERSARIAL_ONLY="loop_*,print_*" runs a subset (fnmatch patterns), for writing cases
_ONLY = [p for p in os.environ.get("JAXLINT_ADVERSARIAL_ONLY", "").split(",") if p]
CASE_NAMES = sorted(
    p.stem
    for p in CASES.glob("*.py")
    if not _ONLY or any(fnmatch.fnmatch(p.stem, pattern) for pattern in _ONLY)
)
RULES = ("JAX101", "JAX102", "JAX201", "JAX301")
# Every other case: two halves, each with its own `jaxlint --fix` run (a class-scoped fixture),
# so the test workers (`--dist loadscope`: a class per worker) run them side by side; names
# group by rule (`loop_*`, `method_*`, `print_*`…), so each half has cases of every rule.
HALVES = (CASE_NAMES[0::2], CASE_NAMES[1::2])


# --------------------------------------------------------------------------- jaxlint run


@pytest.fixture(scope="class")
def fix_run(request):
    """Copy the class's cases, run `jaxlint check --fix` once over them, return (folder,
    diagnostics).

    The fixed copies live in a private temporary folder (kept, and its path printed, when
    JAXLINT_ADVERSARIAL_KEEP is set) so they can be inspected after a failure."""
    root = Path(tempfile.mkdtemp(prefix="jaxlint-adversarial-"))
    work = root / "cases"
    work.mkdir()
    for case in request.cls.CASES:
        shutil.copy2(CASES / f"{case}.py", work)
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "jaxlint",
            "check",
            "--fix",
            "--output-format",
            "json",
            "--jobs",
            "2",
            "--no-cache",
            str(work),
        ],
        capture_output=True,
        text=True,
        cwd=work.parent,
        timeout=1800,
    )
    try:
        diagnostics = json.loads(proc.stdout)
    except json.JSONDecodeError:
        pytest.fail(f"jaxlint gave no JSON (exit {proc.returncode}):\n{proc.stderr[-3000:]}")
    assert proc.returncode in (0, 1, 2), f"jaxlint failed (exit {proc.returncode}):\n{proc.stderr}"
    by_case: dict[str, list[dict]] = collections.defaultdict(list)
    for d in diagnostics:
        by_case[Path(d["path"]).stem].append(d)
    # exit 2 with JSON: some files hit an internal error (reported per case below)
    errors: dict[str, str] = {}
    for line in proc.stderr.splitlines():
        head, sep, rest = line.partition(": internal error: ")
        if sep:
            errors[Path(head).stem] = rest
    yield work, by_case, errors
    if os.environ.get("JAXLINT_ADVERSARIAL_KEEP"):
        print(f"\nadversarial: fixed cases kept in {work}")
    else:
        shutil.rmtree(root, ignore_errors=True)


def _fix_state(d: dict) -> str:
    fix = d.get("fix")
    if not fix:
        return "no fix offered"
    if fix.get("applied"):
        return "applied"
    verification = fix.get("verification")
    if verification:
        return verification.get("status", "?")
    return f"not applied ({fix.get('kind')})"


def _summary(cases: list[str], by_case: dict[str, list[dict]]) -> tuple[str, collections.Counter]:
    counts: collections.Counter = collections.Counter()
    lines = []
    for case in cases:
        for d in by_case.get(case, []):
            if d["code"] not in RULES:
                continue
            state = _fix_state(d)
            counts[d["code"], state] += 1
            if state != "applied":
                reason = ((d.get("fix") or {}).get("verification") or {}).get("reason") or (
                    (d.get("fix") or {}).get("note") or d["message"]
                )
                lines.append(f"  {case}:{d['line']} {d['code']} {state}: {reason[:300]}")
    head = [f"adversarial fix suite: jaxlint --fix over {len(cases)} cases"]
    for rule in RULES:
        states = {s: n for (r, s), n in sorted(counts.items()) if r == rule}
        head.append(f"  {rule}: " + ", ".join(f"{s} {n}" for s, n in states.items()))
    return "\n".join(head + ["not applied:"] + lines), counts


# --------------------------------------------------------------------------- comparison


def _load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _spans(source: str) -> dict[str, tuple[int, int]]:
    """Qualified name → (first line, last line) of every top-level function, class and method."""

    def span(node):
        return min([node.lineno] + [d.lineno for d in node.decorator_list]), node.end_lineno

    out = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            out[node.name] = span(node)
            if isinstance(node, ast.ClassDef):
                for item in node.body:
                    if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                        out[f"{node.name}.{item.name}"] = span(item)
    return out


def _definitions(source: str) -> dict[str, str]:
    """Qualified name → source of every top-level function, class and method."""
    tree = ast.parse(source)
    out = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            out[node.name] = ast.unparse(node)
        elif isinstance(node, ast.ClassDef):
            out[node.name] = ast.unparse(node)
            for item in node.body:
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                    out[f"{node.name}.{item.name}"] = ast.unparse(item)
    return out


def _run(fn, module, reference: bool):
    """Run one entry: (outcome, value or exception text, stdout, stderr)."""
    import jax

    out_buf, err_buf = io.StringIO(), io.StringIO()
    mode = jax.disable_jit() if reference else contextlib.nullcontext()
    try:
        with (
            contextlib.redirect_stdout(out_buf),
            contextlib.redirect_stderr(err_buf),
            warnings.catch_warnings(),
        ):
            warnings.simplefilter("ignore")  # JAX's own warnings (donation…) are not output
            with mode:
                out = fn(module)
                out = jax.block_until_ready(out)
                jax.effects_barrier()
    except Exception as exc:  # noqa: BLE001 - any exception is an outcome to compare
        with (
            contextlib.redirect_stdout(out_buf),
            contextlib.redirect_stderr(err_buf),
            contextlib.suppress(Exception),
        ):
            jax.effects_barrier()
        text = f"{type(exc).__name__}: {str(exc)[:200]}"
        return "raised", text, out_buf.getvalue(), err_buf.getvalue()
    return "ok", out, out_buf.getvalue(), err_buf.getvalue()


def _tolerance(dtype) -> tuple[float, float] | None:
    import jax.numpy as jnp

    if dtype == jnp.bfloat16:
        return 2e-2, 2e-2
    if dtype == jnp.float16:
        return 2e-3, 2e-3
    if jnp.issubdtype(dtype, jnp.inexact):
        return 1e-4, 1e-5
    return None  # exact


# An input with an empty axis, by its label (`f32[0]`, `X[0,3]`, `T=0`): the loop runs zero times.
_ZERO_TRIP = re.compile(r"\[0[,\]]|\b\w+=0\b")


def _compare_outputs(ref, got, zero_trip: bool = False) -> list[str]:
    """Differences between the reference and the fixed output.

    `zero_trip`: JAX101's documented zero-trip behaviour (rules/JAX101.md, *Fix safety*) is not
    a difference: an empty output keeps the row shape, and a carry comes back as its start value
    cast to the type the loop gives it (same values, broadcast shape, promoted dtype; a Python
    scalar start takes the data's dtype, as it does in the first iteration).
    """
    import jax
    import jax.numpy as jnp
    import numpy as np

    ref_leaves, ref_tree = jax.tree_util.tree_flatten(ref)
    got_leaves, got_tree = jax.tree_util.tree_flatten(got)
    if ref_tree != got_tree:
        return [f"tree {ref_tree} != {got_tree}"]
    problems = []
    for k, (a, b) in enumerate(zip(ref_leaves, got_leaves, strict=True)):
        weak = isinstance(a, (bool, int, float, complex)) or getattr(a, "weak_type", False)
        a, b = jnp.asarray(a), jnp.asarray(b)
        where = f"leaf {k}: " if len(ref_leaves) > 1 else ""
        if zero_trip and a.size == 0 and b.size == 0:
            continue
        if zero_trip and (weak or jnp.promote_types(a.dtype, b.dtype) == b.dtype):
            with contextlib.suppress(ValueError):
                a = jnp.broadcast_to(a, b.shape).astype(b.dtype)
        if a.shape != b.shape:
            problems.append(f"{where}shape {a.shape} != {b.shape}")
            continue
        if a.dtype != b.dtype:
            problems.append(f"{where}dtype {a.dtype} != {b.dtype}")
            continue
        tol = _tolerance(a.dtype)
        an, bn = np.asarray(a), np.asarray(b)
        if a.dtype == jnp.bfloat16 or a.dtype == jnp.float16:
            an, bn = an.astype(np.float32), bn.astype(np.float32)
        if tol is None:
            ok = np.array_equal(an, bn)
        else:
            ok = np.allclose(an, bn, rtol=tol[0], atol=tol[1], equal_nan=True)
        if not ok:
            diff = np.max(np.abs(an.astype(np.complex128) - bn.astype(np.complex128)), initial=0)
            problems.append(f"{where}values differ (max |Δ| {diff:.3g}): {an!r:.80} vs {bn!r:.80}")
    return problems


_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|[-+]?(?:inf|nan)")


def _same_text(ref: str, got: str) -> bool:
    """Printed text equal up to float digits: the reference runs eagerly, the fix compiled, so
    the last digits of a printed float may differ (XLA fuses); everything else must match."""
    if ref == got:
        return True

    def layout(text):  # NumPy pads array columns to the widest number: spacing follows digits
        return [re.sub(r"(?<=[\[(]) +| +(?=[\])])", "", re.sub(r" {2,}", " ", w)) for w in text]

    ref_words, got_words = layout(_NUMBER.split(ref)), layout(_NUMBER.split(got))
    if ref_words != got_words:
        return False
    ref_nums, got_nums = _NUMBER.findall(ref), _NUMBER.findall(got)
    for a, b in zip(ref_nums, got_nums, strict=True):
        if a == b:
            continue
        fa, fb = float(a), float(b)
        if not (math.isclose(fa, fb, rel_tol=1e-4, abs_tol=1e-6) or (fa != fa and fb != fb)):
            return False
    return True


def _short(text: str, limit: int = 160) -> str:
    text = text.replace("\n", "\\n")
    return text if len(text) <= limit else text[:limit] + "…"


def _keeps_behaviour(case, fix_run):
    work, by_case, errors = fix_run
    assert case not in errors, f"jaxlint --fix crashed on {case}: {errors.get(case)}"
    original_path = CASES / f"{case}.py"
    fixed_path = work / f"{case}.py"
    original_src = original_path.read_text()
    fixed_src = fixed_path.read_text()
    states = [f"{d['code']}:{d['line']} {_fix_state(d)}" for d in by_case.get(case, [])]
    if original_src == fixed_src:
        pytest.skip(f"{case}: no fix applied ({'; '.join(states) or 'no diagnostics'})")
    ast.parse(fixed_src)

    original = _load(original_path, f"_adv_orig_{case}")
    fixed = _load(fixed_path, f"_adv_fixed_{case}")
    sys.path.insert(0, str(INPUTS))
    try:
        inputs = _load(INPUTS / f"{case}.py", f"_adv_inputs_{case}")
    finally:
        sys.path.remove(str(INPUTS))
    before, after = _definitions(original_src), _definitions(fixed_src)

    spans = _spans(original_src)
    unfixed = [
        (d["code"], d["line"])
        for d in by_case.get(case, [])
        if d["code"] in ("JAX201", "JAX301")
        and _fix_state(d) != "applied"
        and d["severity"] != "info"
    ]

    # lines of diagnostics left unfixed refer to the fixed file, lines of applied fixes to the
    # file as it was when the fix was made (the original, for first-round fixes)
    spans_after = _spans(fixed_src)

    def unfixed_in(code, names):
        return any(
            c == code and n in spans_after and spans_after[n][0] <= line <= spans_after[n][1]
            for n in names
            for c, line in unfixed
        )

    problems, notes, compared = [], [], 0
    loops_fixed = any(
        d["code"] == "JAX101" and _fix_state(d) == "applied" for d in by_case.get(case, [])
    )
    # every applied fix must sit in code some entry exercises, or the suite would miss it
    exercised = {
        n
        for targets, _, _ in inputs.CALLS
        for n in ((targets,) if isinstance(targets, str) else targets)
    }
    for d in by_case.get(case, []):
        owners = [(b - a, n) for n, (a, b) in spans.items() if a <= d["line"] <= b]
        if _fix_state(d) == "applied" and owners and min(owners)[1] not in exercised:
            where = f"line {d['line']} ({min(owners)[1]})"
            problems.append(f"applied {d['code']} fix at {where} is not exercised by any entry")
    for targets, label, fn in inputs.CALLS:
        names = (targets,) if isinstance(targets, str) else tuple(targets)
        assert all(n in before for n in names), f"{case}: unknown target in {names}"
        if all(before[n] == after.get(n) for n in names):
            continue  # this entry's code was not rewritten
        if unfixed_in("JAX301", names):
            continue  # a jitted method left alone still raises by design: nothing to compare
        compared += 1
        r_state, r_val, r_out, r_err = _run(fn, original, reference=True)
        g_state, g_val, g_out, g_err = _run(fn, fixed, reference=False)
        tag = f"{'/'.join(names)} [{label}]"
        zero_trip = loops_fixed and bool(_ZERO_TRIP.search(label))
        if zero_trip and (r_state, g_state) == ("raised", "ok"):
            # documented: where a loop that ran zero times failed (`jnp.stack([])`, `0.0 / 0`),
            # the scan may return
            notes.append(f"{tag}: the original raises on an empty axis ({r_val}), the fix returns")
            continue
        if r_state != g_state:
            detail = r_val if r_state == "raised" else g_val
            problems.append(f"{tag}: original {r_state}, fixed {g_state} ({detail})")
            continue
        if r_state == "ok":
            problems += [f"{tag}: {p}" for p in _compare_outputs(r_val, g_val, zero_trip)]
        # a print jaxlint left alone still prints tracers: its text is not the fix's doing
        leftover = unfixed_in("JAX201", names)
        streams = []
        if not _same_text(r_out, g_out):
            streams.append(f"{tag}: stdout {_short(r_out)!r} != {_short(g_out)!r}")
        if not _same_text(r_err, g_err):
            streams.append(f"{tag}: stderr {_short(r_err)!r} != {_short(g_err)!r}")
        (notes if leftover else problems).extend(streams)
    for note in notes:
        print(f"note ({case}): {note}")
    if not compared:
        pytest.skip(f"{case}: fix touched no exercised target ({'; '.join(states)})")
    assert not problems, f"{case} ({'; '.join(states)}):\n  " + "\n  ".join(problems)


def pytest_generate_tests(metafunc):
    if "case" in metafunc.fixturenames and metafunc.cls is not None:
        metafunc.parametrize("case", metafunc.cls.CASES)


class _Half:
    CASES: list[str]

    def test_suite_applies_fixes(self, fix_run, request):
        """The run applied fixes of every rule, so the comparisons below are not vacuous."""
        _, by_case, errors = fix_run
        text, counts = _summary(self.CASES, by_case)
        if errors:
            text += "\ninternal errors:\n" + "\n".join(f"  {c}: {e}" for c, e in errors.items())
        print("\n" + text)
        request.node.add_report_section("call", "adversarial summary", text)
        applied = sum(n for (_, s), n in counts.items() if s == "applied")
        assert applied >= 10, text
        for rule in RULES:
            assert counts[rule, "applied"] > 0, f"no {rule} fix applied\n{text}"

    def test_fixed_case_keeps_behaviour(self, case, fix_run):
        _keeps_behaviour(case, fix_run)


class TestFirstHalf(_Half):
    CASES = HALVES[0]


class TestSecondHalf(_Half):
    CASES = HALVES[1]
