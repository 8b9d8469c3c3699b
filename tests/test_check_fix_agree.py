"""`check` and the fix pipeline see the same analysis: on every fixture, the whole-module
analysis the fix pipeline starts from (one libcst tree of the file) reports exactly the findings
`check` reports (one libcst tree per traced unit)."""

from __future__ import annotations

from pathlib import Path

import pytest

from jaxlint.engine.config import Config
from jaxlint.engine.lint import analyze_module, enabled_rules, to_diagnostics
from jaxlint.fixes.pipeline import lint_source
from jaxlint.fixes.status import fix_status_for_check
from tests.conftest import FIXTURES

PATHS = sorted(
    [*FIXTURES.glob("rules/*.py"), *FIXTURES.glob("seed/*.py"), *FIXTURES.glob("fix/*.in.py")]
)


@pytest.mark.parametrize("path", PATHS, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_check_and_fix_report_the_same_findings(path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    config = Config(select=("JAX",))
    checked = lint_source(source, str(path), config)
    analyzed, _ = analyze_module(source, str(path), config, enabled_rules(config, str(path)))
    # fixes included: a fix that --fix makes must show in check (it returns check's result when
    # check sees no edit)
    whole = to_diagnostics(analyzed, str(path), config, fixes=fix_status_for_check)
    assert _keys(whole) == _keys(checked.diagnostics)


def _keys(diagnostics) -> list[tuple]:
    return sorted(
        (d.code, d.line, d.column, d.message, d.fix.kind if d.fix else "", d.fix and d.fix.note)
        for d in diagnostics
    )
