"""Human-readable output: concise (one line per diagnostic, `[*]` where `--fix` would rewrite it)
or full (the whole message and fix status), verification figures, statistics, summary."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from jaxlint.diagnostics import SHOWN_IN_DIFF, Diagnostic, Fix
from jaxlint.output.escape import printable
from jaxlint.output.names import rule_name

_PASSED = {None, "passed", "verified", "ok"}
_LABELS: dict[object, str] = {  # by a verification's status
    "failed": "verification failed",
    "unverifiable": "not verified",
    "timeout": "verification timed out",
    "jax-missing": "not verified",
}


def location(diagnostic: Diagnostic) -> str:
    """`path:line:col`, with `cell N` for a notebook finding."""
    cell = f":cell {diagnostic.cell}" if diagnostic.cell is not None else ""
    return f"{printable(diagnostic.path)}{cell}:{diagnostic.line}:{diagnostic.column}"


def fix_status(fix: Fix) -> str:
    """` (fix: kind, applied|available|not applied: note)`."""
    if fix.applied:
        state = "applied"
    elif fix.note:
        state = f"not applied: {fix.note}"
    else:
        state = "available"
    return f" (fix: {fix.kind}, {state})"


def _number(value: Any) -> str:
    if isinstance(value, float):
        return "0.0" if value == 0 else f"{value:.3g}"
    return str(value)


def _seconds(value: Any) -> str:
    return f"{value:.2f} s" if isinstance(value, (int, float)) else f"{value} s"


def _duration(value: float) -> str:
    """A run time in the unit that reads best: 41 µs, 1.10 ms, 2.31 s."""
    if value < 1e-3:
        return f"{value * 1e6:.0f} µs"
    if value < 1:
        return f"{value * 1e3:.2f} ms"
    return f"{value:.2f} s"


def _before_after(verification: Mapping[str, Any], before: str, after: str, show: Any) -> str:
    first, second = verification.get(before), verification.get(after)
    first_text = show(first) if first is not None else "?"
    second_text = show(second) if second is not None else "?"
    return f"{first_text} → {second_text}"


def verification_text(verification: Mapping[str, Any]) -> str:
    """One line of verification figures, printing only the keys that are present."""
    status = verification.get("status")
    label = "verified" if status in _PASSED else _LABELS.get(status, f"verification {status}")
    parts = []
    tried, passed = verification.get("inputs_tried"), verification.get("inputs_passed")
    if status in _PASSED and passed:
        label = f"{label} on {passed} input set{'s' if passed != 1 else ''}"
    elif tried:  # "0/0 inputs" says nothing: verification never got to run
        parts.append(
            f"{passed}/{tried} input sets passed"
            if passed is not None
            else f"{tried} input sets tried"
        )
    if verification.get("max_abs_diff") is not None:
        parts.append(f"max |Δ| {_number(verification['max_abs_diff'])}")
    if verification.get("eqns_before") is not None or verification.get("eqns_after") is not None:
        eqns = f"jaxpr eqns {_before_after(verification, 'eqns_before', 'eqns_after', str)}"
        totals = ("eqns_total_before", "eqns_total_after")
        if any(verification.get(key) is not None for key in totals):
            eqns += f" (total {_before_after(verification, *totals, str)})"
        parts.append(eqns)
    compile_keys = ("compile_s_before", "compile_s_after")
    if any(verification.get(key) is not None for key in compile_keys):
        parts.append(f"compile {_before_after(verification, *compile_keys, _seconds)}")
    run_keys = ("run_s_before", "run_s_after")
    if all(verification.get(key) is not None for key in run_keys):
        run = f"run {_before_after(verification, *run_keys, _duration)}"
        if verification.get("backend"):
            run += f" on {verification['backend']}"
        if verification.get("slower_at_run_time"):
            run += " (SLOWER at run time)"
        parts.append(run)
    if verification.get("seconds") is not None:
        parts.append(f"{_seconds(verification['seconds'])} verifying")
    reason = str(verification.get("reason") or "")
    if reason and status not in _PASSED:  # a pass speaks through its figures
        parts.append(reason.removeprefix(f"{label}:").strip())
    elif "inputs: " in reason:  # …and where its inputs came from, when some were recorded
        parts.append("inputs: " + reason.split("inputs: ", 1)[1].split(";")[0])
    if not parts:
        return label
    return f"{label} ({', '.join(parts)})" if status in _PASSED else f"{label}: {', '.join(parts)}"


def _source_excerpt(diagnostic: Diagnostic, lines: Sequence[str]) -> list[str]:
    if diagnostic.cell is not None or not 1 <= diagnostic.line <= len(lines):
        return []
    text = lines[diagnostic.line - 1].rstrip("\r\n")
    start = max(diagnostic.column - 1, 0)
    end = (
        diagnostic.span.end_column - 1 if diagnostic.span.end_line == diagnostic.line else len(text)
    )
    width = max(end - start, 1)
    shown = printable(text)
    if shown != text:  # escapes move the columns: the line alone, no caret under it
        return [f"    {shown}"]
    return [f"    {text}", "    " + " " * start + "^" * width]


_SEVERITY_COLORS = {"error": "1;31", "warning": "1;33", "info": "1;36"}


def _paint(text: str, sgr: str, color: bool) -> str:
    return f"\x1b[{sgr}m{text}\x1b[0m" if color else text


_MIN_HEAD = 24  # a concise message is never cut shorter than this ("cannot parse: …" stays whole)
_LONG = 130  # a concise message longer than this loses its why too, not only its advice


def concise_message(message: str) -> str:
    """What a finding is, without the advice: the message up to its first `; ` outside
    backticks, quotes and brackets; when that is still long, up to its first `: ` (the why).
    `jaxlint rule CODE` and the full format give the rest."""
    head = _cut_at(message, ";")
    return _cut_at(head, ":") if len(head) > _LONG else head


def _cut_at(message: str, separator: str) -> str:
    depth, quote = 0, ""
    for position, char in enumerate(message):
        if quote:
            quote = "" if char == quote else quote
        elif char in '`"':
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth = max(depth - 1, 0)
        elif (
            char == separator
            and depth == 0
            and message[position + 1 : position + 2] == " "
            and position >= _MIN_HEAD
        ):
            return message[:position]
    return message


def _concise(diagnostic: Diagnostic) -> str:
    from jaxlint.engine.registry import ENGINE_CODES

    # an engine finding's detail is the point ("cannot parse: '(' was never closed")
    if diagnostic.code in ENGINE_CODES:
        return diagnostic.message
    return concise_message(diagnostic.message)


def _marker(diagnostic: Diagnostic) -> str:
    fix = diagnostic.fix
    if fix is not None and fix.applied:
        return "[fixed] "
    return "[*] " if fixable(diagnostic) else ""


def _detail_line(diagnostic: Diagnostic, fixing: bool) -> str | None:
    """The concise format's second line: verification figures, or in a fix run why no fix."""
    fix = diagnostic.fix
    if fix is None:
        return None
    if fix.verification is not None:
        return verification_text(fix.verification)
    if fixing and fix.note and fix.note != SHOWN_IN_DIFF:
        return f"no fix: {fix.note}"
    return None


