"""Frozen value types every layer shares: spans, fixes and diagnostics."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal

Severity = Literal["error", "warning", "info"]
FixKind = Literal["safe", "verified", "suggestion"]


@dataclass(frozen=True, order=True)
class Span:
    """A source range: 1-based lines, 1-based columns, end exclusive (as editors show them)."""

    line: int
    column: int
    end_line: int
    end_column: int


SHOWN_IN_DIFF = "shown in diff"  # the note of a fix `--diff` printed instead of writing it


@dataclass(frozen=True)
class Fix:
    """A rewrite attached to a diagnostic, with its safety grade and what became of it."""

    kind: FixKind
    description: str
    applied: bool = False
    verification: Mapping[str, Any] | None = field(default=None, compare=False)
    # Why a fix was not applied, e.g. "not verified: install jaxlint[verify]".
    note: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The `fix` object of SPEC §6's JSON contract."""
        return {
            "kind": self.kind,
            "description": self.description,
            "applied": self.applied,
            "verification": dict(self.verification) if self.verification is not None else None,
            "note": self.note,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Fix:
        return cls(
            data["kind"], data["description"], data["applied"], data["verification"], data["note"]
        )


@dataclass(frozen=True)
class Diagnostic:
    """One finding: a rule code anchored on a span of a file."""

    code: str
    severity: Severity
    message: str
    path: str
    span: Span
    fix: Fix | None = None
    # Notebooks: the 1-based cell index the span refers to (span lines are then cell lines).
    cell: int | None = None
    # What an observation run (`--observe CMD`) showed of this hazard: jaxlint.observe.attach
    observed: Mapping[str, Any] | None = field(default=None, compare=False)

    @property
    def line(self) -> int:
        return self.span.line

    @property
    def column(self) -> int:
        return self.span.column

    @property
    def end_line(self) -> int:
        return self.span.end_line

    @property
    def end_column(self) -> int:
        return self.span.end_column

    def with_fix(self, fix: Fix | None) -> Diagnostic:
        return replace(self, fix=fix)

    def sort_key(self) -> tuple[str, int, int, str, str]:
        # the message last: findings at one place come out in the same order on every run
        return (self.path, self.span.line, self.span.column, self.code, self.message)

    def to_json(self) -> dict[str, Any]:
        """One element of the `--output-format json` array (SPEC §6)."""
        out: dict[str, Any] = {
            "code": self.code,
            "severity": self.severity,
            "message": self.message,
            "path": self.path,
            "line": self.span.line,
            "column": self.span.column,
            "end_line": self.span.end_line,
            "end_column": self.span.end_column,
            "fix": self.fix.to_json() if self.fix is not None else None,
        }
        if self.cell is not None:
            out["cell"] = self.cell
        if self.observed is not None:
            out["observed"] = dict(self.observed)
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Diagnostic:
        """The inverse of `to_json` (the cache stores diagnostics this way)."""
        span = Span(data["line"], data["column"], data["end_line"], data["end_column"])
        fix = Fix.from_json(data["fix"]) if data["fix"] is not None else None
        return cls(
            data["code"],
            data["severity"],
            data["message"],
            data["path"],
            span,
            fix,
            data.get("cell"),
            data.get("observed"),
        )


# A verified fix whose compiled form runs slower than the original's is applied with a warning
# (rules/JAX101.md, "Which form"): slower means by more than timing noise on one machine, a
# quarter and 10 µs (medians of 7 calls of a few-µs function vary by ~10%).
SLOWER_RATIO = 1.25
SLOWER_MARGIN_S = 10e-6


def slower_at_run_time(before_s: float, after_s: float) -> bool:
    """Does a fix measured `before_s` → `after_s` per call run slower than the original?"""
    return after_s > SLOWER_RATIO * before_s and after_s - before_s > SLOWER_MARGIN_S
