"""Judge one rewrite from what the checked code did: jaxlint's side of verification (SPEC §5).

The verification child (`jaxlint.verify.check`) loads the checked module, finds inputs the
original accepts and calls the original and the rewrite as it is asked; it sends back outputs as
data (`jaxlint.verify.observed`) and decides nothing. Here, in jaxlint's process, which the
checked code cannot read, write or signal (SECURITY.md), the outputs are compared, the input
sets counted and the reason composed: from numbers, shapes and dtypes, and from the child's text
only through `Vocabulary.clean`. A forged reply can make the original and the rewrite agree (as
a module that knows it is verified can), but cannot declare a verdict or a count.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Protocol

from jaxlint.diagnostics import slower_at_run_time
from jaxlint.verify.compare import (
    Comparison,
    compare_outputs,
    identical_outputs,
    rounded_like,
    rounding_dominated,
    same_text,
    within_noise,
)
from jaxlint.verify.observed import TRACER_TEXT, Call, Output, call_from_wire
from jaxlint.verify.protocol import (
    MIN_INPUT_SETS,
    ChildError,
    Measurements,
    Refused,
    Status,
    VerifyRequest,
    VerifyResult,
)
from jaxlint.verify.words import Vocabulary

Role = Literal["original", "rewritten", "jitted", "float64", "widened"]
_COUNTS = ("eqns_before", "eqns_after", "eqns_total_before", "eqns_total_after")
_SECONDS = ("compile_s_before", "compile_s_after", "run_s_before", "run_s_after")
_BACKENDS = frozenset({"cpu", "gpu", "cuda", "rocm", "tpu", "metal", "METAL"})


class Trial(Protocol):
    """The child's side of one request, as `judge` asks it (`runner` over the pipe)."""

    def open(self, request: VerifyRequest) -> dict[str, Any]:
        """Load the modules and find the inputs: the child's `opened` message."""

    def call(self, role: Role, case: int, set_index: int) -> dict[str, Any] | None:
        """One call of `role` on input case `case`, set `set_index`: a call's wire form."""

    def mutations(self) -> list[dict[str, Any]]:
        """The method run after each constructor-set attribute was changed."""


@dataclass(frozen=True)
class _Case:
    case: int
    describe: str


@dataclass(frozen=True)
class _Plan(_Case):
    sets: tuple[int, ...]
    expected: tuple[Call, ...]  # the original's runs, one per set
    origin: str


@dataclass(frozen=True)
class _Variant(_Case):
    label: str
    empty: bool


@dataclass(frozen=True)
class _Rejected(_Case):
    raised: str


@dataclass(frozen=True)
class _Opened:
    plans: tuple[_Plan, ...]
    again: Call
    variants: tuple[_Variant, ...]
    rejected: tuple[_Rejected, ...]
    measured: Measurements
    backend: str
    instance_method: bool
    numpy_inputs: bool


class _Failed(Exception):
    """The rewrite is wrong."""


class _Unverifiable(Exception):
    """Nothing here can tell a right rewrite from a wrong one."""


def judge(request: VerifyRequest, trial: Trial) -> VerifyResult:
    """Verify one rewrite through `trial`; Refused when the child breaks the protocol."""
    words = Vocabulary(
        [request.original_source, request.rewritten_source, request.path, request.target]
        + list(request.recorded)
    )
    try:
        opened = trial.open(request)
        for status in ("unverifiable", "failed"):
            if status in opened:
                reason = words.clean(opened[status])
                return VerifyResult(request.request_id, status, reason)
        try:
            setup = _read_opened(opened, words)
        except (KeyError, TypeError, ValueError) as error:
            raise Refused(f"a malformed reply ({error})") from error
        return _judge(request, setup, trial, words)
    except _Unverifiable as exc:
        return VerifyResult(request.request_id, "unverifiable", str(exc))
    except ChildError as exc:
        reason = f"internal error while verifying: {words.clean(str(exc))}"
        return VerifyResult(request.request_id, "unverifiable", reason)


