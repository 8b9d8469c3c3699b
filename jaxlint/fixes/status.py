"""What became of a finding's fix, as reported in `Diagnostic.fix` (light: no libcst codemods).

Checking imports this module only; `jaxlint.fixes.pipeline` (which applies fixes) is loaded
when fixing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from jaxlint.analysis.cst_text import code_of
from jaxlint.diagnostics import Fix
from jaxlint.engine.edits import Edit, Refusal
from jaxlint.engine.rule import Finding

# (rule code, function name, the node's text): a finding, the same from one round to the next
FindingKey = tuple[str, str, str]


@dataclass
class Attempt:
    """What happened to one finding's edit in some round."""

    applied: bool
    note: str | None
    verification: dict[str, Any] | None
    source: str = ""  # the text the attempt was made on: retried once that text changes


def fix_status_for_check(finding: Finding) -> Fix | None:
    """The `fix` of a diagnostic when only checking: what --fix could do, and why not."""
    return fix_status(finding, {})


def fix_status(finding: Finding, attempts: dict[FindingKey, Attempt]) -> Fix | None:
    rule = finding.rule
    if rule.fix_kind is None:
        return None
    description = rule.summary
    if isinstance(finding.fix, Refusal):
        return Fix(kind="suggestion", description=description, note=finding.fix.reason)
    if isinstance(finding.fix, Edit):
        attempt = attempts.get(finding_key(finding))
        if attempt is not None:
            return Fix(
                kind=finding.fix_kind or "safe",
                description=finding.fix.description,
                applied=False,
                verification=attempt.verification,
                note=attempt.note,
            )
        return Fix(kind=finding.fix_kind or "safe", description=finding.fix.description)
    return None  # no mechanical rewrite for this finding: its message gives the advice


def finding_key(finding: Finding) -> FindingKey:
    function = finding.function.name if finding.function is not None else ""
    node_text = code_of(finding.node, limit=400) if finding.node is not None else finding.message
    return (finding.rule.code, function, node_text)
