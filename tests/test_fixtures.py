"""Every fixture's `# expect:` comments are exactly what jaxlint reports, no more, no less."""

from __future__ import annotations

import pytest

from jaxlint.engine.config import Config
from jaxlint.engine.registry import default_codes
from jaxlint.fixes.pipeline import lint_source
from tests.conftest import FIXTURES, codes_and_lines, expected_findings

# fixtures/project is a multi-module project: its findings need its index (tests/test_surfaces.py)
LINT_FIXTURES = sorted(
    p for p in FIXTURES.rglob("*.py") if p.relative_to(FIXTURES).parts[0] not in ("fix", "project")
)


@pytest.mark.parametrize("path", LINT_FIXTURES, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_fixture_reports_exactly_its_expectations(path):
    source = path.read_text(encoding="utf-8")
    diagnostics = lint_source(source, str(path), Config(select=("JAX",))).diagnostics
    assert codes_and_lines(diagnostics) == expected_findings(source)


@pytest.mark.parametrize("path", LINT_FIXTURES, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_default_selection_leaves_out_opt_in_rules(path):
    source = path.read_text(encoding="utf-8")
    diagnostics = lint_source(source, str(path), Config()).diagnostics
    default = default_codes()
    expected = {(code, line) for code, line in expected_findings(source) if code in default}
    assert codes_and_lines(diagnostics) == expected


def test_seed_findings_are_the_issue_list():
    """The seed hazards: two unrolled loops, the print in selu, jit on ScaleClass.apply."""
    found = set()
    for path in sorted((FIXTURES / "seed").glob("*.py")):
        source = path.read_text(encoding="utf-8")
        for diagnostic in lint_source(source, str(path), Config()).diagnostics:
            found.add(
                (path.name, diagnostic.code, source.splitlines()[diagnostic.line - 1].strip())
            )
    assert found == {
        ("cumulative_sum.py", "JAX101", "for i in range(x.shape[0]):  # expect: JAX101"),
        ("cumulative_sum.py", "JAX101", "for i in range(len(j)):  # expect: JAX101"),
        ("jit_and_aot.py", "JAX201", 'print("Function run")  # expect: JAX201'),
        ("scale_class.py", "JAX301", "@jax.jit  # expect: JAX301"),
    }


def test_every_rule_has_positive_and_negative_fixtures():
    """fixtures/rules/<code>_*.py: at least 5 findings of the rule and 5 clean functions."""
    from jaxlint.engine.registry import all_rules

    for code, rule in all_rules().items():
        if rule.observed_only:  # its fixtures run: fixtures/observe (tests/test_observe.py)
            observed = sorted((FIXTURES / "observe").rglob("*.py"))
            files = [f for f in observed if f"# seen: {code}" in f.read_text(encoding="utf-8")]
        else:
            files = sorted((FIXTURES / "rules").glob(f"{code.lower()}_*.py"))
        assert files, f"no fixture file for {code}"
        text = "\n".join(f.read_text(encoding="utf-8") for f in files)
        positives = sum(1 for c, _ in expected_findings(text) if c == code)
        positives += text.count(f"# seen: {code}") if rule.observed_only else 0
        negatives = text.count("# ok:")
        assert positives >= 5, f"{code}: only {positives} positive cases"
        assert negatives >= 5, f"{code}: only {negatives} negative cases (mark them `# ok: why`)"
