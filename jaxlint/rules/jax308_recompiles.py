"""JAX308 recompiled-at-run-time: a jitted function traced and compiled again and again.

Reported only from an observation run (`jaxlint check --observe CMD`, jaxlint.observe): which
call passes a new static value or switches a Python scalar for an array is a fact of the run,
not of the text. The rule declares the code, its name and severity, and looks at no code.
"""

from __future__ import annotations

from jaxlint.analysis.unit_summary import UnitSummary
from jaxlint.engine.rule import Rule


class RecompiledAtRunTime(Rule):
    code = "JAX308"
    name = "recompiled-at-run-time"
    severity = "warning"
    summary = "a jitted function compiled again and again in one run (seen with --observe)"
    observed_only = True

    @classmethod
    def may_apply(cls, unit: UnitSummary) -> bool:
        return False  # nothing to read in the text: jaxlint.observe reports it
