"""The formatters (jaxlint.output): text, json, sarif, github."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jaxlint.diagnostics import Diagnostic, Fix, Span
from jaxlint.engine.registry import all_rules, known_codes
from jaxlint.output import formatter, rule_name
from jaxlint.output.github import format_github
from jaxlint.output.json_format import format_json, format_json_statistics
from jaxlint.output.sarif import format_sarif
from jaxlint.output.text import (
    concise_message,
    format_statistics,
    format_text,
    summary,
    verification_text,
)

VERIFIED = {
    "inputs_tried": 3,
    "inputs_passed": 3,
    "max_abs_diff": 0.0,
    "eqns_before": 301,
    "eqns_after": 1,
    "eqns_total_before": 301,
    "eqns_total_after": 2,
    "compile_s_before": 1.5811,
    "compile_s_after": 0.0412,
    "status": "passed",
}


def diag(
    code: str = "JAX201",
    line: int = 7,
    column: int = 5,
    *,
    severity: str = "warning",
    message: str = "print in traced code",
    path: str = "pkg/model.py",
    fix: Fix | None = None,
    end: tuple[int, int] | None = None,
    cell: int | None = None,
) -> Diagnostic:
    end_line, end_column = end if end is not None else (line, column + 8)
    return Diagnostic(
        code=code,
        severity=severity,  # type: ignore[arg-type]
        message=message,
        path=path,
        span=Span(line, column, end_line, end_column),
        fix=fix,
        cell=cell,
    )


# ---------------------------------------------------------------- text


def test_text_line_without_fix() -> None:
    assert format_text([diag()]) == "pkg/model.py:7:5: JAX201 [warning] print in traced code\n"


@pytest.mark.parametrize(
    "fix, suffix",
    [
        (Fix("safe", "use .at[]", applied=True), " (fix: safe, applied)"),
        (Fix("suggestion", "use jnp.where"), " (fix: suggestion, available)"),
        (
            Fix("verified", "scan", note="not verified: install jaxlint[verify]"),
            " (fix: verified, not applied: not verified: install jaxlint[verify])",
        ),
    ],
)
def test_text_fix_status(fix: Fix, suffix: str) -> None:
    expected = f"pkg/model.py:7:5: JAX201 [warning] print in traced code{suffix}\n"
    assert format_text([diag(fix=fix)]) == expected


@pytest.mark.parametrize(
    "message, expected",
    [
        (  # the advice after `; ` goes, and from a long message the why after `: ` too
            "Python loop over `range(n)` (length known only at trace time) unrolls its 3-statement"
            " body once per element: the jaxpr and compile time grow with the array length; use"
            " jax.lax.scan",
            "Python loop over `range(n)` (length known only at trace time) unrolls its "
            "3-statement body once per element",
        ),
        (
            "`@jax.jit` on method `Scale.apply`: `self` is not a JAX type, so every call raises"
            " TypeError; jit a module-level helper",
            "`@jax.jit` on method `Scale.apply`: `self` is not a JAX type, so every call raises"
            " TypeError",
        ),
        (  # `; ` and `: ` inside backticks, quotes and brackets are part of what is flagged
            '`f(a; b): c` on `x`, a traced value (see: this; that) in "g: h"; use jnp.where',
            '`f(a; b): c` on `x`, a traced value (see: this; that) in "g: h"',
        ),
        ("cannot parse: '(' was never closed", "cannot parse: '(' was never closed"),  # too short
        ("BAD is bad", "BAD is bad"),
    ],
)
def test_concise_message_is_what_was_found(message: str, expected: str) -> None:
    assert concise_message(message) == expected


def test_concise_lines_mark_fixes_and_put_figures_below() -> None:
    pending = diag(fix=Fix("verified", "scan"))
    applied = diag(fix=Fix("verified", "scan", applied=True, verification=VERIFIED))
    refused = diag(fix=Fix("suggestion", "x", note="print(..., end=...) without a newline"))
    assert format_text([pending, applied, refused], concise=True, fixing=True) == (
        "pkg/model.py:7:5: JAX201 [*] print in traced code\n"
        "pkg/model.py:7:5: JAX201 [fixed] print in traced code\n"
        f"    {verification_text(VERIFIED)}\n"
        "pkg/model.py:7:5: JAX201 print in traced code\n"
        "    no fix: print(..., end=...) without a newline\n"
    )
    assert format_text([refused], concise=True) == "pkg/model.py:7:5: JAX201 print in traced code\n"


def test_text_verification_line() -> None:
    fix = Fix("verified", "scan", applied=True, verification=VERIFIED)
    assert format_text([diag("JAX101", 9, 5, fix=fix, message="loop")]) == (
        "pkg/model.py:9:5: JAX101 [warning] loop (fix: verified, applied)\n"
        "    verified on 3 input sets (max |Δ| 0.0, jaxpr eqns 301 → 1 (total 301 → 2),"
        " compile 1.58 s → 0.04 s)\n"
    )


@pytest.mark.parametrize(
    "verification, expected",
    [
        ({}, "verified"),
        ({"inputs_tried": 3, "inputs_passed": 1}, "verified on 1 input set"),
        ({"inputs_tried": 2}, "verified (2 input sets tried)"),
        (
            {
                "status": "unverifiable",
                "inputs_tried": 0,
                "inputs_passed": 0,
                "reason": "no inputs",
            },
            "not verified: no inputs",
        ),
        ({"max_abs_diff": 1.1920929e-07}, "verified (max |Δ| 1.19e-07)"),
        ({"eqns_before": 30, "eqns_after": 3}, "verified (jaxpr eqns 30 → 3)"),
        ({"compile_s_before": 2.0, "compile_s_after": None}, "verified (compile 2.00 s → ?)"),
        (
            {
                "status": "failed",
                "inputs_tried": 3,
                "inputs_passed": 2,
                "max_abs_diff": 0.5,
                "reason": "outputs differ",
            },
            "verification failed: 2/3 input sets passed, max |Δ| 0.5, outputs differ",
        ),
        (
            {"status": "skipped", "reason": "no inputs found"},
            "verification skipped: no inputs found",
        ),
        ({"status": "timeout", "reason": "over 60 s"}, "verification timed out: over 60 s"),
        (
            {"status": "jax-missing", "reason": "not verified: install jaxlint[verify]"},
            "not verified: install jaxlint[verify]",
        ),
        (
            {"status": "passed", "inputs_tried": 3, "inputs_passed": 3, "reason": "all match"},
            "verified on 3 input sets",
        ),
    ],
)
def test_verification_text_prints_what_is_present(verification: dict, expected: str) -> None:
    assert verification_text(verification) == expected


def test_text_notebook_cell_location() -> None:
    line = format_text([diag(path="nb.ipynb", line=2, column=1, cell=3)])
    assert line == "nb.ipynb:cell 3:2:1: JAX201 [warning] print in traced code\n"


def test_text_show_source_underlines_the_span() -> None:
    lines = ["import jax\n", "\n", "    print(x)\n"]
    diagnostic = diag(line=3, column=5, end=(3, 13))
    assert format_text([diagnostic], {"pkg/model.py": lines}) == (
        "pkg/model.py:3:5: JAX201 [warning] print in traced code\n"
        "        print(x)\n"
        "        ^^^^^^^^\n"
    )


def test_text_of_nothing_is_empty() -> None:
    assert format_text([]) == ""


@pytest.mark.parametrize(
    "diagnostics, fixing, expected",
    [
        ([], False, "All checks passed!"),
        ([diag()], False, "Found 1 diagnostic."),
        ([diag(), diag(line=9)], False, "Found 2 diagnostics."),
        (
            [diag(fix=Fix("safe", "x")), diag(fix=Fix("verified", "y")), diag(line=9)],
            False,
            "Found 3 diagnostics.\n[*] 2 fixable with --fix (1 if verification with JAX passes).",
        ),
        (
            [diag(fix=Fix("verified", "y", note="verification failed: values differ"))],
            False,
            "Found 1 diagnostic.",
        ),
        ([diag()], True, "Found 1 diagnostic (0 fixed, 1 remaining)."),
        (
            [diag(fix=Fix("safe", "x", applied=True)), diag(line=9)],
            True,
            "Found 2 diagnostics (1 fixed, 1 remaining).",
        ),
    ],
)
def test_summary(diagnostics: list[Diagnostic], fixing: bool, expected: str) -> None:
    assert summary(diagnostics, fixing=fixing) == expected


def test_statistics_counts_per_code_most_frequent_first() -> None:
    diagnostics = [diag("JAX999"), diag("JAX000", severity="error")] + [diag("JAX999")] * 10
    assert format_statistics(diagnostics) == "11 JAX999 [ ]\n 1 JAX000 [ ] syntax-error\n"


def test_rule_name() -> None:
    assert rule_name("JAX000") == "syntax-error"
    assert rule_name("JAX999") == ""
    for code, rule in all_rules().items():
        assert rule_name(code) == rule.name


# ---------------------------------------------------------------- json


def test_json_is_one_array_of_spec_objects() -> None:
    fix = Fix("verified", "scan", applied=True, verification=VERIFIED)
    diagnostics = [diag(), diag("JAX101", 9, 5, fix=fix)]
    parsed = json.loads(format_json(diagnostics))
    assert parsed == [d.to_json() for d in diagnostics]
    required = {"code", "severity", "message", "path", "line", "column", "end_line", "end_column"}
    for element in parsed:
        assert required <= element.keys()
    assert parsed[0]["fix"] is None
    assert parsed[1]["fix"]["kind"] == "verified"
    assert parsed[1]["fix"]["applied"] is True
    assert parsed[1]["fix"]["verification"]["eqns_after"] == 1


def test_json_of_nothing_is_an_empty_array() -> None:
    assert json.loads(format_json([])) == []


def test_json_keeps_unicode_readable() -> None:
    assert "Δ" in format_json([diag(message="max |Δ|")])


def test_json_statistics() -> None:
    diagnostics = [diag(), diag(fix=Fix("safe", "x", applied=True)), diag("JAX000")]
    assert json.loads(format_json_statistics(diagnostics)) == [
        {"code": "JAX201", "name": rule_name("JAX201"), "count": 2, "fixed": 1, "fixable": 0},
        {"code": "JAX000", "name": "syntax-error", "count": 1, "fixed": 0, "fixable": 0},
    ]


# ---------------------------------------------------------------- sarif

SARIF_LEVELS = {"error", "warning", "note", "none"}


def _sarif(diagnostics: list[Diagnostic]) -> dict:
    return json.loads(format_sarif(diagnostics))


def test_sarif_log_structure() -> None:
    log = _sarif([diag()])
    assert log["$schema"].endswith("sarif-2.1.0.json")
    assert log["version"] == "2.1.0"
    assert len(log["runs"]) == 1
    driver = log["runs"][0]["tool"]["driver"]
    assert driver["name"] == "jaxlint"
    assert isinstance(driver["version"], str) and driver["version"]
    assert driver["informationUri"].startswith("https://")
    assert [rule["id"] for rule in driver["rules"]] == known_codes()


def test_sarif_rules_describe_every_registered_rule() -> None:
    rules = {rule["id"]: rule for rule in _sarif([])["runs"][0]["tool"]["driver"]["rules"]}
    assert rules["JAX000"]["name"] == "syntax-error"
    assert rules["JAX000"]["defaultConfiguration"]["level"] == "error"
    expected_level = {"error": "error", "warning": "warning", "info": "note"}
    for code, rule in all_rules().items():
        descriptor = rules[code]
        assert descriptor["name"] == rule.name
        assert descriptor["shortDescription"]["text"] == rule.summary
        assert descriptor["defaultConfiguration"]["level"] == expected_level[rule.severity]
    for descriptor in rules.values():
        assert descriptor["shortDescription"]["text"]
        if "fullDescription" in descriptor:
            assert descriptor["fullDescription"]["text"]
            assert descriptor["help"]["markdown"]


def test_sarif_rule_help_comes_from_the_rule_page(monkeypatch) -> None:
    from jaxlint.engine import registry

    page = "# JAX000: syntax-error\n\n## What it does\n\nReports a file that\ncannot be parsed.\n"
    monkeypatch.setattr(registry, "rule_page", lambda code: page if code == "JAX000" else None)
    rules = {rule["id"]: rule for rule in _sarif([])["runs"][0]["tool"]["driver"]["rules"]}
    assert rules["JAX000"]["fullDescription"] == {"text": "Reports a file that cannot be parsed."}
    assert rules["JAX000"]["help"] == {"text": page, "markdown": page}


def test_sarif_results() -> None:
    diagnostics = [
        diag("JAX000", 1, 1, severity="error", message="cannot parse", end=(1, 5)),
        diag("JAX201", 7, 5, severity="warning", end=(8, 2), fix=Fix("safe", "x", applied=True)),
        diag("JAX303", 3, 1, severity="info", path="dir with space/m.py"),
    ]
    log = _sarif(diagnostics)
    run = log["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    results = run["results"]
    assert [r["ruleId"] for r in results] == ["JAX000", "JAX201", "JAX303"]
    assert [r["level"] for r in results] == ["error", "warning", "note"]
    assert [r["message"]["text"] for r in results] == [
        "cannot parse",
        "print in traced code",
        "print in traced code",
    ]
    regions = [r["locations"][0]["physicalLocation"]["region"] for r in results]
    assert regions == [
        {"startLine": 1, "startColumn": 1, "endLine": 1, "endColumn": 5},
        {"startLine": 7, "startColumn": 5, "endLine": 8, "endColumn": 2},
        {"startLine": 3, "startColumn": 1, "endLine": 3, "endColumn": 9},
    ]
    uris = [r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results]
    assert uris == ["pkg/model.py", "pkg/model.py", "dir%20with%20space/m.py"]
    for result in results:
        assert result["level"] in SARIF_LEVELS
        location = result["locations"][0]["physicalLocation"]["artifactLocation"]
        assert location["uriBaseId"] in run["originalUriBaseIds"]
        if "ruleIndex" in result:
            assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
    assert results[0]["ruleIndex"] == [rule["id"] for rule in rules].index("JAX000")
    assert results[1]["properties"]["fix"]["applied"] is True
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"].startswith("file://")
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"].endswith("/")


def test_sarif_absolute_paths_become_relative_to_the_working_folder(
    tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.chdir(tmp_path)
    inside = str(tmp_path / "src" / "a.py")
    outside = "/elsewhere/b.py"
    results = _sarif([diag(path=inside), diag(path=outside)])["runs"][0]["results"]
    locations = [r["locations"][0]["physicalLocation"]["artifactLocation"] for r in results]
    assert locations == [
        {"uri": "src/a.py", "uriBaseId": "%SRCROOT%"},
        {"uri": "file:///elsewhere/b.py"},
    ]


def test_sarif_region_never_ends_before_it_starts() -> None:
    region = _sarif([diag(line=4, column=9, end=(4, 3))])["runs"][0]["results"][0]["locations"][0]
    assert region["physicalLocation"]["region"]["endColumn"] == 9


# ---------------------------------------------------------------- github


def test_github_annotation() -> None:
    assert format_github([diag(end=(7, 13))]) == (
        "::warning file=pkg/model.py,line=7,col=5,endLine=7,endColumn=13,title=JAX201"
        "::print in traced code\n"
    )


@pytest.mark.parametrize("severity, command", [("error", "error"), ("info", "notice")])
def test_github_levels(severity: str, command: str) -> None:
    assert format_github([diag(severity=severity)]).startswith(f"::{command} file=")


def test_github_escapes_data_and_properties() -> None:
    message = "100% wrong\r\nsecond line"
    line = format_github([diag(path="a,b:c%.py", message=message)])
    assert line == (
        "::warning file=a%2Cb%3Ac%25.py,line=7,col=5,endLine=7,endColumn=13,title=JAX201"
        "::100%25 wrong%0D%0Asecond line\n"
    )


def test_github_names_the_notebook_cell() -> None:
    line = format_github([diag(path="nb.ipynb", cell=2)])
    assert line.endswith("::cell 2: print in traced code\n")


def test_formatter_lookup() -> None:
    assert formatter("github")([diag()]) == format_github([diag()])
    assert formatter("json")([]) == format_json([])
