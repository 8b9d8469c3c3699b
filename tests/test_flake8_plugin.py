"""The flake8 plugin (jaxlint.flake8_plugin), through the real `flake8` executable.

`flake8 --select JAX PATHS` must list exactly what `jaxlint check --select JAX PATHS` lists;
flake8's default selection must leave the opt-in rules out, as the CLI's does.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from jaxlint.flake8_plugin import JaxlintChecker, opt_in_codes

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
# path|line|column|code: flake8's own columns are 1-based on output, as jaxlint's are.
FLAKE8_FORMAT = "%(path)s|%(row)d|%(col)d|%(code)s"

pytest.importorskip("flake8")

Finding = tuple[str, int, int, str]


def run_flake8(
    *args: str, cwd: Path = ROOT, stdin: str | None = None
) -> subprocess.CompletedProcess:
    """The real flake8 (ignoring any flake8 config around), with our plain format."""
    return subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated", f"--format={FLAKE8_FORMAT}", *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=300,
    )


def flake8_findings(*args: str, cwd: Path = ROOT, stdin: str | None = None) -> set[Finding]:
    result = run_flake8(*args, cwd=cwd, stdin=stdin)
    assert result.returncode in (0, 1), result.stderr
    found = set()
    for line in result.stdout.splitlines():
        path, row, col, code = line.split("|")
        found.add((os.path.normpath(path), int(row), int(col), code))
    return found


def jaxlint_findings(*args: str, cwd: Path = ROOT, stdin: str | None = None) -> set[Finding]:
    result = subprocess.run(
        [sys.executable, "-m", "jaxlint", "check", "--output-format", "json", *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode in (0, 1), result.stderr
    return {
        (os.path.normpath(d["path"]), d["line"], d["column"], d["code"])
        for d in json.loads(result.stdout)
        if d.get("cell") is None  # flake8 does not read notebooks
    }


def codes(findings: set[Finding]) -> set[str]:
    return {code for _, _, _, code in findings}


@pytest.mark.parametrize("folder", ["fixtures/seed", "fixtures/rules"])
def test_select_jax_lists_what_the_cli_lists(folder: str) -> None:
    # fixtures/rules holds one realistic file per rule family (the per-rule fixtures).
    expected = jaxlint_findings("--select", "JAX", folder)
    assert expected, f"no findings in {folder}: the comparison would prove nothing"
    assert flake8_findings("--select", "JAX", folder) == expected


def test_default_selection_matches_the_cli_default_and_leaves_out_opt_in_rules() -> None:
    # No --select: flake8's default selection (its own codes plus every plugin's prefix).
    shown = {f for f in flake8_findings("fixtures") if f[3].startswith("JAX")}
    assert shown == jaxlint_findings("fixtures")
    assert "JAX303" in codes(jaxlint_findings("--select", "JAX", "fixtures/seed"))
    assert not codes(shown) & set(opt_in_codes())
    assert {"JAX101", "JAX201", "JAX301"} <= codes(shown)


def test_opt_in_rules_stay_out_when_the_user_only_sets_ignore() -> None:
    # `--ignore` replaces flake8's default ignore list, the one that holds our opt-in codes.
    shown = flake8_findings("--ignore", "E501,W503", "fixtures/seed")
    assert "JAX303" not in codes(shown)
    assert "JAX101" in codes(shown)


@pytest.mark.parametrize(
    ("option", "selector"), [("--extend-select", "JAX303"), ("--select", "JAX3")]
)
def test_naming_an_opt_in_rule_shows_it(option: str, selector: str) -> None:
    # (`--select JAX` is the first test's case.)
    assert "JAX303" in codes(flake8_findings(option, selector, "fixtures/seed"))


def test_select_one_code_shows_only_that_code() -> None:
    shown = flake8_findings("--select", "JAX101", "fixtures/seed")
    assert shown
    assert codes(shown) == {"JAX101"}


def test_ignore_removes_codes_from_select_jax() -> None:
    shown = flake8_findings("--select", "JAX", "--ignore", "JAX3", "fixtures/seed")
    assert codes(shown) == {"JAX101", "JAX201"}


HAZARDS = textwrap.dedent(
    """\
    import jax
    import jax.numpy as jnp


    @jax.jit
    def total(x):
        acc = 0.0
        for i in range(x.shape[0]):  # noqa: JAX101
            acc += x[i]
        print(acc)
        return acc
    """
)


def test_noqa_is_honoured(tmp_path: Path) -> None:
    (tmp_path / "model.py").write_text(HAZARDS)
    assert flake8_findings("--select", "JAX", "model.py", cwd=tmp_path) == {
        ("model.py", 10, 5, "JAX201")
    }
    # flake8's own switch shows the suppressed finding again.
    assert flake8_findings("--select", "JAX", "--disable-noqa", "model.py", cwd=tmp_path) == {
        ("model.py", 8, 5, "JAX101"),
        ("model.py", 10, 5, "JAX201"),
    }


def test_stdin_is_linted_from_the_text_flake8_read(tmp_path: Path) -> None:
    source = HAZARDS.replace("  # noqa: JAX101", "")
    shown = flake8_findings("--select", "JAX", "-", cwd=tmp_path, stdin=source)
    assert shown == {("stdin", 8, 5, "JAX101"), ("stdin", 10, 5, "JAX201")}
    named = flake8_findings(
        "--select", "JAX", "--stdin-display-name", "model.py", "-", cwd=tmp_path, stdin=source
    )
    cli = jaxlint_findings(
        "--select", "JAX", "--stdin-filename", "model.py", "-", cwd=tmp_path, stdin=source
    )
    assert named == cli


def test_unparseable_file_is_flake8s_e999_only(tmp_path: Path) -> None:
    (tmp_path / "broken.py").write_text("import jax\n\n@jax.jit\ndef f(x:\n    return x\n")
    shown = flake8_findings("--select", "E,JAX", "broken.py", cwd=tmp_path)
    assert codes(shown) == {"E999"}
    assert codes(jaxlint_findings("broken.py", cwd=tmp_path)) == {"JAX000"}


def test_file_config_settings_apply_but_flake8_decides_selection(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.jaxlint]\njit-decorators = ["fastlib.jit"]\nselect = ["JAX2"]\n'
    )
    (tmp_path / "model.py").write_text(
        textwrap.dedent(
            """\
            import fastlib
            import jax


            @fastlib.jit
            def step(x):
                print(x)
                for row in x:
                    x = x + row
                return x
            """
        )
    )
    shown = flake8_findings("--select", "JAX", "model.py", cwd=tmp_path)
    assert ("model.py", 7, 5, "JAX201") in shown  # jit-decorators from [tool.jaxlint]
    assert "JAX101" in codes(shown)  # the file's `select` is the CLI's; flake8 has its own


def test_plugin_is_registered_with_flake8() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "flake8", "--version"], capture_output=True, text=True
    )
    assert f"jaxlint: {JaxlintChecker.version}" in result.stdout


def test_checker_yields_zero_based_columns() -> None:
    lines = HAZARDS.replace("  # noqa: JAX101", "").splitlines(keepends=True)
    checker = JaxlintChecker(None, "model.py", lines)  # type: ignore[arg-type]
    reports = list(checker.run())
    assert [(line, column, text.split()[0]) for line, column, text, _ in reports] == [
        (8, 4, "JAX101"),
        (10, 4, "JAX201"),
    ]
    assert all(kind is JaxlintChecker for *_, kind in reports)


def test_bad_config_is_a_one_line_flake8_error(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.jaxlint]\nbogus = 1\n")
    (tmp_path / "model.py").write_text("import jax\n")
    result = run_flake8("--select", "JAX", "model.py", cwd=tmp_path)
    assert result.returncode == 1
    assert "unknown key(s) bogus" in result.stdout + result.stderr
    assert "Traceback" not in result.stderr