def _judge(request: VerifyRequest, setup: _Opened, trial: Trial, words: Vocabulary) -> VerifyResult:
    _require_deterministic(request, setup)
    comparer = _Comparer(request, setup, trial, words)
    for plan in setup.plans:
        comparer.on_plan(plan)
    for variant in setup.variants:
        comparer.on_variant(variant)
    for rejected in setup.rejected:
        comparer.on_rejected(rejected)
    measured = setup.measured
    status: Status = "verified"
    reason = ""
    try:
        if comparer.failure:
            raise _Failed(comparer.failure)
        if setup.instance_method:
            measured.notes.extend(_check_mutations(request, trial, words))
        if request.require_fewer_eqns:
            _require_fewer_eqns(measured)
        reason = _summary(request, setup, comparer)
    except _Failed as exc:
        status, reason = "failed", str(exc)
    return VerifyResult(
        request_id=request.request_id,
        status=status,
        reason=reason,
        inputs_tried=comparer.tried,
        inputs_passed=comparer.passed,
        max_abs_diff=comparer.worst,
        **{name: getattr(measured, name) for name in _COUNTS + _SECONDS},
        backend=setup.backend,
        slower_at_run_time=_slower(request, measured),
    )


# ---------------------------------------------------------------- reading the child's replies


def _read_opened(data: dict[str, Any], words: Vocabulary) -> _Opened:
    cases = data["cases"]
    _expect(type(cases) is int and cases >= 1, "a case count")

    def case(value: Any) -> int:
        _expect(type(value) is int and 0 <= value < cases, "a case number")
        return int(value)

    plans = []
    for plan in data["plans"]:
        sets = tuple(plan["sets"])
        _expect(all(type(s) is int and s >= 0 for s in sets), "input set numbers")
        expected = tuple(call_from_wire(call) for call in plan["expected"])
        _expect(len(sets) >= MIN_INPUT_SETS and len(expected) == len(sets), "input sets")
        _expect(all(call.output is not None for call in expected), "expected outputs")
        _expect(plan["origin"] in ("ladder", "recorded"), "an origin")
        plans.append(
            _Plan(case(plan["case"]), words.clean(plan["describe"]), sets, expected, plan["origin"])
        )
    _expect(bool(plans), "a plan")
    variants = tuple(
        _Variant(
            case(v["case"]), words.clean(v["describe"]), words.clean(v["label"]), v["empty"] is True
        )
        for v in data["variants"]
    )
    rejected = tuple(
        _Rejected(case(r["case"]), words.clean(r["describe"]), words.clean(r["raised"]))
        for r in data["rejected"]
    )
    measured = Measurements(notes=[words.clean(note) for note in data["measured"].get("notes", [])])
    for name in _COUNTS + _SECONDS:
        value = data["measured"].get(name)
        kinds = (int,) if name in _COUNTS else (int, float)
        _expect(value is None or (type(value) in kinds and value >= 0), name)
        setattr(measured, name, value if value is None or name in _COUNTS else float(value))
    backend = data["backend"]
    flags = data["instance_method"], data["numpy_inputs"]
    _expect(all(isinstance(flag, bool) for flag in flags), "flags")
    return _Opened(
        tuple(plans),
        call_from_wire(data["again"]),
        variants,
        rejected,
        measured,
        backend if backend in _BACKENDS else "?",
        *flags,
    )


def _expect(condition: bool, what: str) -> None:
    if not condition:
        raise ValueError(f"bad {what}")


def _read_call(reply: Any) -> Call:
    try:
        return call_from_wire(reply)
    except (KeyError, TypeError, ValueError) as error:
        raise Refused(f"a malformed reply ({error})") from error


def _asked(trial: Trial, role: Role, case: int, set_index: int) -> Call:
    return _read_call(trial.call(role, case, set_index))


def _asked_optional(trial: Trial, role: Role, case: int, set_index: int) -> Call | None:
    """A reference run (the jitted original, in float64, widened): None where there is none
    or it raised."""
    reply = trial.call(role, case, set_index)
    if reply is None:
        return None
    call = _read_call(reply)
    return call if call.output is not None else None


# ---------------------------------------------------------------- the judgement


def _require_deterministic(request: VerifyRequest, setup: _Opened) -> None:
    """The original run again on the first plan's first input set must return what it did:
    outputs that differ come from randomness verification does not supply (host `np.random`,
    `random`, the clock, a counter kept between calls), and no comparison means anything."""
    plan = setup.plans[0]
    where = plan.describe
    if setup.again.output is None:
        raise _Unverifiable(
            f"the original is nondeterministic: it returned on ({where}) and then raised"
            f" {setup.again.raised} on the same inputs"
        )
    first = plan.expected[0].output  # a plan's runs returned
    if not identical_outputs(first, setup.again.output):  # type: ignore[arg-type]  # see above
        raise _Unverifiable(
            "the original is nondeterministic: two runs on the same inputs "
            f"({where}) return different values; its randomness is "
            "not a JAX key verification supplies (host np.random, random, the clock, state "
            "kept between calls?)"
        )