def format_diagnostic(
    diagnostic: Diagnostic,
    source_lines: Sequence[str] | None = None,
    *,
    color: bool = False,
    concise: bool = False,
    fixing: bool = False,
) -> str:
    """One diagnostic's lines. Full: location, severity, message and fix status, the source
    excerpt, verification figures. Concise: `path:line:col: CODE [*] what`, then the
    verification figures (or in a fix run why there is no fix). With `color`, ANSI colours for
    a terminal (location bold, code by severity, fix status green when fixable, figures dim)."""
    code = _paint(diagnostic.code, _SEVERITY_COLORS.get(diagnostic.severity, "1"), color)
    where = _paint(location(diagnostic), "1", color)
    if concise:
        marker = _marker(diagnostic)
        marker = _paint(marker.strip(), "32", color) + " " if marker else ""
        out = [f"{where}: {code} {marker}{printable(_concise(diagnostic))}"]
        detail = _detail_line(diagnostic, fixing)
    else:
        line = f"{where}: {code} [{diagnostic.severity}] {printable(diagnostic.message)}"
        if diagnostic.fix is not None:
            status = printable(fix_status(diagnostic.fix))  # a note may quote the checked code
            line += _paint(status, "32" if fixable(diagnostic) else "2", color)
        out = [line]
        verification = diagnostic.fix.verification if diagnostic.fix is not None else None
        detail = verification_text(verification) if verification is not None else None
    if source_lines is not None:
        out.extend(_source_excerpt(diagnostic, source_lines))
    if detail is not None:
        out.append(_paint(f"    {printable(detail)}", "2", color))
    if diagnostic.observed is not None:
        out.append(_paint(f"    {printable(observed_text(diagnostic.observed))}", "35", color))
    return "\n".join(out)


