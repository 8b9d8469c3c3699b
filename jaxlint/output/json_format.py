"""`--output-format json`: one JSON array of SPEC §6 diagnostic objects."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence

from jaxlint.diagnostics import Diagnostic
from jaxlint.output.names import rule_name
from jaxlint.output.text import fixable


def format_json(diagnostics: Sequence[Diagnostic]) -> str:
    """The diagnostics as one JSON array (UTF-8 text, newline-terminated)."""
    return json.dumps([d.to_json() for d in diagnostics], indent=2, ensure_ascii=False) + "\n"


def format_json_statistics(diagnostics: Sequence[Diagnostic]) -> str:
    """Per-code counts as a JSON array of {code, name, count, fixed, fixable}, most frequent
    first (`fixable`: what `--fix` could still rewrite)."""
    counts = Counter(d.code for d in diagnostics)
    fixed = Counter(d.code for d in diagnostics if d.fix is not None and d.fix.applied)
    can_fix = Counter(d.code for d in diagnostics if fixable(d))
    rows = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    stats = [
        {
            "code": code,
            "name": rule_name(code),
            "count": count,
            "fixed": fixed[code],
            "fixable": can_fix[code],
        }
        for code, count in rows
    ]
    return json.dumps(stats, indent=2) + "\n"