class _Comparer:
    """Asks for the rewrite's run beside the original's on each input set, stopping at the first
    difference.

    A rewrite passes an input set when its output has the original's tree, shapes, dtypes and
    values and it prints the same text; where the original raises (on a varied input), the
    rewrite must raise too. On an empty axis the original often raises (`jnp.stack([])`) or
    returns a degenerate `jnp.array([])`: there only the original's non-empty results must
    match, and a carry may come back broadcast to its row shape.
    """

    def __init__(
        self, request: VerifyRequest, setup: _Opened, trial: Trial, words: Vocabulary
    ) -> None:
        self.request = request
        self.setup = setup
        self.trial = trial
        self.words = words
        self.tried = 0
        self.passed = 0
        self.worst: float | None = None
        self.failure: str | None = None
        self.varied: list[str] = []  # variants both accepted
        self.rejected: list[str] = []  # variants the original (and the rewrite) reject
        self.numpy_only: list[str] = []  # variants only the NumPy reference rejects
        self.rounding = 0  # input sets whose values agree only within the compiled original's
        self.widened_rounding = 0  # ... only within the NumPy reference's float32 evaluation
        self.float64_rounding = 0  # ... only within the original's float32 rounding error
        self.ill_conditioned: list[str] = []  # variants whose float32 result is mostly rounding

    def on_plan(self, plan: _Plan) -> None:
        for set_index, expected in zip(plan.sets, plan.expected, strict=True):
            where = f"on input set {set_index} of {plan.describe}"
            if not self._agrees(plan.case, set_index, expected, where, empty=False):
                return

    def on_variant(self, variant: _Variant) -> None:
        if self.failure:
            return
        where = f"on {variant.label} ({variant.describe})"
        loose = variant.label.endswith("float16 data")
        expected = _asked(self.trial, "original", variant.case, 0)
        if expected.too_slow:
            return  # no reference to compare with
        if expected.output is None:
            if variant.empty and (variant.label.endswith("→0") or expected.stacks_nothing):
                # A loop that ran zero times left a Python value (`0.0 / len(x)` divides by
                # zero) or stacked nothing (`jnp.stack([])`): the rewrite may return there.
                return
            if expected.numpy_only:
                self.numpy_only.append(variant.label)
                return
            raised = f"the original raises {self.words.clean(expected.raised)} {where}"
            if self._rejects(variant.case, raised):
                self.rejected.append(variant.label)
            return
        if self._agrees(
            variant.case,
            0,
            expected,
            where,
            empty=variant.empty,
            loose=loose,
            variant=variant.label,
        ):
            self.varied.append(variant.label)

    def on_rejected(self, rejected: _Rejected) -> None:
        """A signature the original raises on: the rewrite must raise too."""
        if not self.failure:
            raised = f"the original raises {rejected.raised} on ({rejected.describe})"
            self._rejects(rejected.case, raised)

    def _rejects(self, case: int, raised: str) -> bool:
        """Does the rewrite raise where the original did (`raised` says how)? Else a failure.

        The jitted original accepting the inputs excuses the rewrite: jit makes a Python float
        an array, so it is not the rewrite that changed what runs.
        """
        self.tried += 1
        if not _asked(self.trial, "rewritten", case, 0).returned:
            self.passed += 1
            return True
        if _asked_optional(self.trial, "jitted", case, 0) is not None:
            self.passed += 1
            return False
        self.failure = f"{raised} but the rewrite returns"
        return False

    def _agrees(
        self,
        case: int,
        set_index: int,
        expected: Call,
        where: str,
        empty: bool,
        loose: bool = False,
        variant: str | None = None,
    ) -> bool:
        """Does the rewrite compute what the original did on these inputs? Else a failure;
        except on a `variant` where the original's own float32 result is mostly rounding (a
        singular `inv`): no comparison there can tell a rewrite from rounding, so the variant
        is set aside, named in the reason."""
        if self.failure:
            return False
        self.tried += 1
        actual = _asked(self.trial, "rewritten", case, set_index)
        if actual.output is None:
            raised = self.words.clean(actual.raised)
            self.failure = f"rewritten {self.request.target} raised {raised} {where}"
            return False
        assert expected.output is not None
        comparison = compare_outputs(expected.output, actual.output, zero_trip=empty, loose=loose)
        noise = (
            "same"
            if comparison.same
            else self._noise(comparison, expected.output, actual.output, case, set_index, loose)
        )
        if noise == "ill-conditioned" and variant is not None:
            self.tried -= 1
            self.ill_conditioned.append(variant)
            return False
        if noise in ("differs", "ill-conditioned"):
            self.failure = f"{comparison.detail} {where}"
        if comparison.max_abs_diff is not None:
            self.worst = max(self.worst or 0.0, comparison.max_abs_diff)
        if self.failure:
            return False
        printed = expected.printed
        if not same_text(printed, actual.printed, loose) and not self._prints_as_jitted(
            case, set_index, actual.printed, loose
        ):
            self.failure = (
                f"printed text differs {where}: {_text_size(printed)} from the original,"
                f" {_text_size(actual.printed)} from the rewrite (printed text is compared,"
                " never shown)"
            )
            if TRACER_TEXT.search(actual.printed) and not TRACER_TEXT.search(printed):
                self.failure += "; the rewrite prints a tracer where the original prints values"
            return False
        self.passed += 1
        return True

    def _noise(
        self,
        comparison: Comparison,
        expected: Output,
        actual: Output,
        case: int,
        set_index: int,
        loose: bool,
    ) -> Literal["rounding", "ill-conditioned", "differs"]:
        """Do only the values differ, by no more than rounding moves them (compiling the
        original, or its float32 result beside its float64 one)? "ill-conditioned": they differ
        more, where the original's float32 result is itself mostly rounding."""
        if not comparison.values_only:
            return "differs"
        jitted = _asked_optional(self.trial, "jitted", case, set_index)
        compiled = jitted.output if jitted is not None else None
        widened = compiled is None and loose and self.setup.numpy_inputs
        if widened:
            run = _asked_optional(self.trial, "widened", case, set_index)
            compiled = rounded_like(run.output, expected) if run and run.output else None
        if compiled is not None and within_noise(expected, actual, compiled, loose):
            if widened:
                self.widened_rounding += 1
            else:
                self.rounding += 1
            return "rounding"
        run = _asked_optional(self.trial, "float64", case, set_index)
        precise = run.output if run is not None else None
        if precise is None:
            return "differs"
        if within_noise(expected, actual, precise, loose):
            self.float64_rounding += 1
            return "rounding"
        if rounding_dominated(expected, precise, loose):
            return "ill-conditioned"
        return "differs"

    def _prints_as_jitted(self, case: int, set_index: int, printed: str, loose: bool) -> bool:
        """Does the original *as written* (jitted) print the same? Then the rewrite kept it.

        Trace-time prints elsewhere in a rewritten function (a static marker) print once per
        trace in both; only the print rewrite itself must print what the unstaged original does.
        """
        if self.request.rewrites_prints:
            return False
        run = _asked_optional(self.trial, "jitted", case, set_index)
        return run is not None and same_text(run.printed, printed, loose)