def observed_text(observed: Mapping[str, Any]) -> str:
    """`seen at run time: compiled 37 times: static argument `cfg` changed (…)`, or for a
    finding only the observation run made, where it was seen."""
    if observed.get("confirms_static_finding"):
        return f"seen at run time: {observed.get('summary', '')}"
    return f"seen at run time only, running {observed.get('command', '')!r}"


def format_text(
    diagnostics: Sequence[Diagnostic],
    sources: Mapping[str, Sequence[str]] | None = None,
    *,
    color: bool = False,
    concise: bool = False,
    fixing: bool = False,
) -> str:
    """All diagnostics (with source excerpts when `sources` maps path → lines)."""
    return "".join(
        format_diagnostic(
            d,
            sources.get(d.path) if sources is not None else None,
            color=color,
            concise=concise,
            fixing=fixing,
        )
        + "\n"
        for d in diagnostics
    )


def fixable(diagnostic: Diagnostic) -> bool:
    """Would `--fix` rewrite this finding: a safe or verified-kind fix not yet applied and not
    refused (a verified one only if verification passes), or one `--diff` showed?"""
    fix = diagnostic.fix
    return (
        fix is not None
        and fix.kind in ("safe", "verified")
        and not fix.applied
        and fix.note in (None, SHOWN_IN_DIFF)
    )


def format_statistics(diagnostics: Sequence[Diagnostic]) -> str:
    """Per-code counts, most frequent first: `count CODE [*] name`, `[*]` where --fix can
    rewrite some of them."""
    counts = Counter(d.code for d in diagnostics)
    if not counts:
        return ""
    can_fix = {d.code for d in diagnostics if fixable(d)}
    width = len(str(max(counts.values())))
    rows = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return "".join(
        f"{count:>{width}} {code} {'[*]' if code in can_fix else '[ ]'} {rule_name(code)}".rstrip()
        + "\n"
        for code, count in rows
    )


def format_fixes(applied: Sequence[Diagnostic]) -> str:
    """`--show-fixes`: `Fixed N findings:` and one `path:line:col: CODE description` each."""
    if not applied:
        return ""
    lines = [f"Fixed {len(applied)} finding{'' if len(applied) == 1 else 's'}:"]
    lines += [
        f"  {location(d)}: {d.code} {printable(d.fix.description) if d.fix else ''}".rstrip()
        for d in applied
    ]
    return "\n".join(lines) + "\n"


def summary(diagnostics: Sequence[Diagnostic], *, fixing: bool = False) -> str:
    """`Found N diagnostics (M fixed, K remaining).`, or `All checks passed!` for none."""
    total = len(diagnostics)
    if total == 0:
        return "All checks passed!"
    fixed = sum(1 for d in diagnostics if d.fix is not None and d.fix.applied)
    noun = "diagnostic" if total == 1 else "diagnostics"
    if fixing or fixed:
        return f"Found {total} {noun} ({fixed} fixed, {total - fixed} remaining)."
    found = f"Found {total} {noun}."
    candidates = [d for d in diagnostics if fixable(d)]
    if not candidates:
        return found
    unverified = sum(
        1
        for d in candidates
        if d.fix is not None and d.fix.kind == "verified" and d.fix.note != SHOWN_IN_DIFF
    )
    after = f" ({unverified} if verification with JAX passes)" if unverified else ""
    return f"{found}\n[*] {len(candidates)} fixable with --fix{after}."
