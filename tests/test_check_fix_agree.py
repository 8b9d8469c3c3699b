"""`check` and the fix pipeline see the same analysis: on every fixture, the fix pipeline (with
nothing applied: no verification) reports exactly the findings `check` reports."""

from __future__ import annotations

from pathlib import Path

import pytest

from jaxlint.engine.config import Config
from jaxlint.fixes.pipeline import lint_source
from tests.conftest import FIXTURES

PATHS = sorted(
    [*FIXTURES.glob("rules/*.py"), *FIXTURES.glob("seed/*.py"), *FIXTURES.glob("fix/*.in.py")]
)


@pytest.mark.parametrize("path", PATHS, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_check_and_fix_report_the_same_findings(path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    config = Config(select=("JAX",))
    checked = lint_source(source, str(path), config)
    fixed = lint_source(source, str(path), config, fix=True, verify=False)
    assert fixed.fixed_source is None, "nothing may be applied without verification"
    assert _keys(fixed.diagnostics) == _keys(checked.diagnostics)


def _keys(diagnostics) -> list[tuple]:
    return sorted((d.code, d.line, d.column, d.message) for d in diagnostics)