def _text_size(text: str) -> str:
    lines = text.count("\n") + (1 if text and not text.endswith("\n") else 0)
    return f"{lines} line{'s' if lines != 1 else ''} ({len(text)} characters)"


def _check_mutations(request: VerifyRequest, trial: Trial, words: Vocabulary) -> list[str]:
    """Each constructor-set attribute changed after a first call: both versions must still
    agree. Catches a rewrite that caches on `self` (a stale jit cache, SPEC JAX306); a rewrite
    as stale as the original as written (decorators kept) agrees."""
    checked = []
    try:
        records = [
            (
                words.clean(r["name"]),
                _optional_output(r.get("expected")),
                _optional_call(r.get("actual")),
                _optional_output(r.get("written")),
            )
            for r in trial.mutations()
        ]
    except (KeyError, TypeError, ValueError) as error:
        raise Refused(f"a malformed reply ({error})") from error
    for name, expected, actual, written in records:
        if expected is None:
            continue  # the original does not accept the change: nothing to compare
        if actual is None or actual.output is None:
            raised = words.clean(actual.raised) if actual is not None else "nothing"
            raise _Failed(f"after changing self.{name}, rewritten {request.target} raised {raised}")
        comparison = compare_outputs(expected, actual.output)
        stale_as_written = written is not None and compare_outputs(written, actual.output).same
        if not comparison.same and not stale_as_written:
            raise _Failed(
                f"stale result after changing self.{name}: {comparison.detail} "
                "(the rewrite caches on self)"
            )
        checked.append(name)
    return [f"agrees after changing self.{', self.'.join(checked)}"] if checked else []


