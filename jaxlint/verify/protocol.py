"""Verification requests and results, and their JSON form on the parent↔child pipe."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Literal

Status = Literal["verified", "failed", "unverifiable", "timeout", "jax-missing"]
STATUSES: tuple[Status, ...] = ("verified", "failed", "unverifiable", "timeout", "jax-missing")

JAX_MISSING_REASON = "not verified: install jaxlint[verify]"
READS_NAME = "JAXLINT_VERIFY_READS"  # to the child: the project folders it may read (JSON)
MIN_INPUT_SETS = 3  # input sets of each accepted signature the rewrite must agree on


class Refused(Exception):
    """The child's reply breaks the protocol: verification stops, unverifiable, and the child
    is not trusted again."""


class ChildError(Exception):
    """An op raised in the child (a bug of jaxlint's, or user code raising past it); the
    message is the exception's class name."""


@dataclass(frozen=True)
class VerifyRequest:
    """One rewrite to prove: a function's module before and after the fix."""

    request_id: str
    path: str  # for messages; its folder goes on sys.path so local imports work
    original_source: str  # the whole module before the fix
    rewritten_source: str  # the whole module after the fix
    target: str  # qualified name in the module: "cumsum" or "ScaleClass.apply"
    fix_code: str  # "JAX101" | "JAX301" | "JAX201" | ...
    require_fewer_eqns: bool  # True for loop rewrites (JAX101)
    # Signatures `--examples-from CMD` saw the target called with: one JSON object per string
    # (jaxlint.verify.recording); tried before any other example inputs.
    recorded: tuple[str, ...] = ()
    # The reference is the original on NumPy copies of the array inputs (Edit.numpy_reference).
    numpy_reference: bool = False
    # the verification policy the edit carries (jaxlint.engine.edits.Edit)
    restages: bool = False
    rewrites_prints: bool = False
    judge_run_time: bool = False


@dataclass
class Measurements:
    """Equation counts and timings of the original and the rewrite on the first input set,
    measured in the child and reported to jaxlint as numbers, with notes on what was not."""

    eqns_before: int | None = None
    eqns_after: int | None = None
    eqns_total_before: int | None = None
    eqns_total_after: int | None = None
    compile_s_before: float | None = None
    compile_s_after: float | None = None
    run_s_before: float | None = None
    run_s_after: float | None = None
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class VerifyResult:
    """What verification of one request found (SPEC §5 step 4)."""

    request_id: str
    status: Status
    reason: str  # why it failed / could not be verified, or a short summary
    inputs_tried: int = 0
    inputs_passed: int = 0
    max_abs_diff: float | None = None
    eqns_before: int | None = None
    eqns_after: int | None = None
    eqns_total_before: int | None = None
    eqns_total_after: int | None = None
    compile_s_before: float | None = None
    compile_s_after: float | None = None
    # steady-state time of one call of the compiled original and rewrite, on `backend`
    run_s_before: float | None = None
    run_s_after: float | None = None
    backend: str | None = None
    slower_at_run_time: bool | None = None  # judged only for edits made for speed
    seconds: float | None = None  # child time spent on this request (the JAX import excluded)

    @property
    def verified(self) -> bool:
        """True when the rewrite was proven equivalent."""
        return self.status == "verified"

    def to_json(self) -> dict[str, Any]:
        """The `verification` object of the JSON output (SPEC §6); non-finite floats become null."""
        out = result_to_wire(self)
        del out["request_id"]
        for key, value in out.items():
            if isinstance(value, float) and not math.isfinite(value):
                out[key] = None
        return out


def request_to_wire(request: VerifyRequest) -> dict[str, Any]:
    """A request as a JSON-able dict."""
    return asdict(request)


def request_from_wire(data: dict[str, Any]) -> VerifyRequest:
    """The inverse of `request_to_wire`; the defaulted fields may be missing (an older parent)."""
    flags = {"numpy_reference", "restages", "rewrites_prints", "judge_run_time"}
    optional = {"recorded", *flags}
    values = {f.name: data[f.name] for f in fields(VerifyRequest) if f.name not in optional}
    flag_values: dict[str, Any] = {flag: bool(data.get(flag)) for flag in flags}
    return VerifyRequest(**values, recorded=tuple(data.get("recorded") or ()), **flag_values)


def result_to_wire(result: VerifyResult) -> dict[str, Any]:
    """A result as a JSON-able dict."""
    return asdict(result)


def result_from_wire(data: dict[str, Any]) -> VerifyResult:
    """The inverse of `result_to_wire`; unknown keys are ignored, a bad status is an error."""
    known = {f.name for f in fields(VerifyResult)}
    result = VerifyResult(**{k: v for k, v in data.items() if k in known})
    if result.status not in STATUSES:
        raise ValueError(f"unknown verification status {result.status!r}")
    return result


def plain_result(request: VerifyRequest, status: Status, reason: str) -> VerifyResult:
    """A result with only a status and a reason (no measurements)."""
    return VerifyResult(request_id=request.request_id, status=status, reason=reason)
