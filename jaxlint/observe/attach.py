"""Join what an observation run saw to a file's static findings.

A static finding of the same rule on one of the lines the hazard concerns is *confirmed*: it
carries the run's evidence (`Diagnostic.observed`). A hazard no static finding covers becomes a
finding of its own at the line the run showed, under the rule whose hazard it is, unless that
rule is not selected for the file or a `# noqa` there silences it.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from jaxlint.diagnostics import Diagnostic, Span
from jaxlint.engine import suppression
from jaxlint.engine.config import Config
from jaxlint.engine.registry import all_rules
from jaxlint.observe.evidence import Seen


def evidence(seen: Seen, command: str, confirms: bool) -> dict[str, Any]:
    """The `observed` object of a finding (SPEC §6): what ran, what it showed."""
    return {
        "kind": seen.kind,
        "summary": seen.summary,
        "count": seen.count,
        "command": command,
        "confirms_static_finding": confirms,
        "details": dict(seen.details),
    }


def with_evidence(
    diagnostics: Sequence[Diagnostic],
    seen: Sequence[Seen],
    *,
    path: str,
    source: str,
    config: Config,
    command: str,
) -> list[Diagnostic]:
    """`diagnostics` with the run's evidence on those it confirms, and a finding for each
    hazard only the run showed, in report order."""
    out = list(diagnostics)
    added = False
    lines = source.splitlines()
    functions = _function_lines(source)
    enabled = config.enabled_codes(path)
    rules = all_rules()
    for hazard in seen:
        near = set(hazard.near)
        if hazard.in_function:
            near |= functions.get(hazard.line, set())
        matched = [i for i, d in enumerate(out) if d.code == hazard.code and d.line in near]
        for i in matched:
            out[i] = replace(out[i], observed=_joined(out[i].observed, hazard, command))
        if matched or hazard.code not in enabled or hazard.code not in rules:
            continue
        if suppression.is_suppressed(hazard.code, hazard.line, lines):
            continue
        if any(d.code == hazard.code and d.line == hazard.line for d in out):
            continue  # a second event at a finding already made from the run
        text = lines[hazard.line - 1] if 0 < hazard.line <= len(lines) else ""
        column = len(text) - len(text.lstrip()) + 1
        added = True
        out.append(
            Diagnostic(
                hazard.code,
                rules[hazard.code].severity,
                hazard.message,
                path,
                Span(hazard.line, column, hazard.line, len(text) + 1),
                observed=evidence(hazard, command, False),
            )
        )
    return sorted(out, key=Diagnostic.sort_key) if added else out


def _joined(earlier: Mapping[str, Any] | None, hazard: Seen, command: str) -> dict[str, Any]:
    """A confirmed finding's evidence; a second event of the same hazard (a leaked tracer kept,
    then used) adds its summary."""
    if earlier is None:
        return evidence(hazard, command, True)
    joined = dict(earlier)
    joined["summary"] = f"{earlier['summary']}; {hazard.summary}"
    joined["count"] = earlier["count"] + hazard.count
    return joined


def _function_lines(source: str) -> dict[int, set[int]]:
    """For each function, keyed by its first line (its first decorator's, as JAX reports it)
    and by its `def` line: the lines it spans."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return {}
    spans: dict[int, set[int]] = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            lines = set(range(first, (node.end_lineno or node.lineno) + 1))
            spans[first] = spans[node.lineno] = lines
    return spans