def _optional_call(data: Any) -> Call | None:
    return None if data is None else call_from_wire(data)


def _optional_output(data: Any) -> Output | None:
    call = _optional_call(data)
    return call.output if call is not None else None


def _require_fewer_eqns(measured: Measurements) -> None:
    before, after = measured.eqns_before, measured.eqns_after
    if before is None:
        raise _Unverifiable(f"cannot count equations: {'; '.join(measured.notes)}")
    if after is None:
        raise _Failed(f"cannot count equations: {'; '.join(measured.notes)}")
    total_before, total_after = measured.eqns_total_before, measured.eqns_total_after
    smaller_total = (
        total_before is not None and total_after is not None and total_after < total_before
    )
    if after >= before and not smaller_total:
        # a loop inside a lax body shrinks the nested jaxpr while the top level stays one `while`
        raise _Failed(
            f"rewritten jaxpr is not smaller: {before} → {after} top-level equations"
            f" ({total_before} → {total_after} in total)"
        )


def _slower(request: VerifyRequest, measured: Measurements) -> bool | None:
    """Is a fix made for speed measured slower than the original (None: not judged)?"""
    before, after = measured.run_s_before, measured.run_s_after
    if not request.judge_run_time or before is None or after is None:
        return None
    return slower_at_run_time(before, after)


def _summary(request: VerifyRequest, setup: _Opened, comparer: _Comparer) -> str:
    measured = setup.measured
    signatures = " and ".join(plan.describe for plan in setup.plans)
    parts = [f"outputs and prints match on {comparer.passed} input sets: {signatures}"]
    parts += _origin_note(setup.plans, request.recorded)
    if setup.numpy_inputs:
        parts.append("the reference: the original on NumPy copies of the array inputs")
    if comparer.varied:
        parts[0] += f", varied by {', '.join(comparer.varied)}"
    if comparer.rejected:
        parts[0] += f" (both raise on {', '.join(comparer.rejected)})"
    if comparer.numpy_only:
        parts[0] += f" (only NumPy raises on {', '.join(comparer.numpy_only)})"
    if comparer.worst is not None:
        parts[0] += f", max |Δ| {comparer.worst:.3g}"
    within = (  # input sets that agree only within a measured rounding, and what measured it
        (comparer.rounding, "the original compiled as written differs from its op-by-op run"),
        (
            comparer.widened_rounding,
            "the NumPy reference computed in float32 differs from its 16-bit run",
        ),
        (comparer.float64_rounding, "the original's float32 result differs from its float64 one"),
    )
    for count, reference in within:
        if count:
            parts[0] += f" (on {count} of them no more than {reference})"
    if comparer.ill_conditioned:
        parts[0] += (
            f" (set aside: {', '.join(comparer.ill_conditioned)}, where the original's float32 "
            "result is mostly rounding, far from its float64 one)"
        )
    if measured.eqns_before is not None and measured.eqns_after is not None:
        parts.append(
            f"eqns {measured.eqns_before} → {measured.eqns_after} "
            f"(total {measured.eqns_total_before} → {measured.eqns_total_after})"
        )
    if measured.compile_s_before is not None and measured.compile_s_after is not None:
        parts.append(
            f"compile {measured.compile_s_before:.3f} s → {measured.compile_s_after:.3f} s"
        )
    before, after = measured.run_s_before, measured.run_s_after
    if before is not None and after is not None:
        parts.append(
            f"run {before * 1e6:.0f} µs → {after * 1e6:.0f} µs per call on "
            f"{setup.backend} (the first input set)"
        )
        if _slower(request, measured):
            parts.append("the rewrite runs slower here than the original")
    return "; ".join(parts + measured.notes)


def _origin_note(plans: tuple[_Plan, ...], recorded: tuple[str, ...]) -> list[str]:
    """`inputs: 2 recorded signatures, 1 from the ladder`, when signatures were recorded."""
    if not recorded:
        return []
    used = sum(1 for plan in plans if plan.origin == "recorded")
    ladder = len(plans) - used
    parts = [f"{used} recorded signature{'s' if used != 1 else ''}"]
    if ladder:
        parts.append(f"{ladder} from the ladder")
    note = f"inputs: {', '.join(parts)}"
    if used < len(recorded):
        note += f" (of {len(recorded)} recorded)"
    return [note]
