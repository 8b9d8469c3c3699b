"""The `jaxlint` command line (jaxlint.cli).

Most tests run `cli.main` in-process over a fake engine (a stand-in `jaxlint.fixes.pipeline`
module), so exit codes, writing, diffs and output are checked exactly whatever the rules say. The
tests at the end run `python -m jaxlint` as a subprocess against the real engine.
"""

from __future__ import annotations

import io
import json
import multiprocessing
import os
import signal
import subprocess
import sys
import textwrap
import time
import types
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from jaxlint import cli, files
from jaxlint.cache import CACHE_FOLDER
from jaxlint.diagnostics import Diagnostic, Fix, Span
from jaxlint.output import rule_name

REPO = Path(__file__).resolve().parent.parent


# ---------------------------------------------------------------- a fake engine


@dataclass(frozen=True)
class FakeResult:
    diagnostics: list[Diagnostic]
    fixed_source: str | None = None
    findings: list = field(default_factory=list)


def fake_lint_source(
    source, path, config, *, fix=False, unsafe_fixes=False, verify=True, project=None
):
    """Flags every `BAD` (safe fix: `GOOD`); `BOOM` raises; `MUTATE` edits the file meanwhile."""
    if "BOOM" in source:
        raise RuntimeError("boom")
    if "MUTATE" in source:
        Path(path).write_text(source + "# edited meanwhile\n")
    diagnostics = []
    for number, line in enumerate(source.splitlines(), start=1):
        column = line.find("BAD")
        if column >= 0:
            span = Span(number, column + 1, number, column + 4)
            diagnostics.append(
                Diagnostic(
                    "JAX204",
                    "error",
                    "BAD is bad",
                    path,
                    span,
                    Fix("safe", "BAD → GOOD", applied=fix),
                )
            )
        if "UGLY" in line:
            span = Span(number, 1, number, len(line) + 1)
            diagnostics.append(Diagnostic("JAX202", "warning", "UGLY stays", path, span))
    fixed = source.replace("BAD", "GOOD") if fix and "BAD" in source else None
    return FakeResult(diagnostics, fixed)


@pytest.fixture
def fake_engine(monkeypatch, tmp_path: Path) -> Path:
    """Install the fake engine and work in tmp_path; returns tmp_path."""
    module = types.ModuleType("jaxlint.fixes.pipeline")
    module.lint_source = fake_lint_source  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "jaxlint.fixes.pipeline", module)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(capsys, *argv: str, stdin: bytes | None = None, monkeypatch=None) -> tuple[int, str, str]:
    if stdin is not None:
        assert monkeypatch is not None
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin)))
    code = cli.main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


# ---------------------------------------------------------------- check: findings and exit codes


def test_clean_file_exits_zero(fake_engine: Path, capsys) -> None:
    (fake_engine / "ok.py").write_text("x = 1\n")
    assert run(capsys, "check", "ok.py") == (0, "All checks passed!\n", "")


def test_findings_exit_one_with_exact_text(fake_engine: Path, capsys) -> None:
    (fake_engine / "a.py").write_text("x = BAD\ny = 1\n  z = BAD\n")
    (fake_engine / "b.py").write_text("BAD\n")
    code, out, err = run(capsys, "check", ".")
    assert code == 1
    assert err == ""
    assert out == (
        "a.py:1:5: JAX204 [*] BAD is bad\n"
        "a.py:3:7: JAX204 [*] BAD is bad\n"
        "b.py:1:1: JAX204 [*] BAD is bad\n"
        "Found 3 diagnostics.\n"
        "[*] 3 fixable with --fix.\n"
    )
    for full in ("full", "text"):  # `text`: the full format's older name
        code, out, err = run(capsys, "check", "--output-format", full, ".")
        assert out.splitlines()[:3] == [
            "a.py:1:5: JAX204 [error] BAD is bad (fix: safe, available)",
            "a.py:3:7: JAX204 [error] BAD is bad (fix: safe, available)",
            "b.py:1:1: JAX204 [error] BAD is bad (fix: safe, available)",
        ]


def test_no_subcommand_means_check(fake_engine: Path, capsys) -> None:
    (fake_engine / "a.py").write_text("BAD\n")
    assert run(capsys, "a.py") == run(capsys, "check", "a.py")
    assert run(capsys, "--output-format", "json", "a.py")[0] == 1


def test_exit_zero(fake_engine: Path, capsys) -> None:
    (fake_engine / "a.py").write_text("BAD\n")
    code, out, _ = run(capsys, "check", "--exit-zero", "a.py")
    assert code == 0
    assert "JAX204" in out


def test_json_output(fake_engine: Path, capsys) -> None:
    (fake_engine / "a.py").write_text("x = BAD\n")
    code, out, err = run(capsys, "check", "--output-format", "json", "a.py")
    assert (code, err) == (1, "")
    assert json.loads(out) == [
        {
            "code": "JAX204",
            "severity": "error",
            "message": "BAD is bad",
            "path": "a.py",
            "line": 1,
            "column": 5,
            "end_line": 1,
            "end_column": 8,
            "fix": {
                "kind": "safe",
                "description": "BAD → GOOD",
                "applied": False,
                "verification": None,
                "note": None,
            },
        }
    ]


@pytest.mark.parametrize("output_format", ["sarif", "github"])
def test_other_formats_print_one_document(fake_engine: Path, capsys, output_format: str) -> None:
    (fake_engine / "a.py").write_text("x = BAD\n")
    code, out, err = run(capsys, "check", "--output-format", output_format, "a.py")
    assert (code, err) == (1, "")
    if output_format == "sarif":
        assert json.loads(out)["runs"][0]["results"][0]["ruleId"] == "JAX204"
    else:
        assert out == (
            "::error file=a.py,line=1,col=5,endLine=1,endColumn=8,title=JAX204::BAD is bad\n"
        )


def test_statistics(fake_engine: Path, capsys) -> None:
    (fake_engine / "a.py").write_text("BAD\nBAD\n")
    code, out, _ = run(capsys, "check", "--statistics", "a.py")
    name = rule_name("JAX204")
    assert code == 1
    assert (
        out
        == f"2 JAX204 [*] {name}".rstrip() + "\nFound 2 diagnostics.\n[*] 2 fixable with --fix.\n"
    )


def test_statistics_rejects_sarif(fake_engine: Path, capsys) -> None:
    code, _, err = run(capsys, "check", "--statistics", "--output-format", "sarif")
    assert code == 2
    assert (
        err == "jaxlint: error: --statistics works with the concise, full or json output format\n"
    )


def test_show_source(fake_engine: Path, capsys) -> None:
    (fake_engine / "a.py").write_text("x = BAD\n")
    _, out, _ = run(capsys, "check", "--show-source", "a.py")
    assert out.splitlines()[1:3] == ["    x = BAD", "        ^^^"]


# ---------------------------------------------------------------- check: bad input


def test_missing_path_exits_two_and_lints_the_rest(fake_engine: Path, capsys) -> None:
    (fake_engine / "a.py").write_text("BAD\n")
    code, out, err = run(capsys, "check", "nope.py", "a.py")
    assert code == 2
    assert err == "nope.py: no such file or folder\n"
    assert out.startswith("a.py:1:1: JAX204")


def test_missing_path_alone_prints_no_success_line(fake_engine: Path, capsys) -> None:
    assert run(capsys, "check", "nope.py") == (2, "", "nope.py: no such file or folder\n")


def test_non_utf8_file_is_a_jax000_finding_and_the_run_goes_on(fake_engine: Path, capsys) -> None:
    (fake_engine / "latin.py").write_bytes(b"x = '\xe9'\n")
    (fake_engine / "ok.py").write_text("BAD\n")
    code, out, err = run(capsys, "check", ".")
    assert (code, err) == (1, "")
    assert "latin.py:1:1: JAX000 not valid utf-8 text (byte 0xe9 at offset 5)\n" in out
    assert "ok.py:1:1: JAX204" in out


def test_encoding_declaration_is_honoured_when_reading_and_writing(
    fake_engine: Path, capsys
) -> None:
    path = fake_engine / "latin.py"
    path.write_bytes(b"# -*- coding: latin-1 -*-\nx = '\xe9'  # BAD\n")
    code, _, err = run(capsys, "check", "--fix", "latin.py")
    assert (code, err) == (0, "")
    assert path.read_bytes() == b"# -*- coding: latin-1 -*-\nx = '\xe9'  # GOOD\n"


def test_bad_encoding_declaration(fake_engine: Path, capsys) -> None:
    (fake_engine / "weird.py").write_bytes(b"# -*- coding: klingon -*-\nx = 1\n")
    code, out, err = run(capsys, "check", "weird.py")
    assert (code, err) == (1, "")
    assert out.startswith("weird.py:1:1: JAX000 bad encoding declaration: ")


def test_unreadable_file_is_a_jax000_finding(fake_engine: Path, capsys) -> None:
    (fake_engine / "dangling.py").symlink_to(fake_engine / "gone.py")
    (fake_engine / "ok.py").write_text("x = 1\n")
    code, out, err = run(capsys, "check", ".")
    assert (code, err) == (1, "")
    message = "dangling.py:1:1: JAX000 cannot read file: a symbolic link to a missing file"
    assert out.startswith(message + "\n")


def test_lint_path_on_a_folder_reports_instead_of_raising(fake_engine: Path) -> None:
    (fake_engine / "pkg.py").mkdir()
    outcome = files.lint_path(Path("pkg.py"), cli.Config())
    assert [d.message for d in outcome.diagnostics] == ["cannot read file: Is a directory"]


def test_internal_error_in_one_file_does_not_stop_the_others(fake_engine: Path, capsys) -> None:
    (fake_engine / "a_boom.py").write_text("BOOM\n")
    (fake_engine / "b.py").write_text("BAD\n")
    code, out, err = run(capsys, "check", ".")
    assert code == 2
    assert err == "a_boom.py: internal error: RuntimeError: boom\n"
    assert out.startswith("b.py:1:1: JAX204")


def test_unknown_select_code_exits_two(fake_engine: Path, capsys) -> None:
    code, out, err = run(capsys, "check", "--select", "JAX1,NOPE9")
    assert (code, out) == (2, "")
    assert err == "jaxlint: error: --select: unknown rule code or prefix 'NOPE9'\n"


def test_bad_jobs(fake_engine: Path, capsys) -> None:
    assert run(capsys, "check", "--jobs", "0")[0] == 2


def test_argparse_usage_errors_exit_two(fake_engine: Path, capsys) -> None:
    with pytest.raises(SystemExit) as raised:
        cli.main(["check", "--output-format", "xml"])
    assert raised.value.code == 2


# ---------------------------------------------------------------- --fix


def test_fix_writes_atomically_and_keeps_the_mode(fake_engine: Path, capsys) -> None:
    path = fake_engine / "a.py"
    path.write_text("x = BAD\n")
    path.chmod(0o640)
    code, out, err = run(capsys, "check", "--fix", "a.py")
    assert (code, err) == (0, "")
    assert out == (
        "a.py:1:5: JAX204 [fixed] BAD is bad\nFound 1 diagnostic (1 fixed, 0 remaining).\n"
    )
    assert path.read_text() == "x = GOOD\n"
    assert path.stat().st_mode & 0o777 == 0o640
    assert sorted(p.name for p in fake_engine.iterdir() if p.name != CACHE_FOLDER) == [
        "a.py"
    ]  # no temp file left


def test_fix_with_findings_left_exits_one(fake_engine: Path, capsys) -> None:
    path = fake_engine / "a.py"
    path.write_text("x = BAD\nUGLY\n")
    code, out, err = run(capsys, "check", "--fix", "a.py")
    assert (code, err) == (1, "")
    assert out == (
        "a.py:1:5: JAX204 [fixed] BAD is bad\n"
        "a.py:2:1: JAX202 UGLY stays\n"
        "Found 2 diagnostics (1 fixed, 1 remaining).\n"
    )
    assert path.read_text() == "x = GOOD\nUGLY\n"


def test_stdin_diff(fake_engine: Path, capsys, monkeypatch) -> None:
    code, out, err = run(capsys, "check", "--diff", "-", stdin=b"BAD\n", monkeypatch=monkeypatch)
    assert code == 1
    assert out == "--- a/-\n+++ b/-\n@@ -1 +1 @@\n-BAD\n+GOOD\n"
    assert err.endswith("Would change 1 file.\n")


def test_fix_leaves_unchanged_files_alone(fake_engine: Path, capsys) -> None:
    path = fake_engine / "ok.py"
    path.write_text("x = 1\n")
    before = path.stat()
    assert run(capsys, "check", "--fix", "ok.py")[0] == 0
    after = path.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)


def test_fix_refuses_a_file_changed_on_disk(fake_engine: Path, capsys) -> None:
    path = fake_engine / "a.py"
    path.write_text("x = BAD  # MUTATE\n")
    code, out, err = run(capsys, "check", "--fix", "a.py")
    assert code == 2
    reason = "the file changed on disk since it was read; fixes not written"
    assert err == f"a.py: cannot write fixes: {reason}\n"
    assert path.read_text() == "x = BAD  # MUTATE\n# edited meanwhile\n"
    assert out.startswith(f"a.py:1:5: JAX204 BAD is bad\n    no fix: not written: {reason}\n")
    assert sorted(p.name for p in fake_engine.iterdir() if p.name != CACHE_FOLDER) == ["a.py"]


def test_fix_reports_a_failed_write(fake_engine: Path, capsys, monkeypatch) -> None:
    path = fake_engine / "a.py"
    path.write_text("x = BAD\n")

    def refuse(source, target):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(cli.os, "replace", refuse)
    code, _, err = run(capsys, "check", "--fix", "a.py")
    assert code == 2
    assert err == "a.py: cannot write fixes: Permission denied\n"
    assert path.read_text() == "x = BAD\n"
    assert sorted(p.name for p in fake_engine.iterdir() if p.name != CACHE_FOLDER) == ["a.py"]


def test_fix_writes_through_a_symlink(fake_engine: Path, capsys) -> None:
    real = fake_engine / "real.py"
    real.write_text("BAD\n")
    (fake_engine / "link.py").symlink_to(real)
    assert run(capsys, "check", "--fix", "link.py")[0] == 0
    assert (fake_engine / "link.py").is_symlink()
    assert real.read_text() == "GOOD\n"


def test_fix_keeps_crlf_line_endings(fake_engine: Path, capsys) -> None:
    path = fake_engine / "a.py"
    path.write_bytes(b"x = BAD\r\ny = 1\r\n")
    assert run(capsys, "check", "--fix", "a.py")[0] == 0
    assert path.read_bytes() == b"x = GOOD\r\ny = 1\r\n"


# ---------------------------------------------------------------- --diff


def test_diff_prints_a_patch_and_writes_nothing(fake_engine: Path, capsys) -> None:
    path = fake_engine / "a.py"
    path.write_text("import os\nx = BAD\n")
    code, out, err = run(capsys, "check", "--diff", "a.py")
    assert code == 1
    assert out == ("--- a/a.py\n+++ b/a.py\n@@ -1,2 +1,2 @@\n import os\n-x = BAD\n+x = GOOD\n")
    assert err == (
        "a.py:2:5: JAX204 [*] BAD is bad\n"
        "Found 1 diagnostic.\n"
        "[*] 1 fixable with --fix.\n"
        "Would change 1 file.\n"
    )
    assert path.read_text() == "import os\nx = BAD\n"


def test_diff_marks_a_missing_final_newline(fake_engine: Path, capsys) -> None:
    (fake_engine / "a.py").write_text("x = BAD")
    _, out, _ = run(capsys, "check", "--diff", "a.py")
    assert out.endswith(
        "-x = BAD\n\\ No newline at end of file\n+x = GOOD\n\\ No newline at end of file\n"
    )


def test_diff_of_clean_files_exits_zero(fake_engine: Path, capsys) -> None:
    (fake_engine / "a.py").write_text("x = 1\n")
    assert run(capsys, "check", "--diff", "a.py") == (0, "", "All checks passed!\n")


# ---------------------------------------------------------------- stdin


def test_stdin_with_filename(fake_engine: Path, capsys, monkeypatch) -> None:
    code, out, err = run(
        capsys,
        "check",
        "-",
        "--stdin-filename",
        "pkg/m.py",
        stdin=b"BAD\n",
        monkeypatch=monkeypatch,
    )
    assert (code, err) == (1, "")
    assert out.startswith("pkg/m.py:1:1: JAX204")


def test_stdin_filename_alone_reads_stdin(fake_engine: Path, capsys, monkeypatch) -> None:
    code, out, _ = run(capsys, "--stdin-filename", "m.py", stdin=b"BAD\n", monkeypatch=monkeypatch)
    assert code == 1
    assert out.startswith("m.py:1:1: JAX204")


def test_stdin_fix_prints_the_source_and_reports_on_stderr(
    fake_engine: Path, capsys, monkeypatch
) -> None:
    code, out, err = run(capsys, "check", "--fix", "-", stdin=b"x = BAD\n", monkeypatch=monkeypatch)
    assert code == 0
    assert out == "x = GOOD\n"
    assert err == ("-:1:5: JAX204 [fixed] BAD is bad\nFound 1 diagnostic (1 fixed, 0 remaining).\n")


def test_stdin_fix_echoes_clean_source(fake_engine: Path, capsys, monkeypatch) -> None:
    code, out, err = run(capsys, "check", "--fix", "-", stdin=b"x = 1\n", monkeypatch=monkeypatch)
    assert (code, out, err) == (0, "x = 1\n", "All checks passed!\n")


# ---------------------------------------------------------------- --jobs


@pytest.mark.skipif(
    multiprocessing.get_start_method() != "fork",
    reason="the fake engine reaches pool workers only when they are forked",
)
def test_jobs_gives_the_same_output_as_one_process(fake_engine: Path, capsys) -> None:
    for index in range(23):
        (fake_engine / f"m{index:02d}.py").write_text("x = BAD\n" * (index % 3))
    (fake_engine / "m05.py").write_text("BOOM\n")
    serial = run(capsys, "check", ".")
    parallel = run(capsys, "check", "--jobs", "3", ".")
    assert parallel == serial
    assert serial[0] == 2
    assert serial[1].count("JAX204") == 20


def test_lint_paths_keeps_order_without_a_pool(fake_engine: Path) -> None:
    for name in ("b.py", "a.py"):
        (fake_engine / name).write_text("BAD\n")
    outcomes = files.lint_paths([Path("b.py"), Path("a.py")], cli.Config(), files.LintOptions(), 1)
    assert [o.path for o in outcomes] == ["b.py", "a.py"]


# ---------------------------------------------------------------- notebooks


def test_notebooks_go_through_the_notebook_adapter(fake_engine: Path, capsys, monkeypatch) -> None:
    module = types.ModuleType("jaxlint.notebook")
    seen = []

    def lint_notebook(text, path, config, *, fix, unsafe_fixes, verify, project=None):
        seen.append((path, json.loads(text)))
        span = Span(2, 1, 2, 4)
        return FakeResult([Diagnostic("JAX201", "warning", "cell print", path, span, cell=3)])

    module.lint_notebook = lint_notebook  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "jaxlint.notebook", module)
    (fake_engine / "nb.ipynb").write_text('{"cells": []}')
    code, out, _ = run(capsys, "check", ".")
    assert code == 1
    assert seen == [("nb.ipynb", {"cells": []})]
    assert out.splitlines()[0] == "nb.ipynb:cell 3:2:1: JAX201 cell print"


def test_source_linter_dispatch(fake_engine: Path, monkeypatch) -> None:
    assert files.source_linter("a.py") is fake_lint_source
    monkeypatch.setitem(sys.modules, "jaxlint.notebook", None)
    assert files.source_linter("nb.ipynb") is None


# ---------------------------------------------------------------- rule, rules, verify, --version


def test_rule_prints_the_page(capsys, monkeypatch) -> None:
    from jaxlint.engine import registry

    monkeypatch.setattr(registry, "rule_page", lambda code: f"# {code}\n\npage text\n")
    assert run(capsys, "rule", "jax000") == (0, "# JAX000\n\npage text\n", "")


def test_rule_without_a_page_prints_its_summary(capsys, monkeypatch) -> None:
    from jaxlint.engine import registry

    monkeypatch.setattr(registry, "rule_page", lambda code: None)
    assert run(capsys, "rule", "JAX000") == (
        0,
        "# JAX000 (syntax-error)\n\na file that cannot be parsed\n\nSeverity: error.\n",
        "",
    )


def test_rule_unknown_code_exits_two(capsys) -> None:
    assert run(capsys, "rule", "JAX999") == (
        2,
        "",
        "jaxlint: error: unknown rule code 'JAX999'; `jaxlint rules` lists them\n",
    )


def test_rules_table(capsys) -> None:
    from jaxlint.engine.registry import all_rules, known_codes

    code, out, err = run(capsys, "rules")
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0].split() == ["code", "name", "severity", "fix", "selection"]
    assert [line.split()[0] for line in lines[1:]] == known_codes()
    assert lines[1].split() == ["JAX000", "syntax-error", "error", "-", "default"]
    for line in lines[2:]:
        code_, name, severity, fix_kind, selection = line.split()
        rule = all_rules()[code_]
        assert (name, severity, fix_kind) == (rule.name, rule.severity, rule.fix_kind or "-")
        assert selection == ("opt-in" if rule.opt_in else "default")
    # Columns line up: every row has its second column at the same offset.
    assert len({line.index(line.split()[1]) for line in lines}) == 1


def test_verify_hands_the_discovered_files_over(fake_engine: Path, capsys, monkeypatch) -> None:
    calls = []

    def run_verify_command(paths, config):
        calls.append(paths)
        return 1

    import jaxlint.verify_command

    monkeypatch.setattr(jaxlint.verify_command, "run_verify_command", run_verify_command)
    (fake_engine / "b.py").write_text("x = 1\n")
    (fake_engine / "a.py").write_text("x = 1\n")
    assert run(capsys, "verify", ".")[0] == 1
    assert calls == [[Path("a.py"), Path("b.py")]]


def test_version(capsys) -> None:
    with pytest.raises(SystemExit) as raised:
        cli.main(["--version"])
    assert raised.value.code == 0
    assert capsys.readouterr().out == f"jaxlint {cli.tool_version()}\n"


# ---------------------------------------------------------------- end to end: python -m jaxlint


def jaxlint(cwd: Path, *argv: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    return subprocess.run(
        [sys.executable, "-m", "jaxlint", *argv],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )


JITTED_PRINT = textwrap.dedent(
    """\
    import jax


    @jax.jit
    def f(x):
        print(x)
        return x + 1
    """
)


def test_e2e_version(tmp_path: Path) -> None:
    done = jaxlint(tmp_path, "--version")
    assert done.returncode == 0
    assert done.stdout.startswith("jaxlint ")


def test_e2e_rules(tmp_path: Path) -> None:
    done = jaxlint(tmp_path, "rules")
    assert done.returncode == 0
    assert "JAX000  syntax-error" in done.stdout


def test_e2e_missing_path_is_not_a_traceback(tmp_path: Path) -> None:
    done = jaxlint(tmp_path, "check", "missing.py")
    assert (done.returncode, done.stdout, done.stderr) == (
        2,
        "",
        "missing.py: no such file or folder\n",
    )


def test_e2e_finds_a_print_in_jit(tmp_path: Path) -> None:
    (tmp_path / "model.py").write_text(JITTED_PRINT)
    (tmp_path / "clean.py").write_text("import jax\n\nx = 1\n")
    done = jaxlint(tmp_path)
    assert done.returncode == 1, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == (
        "model.py:6:5: JAX201 [*] print in traced `f` runs once, at trace time, and prints "
        "1 tracer argument instead of values"
    )
    assert lines[-2:] == [
        "Found 1 diagnostic.",
        "[*] 1 fixable with --fix (1 if verification with JAX passes).",
    ]


def test_e2e_clean_project_exits_zero(tmp_path: Path) -> None:
    (tmp_path / "clean.py").write_text("import jax\n\n\ndef f(x):\n    return x + 1\n")
    done = jaxlint(tmp_path, "check")
    assert (done.returncode, done.stdout, done.stderr) == (0, "All checks passed!\n", "")


def test_e2e_noqa_and_skip_file(tmp_path: Path) -> None:
    (tmp_path / "inline.py").write_text(
        JITTED_PRINT.replace("print(x)", "print(x)  # noqa: JAX201")
    )
    (tmp_path / "skipped.py").write_text("# jaxlint: skip-file\n" + JITTED_PRINT)
    header = JITTED_PRINT.replace("def f(x):", "def f(x):  # noqa: JAX2")
    (tmp_path / "header.py").write_text(header)
    done = jaxlint(tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (0, "All checks passed!\n", "")


def test_e2e_json_and_stdin(tmp_path: Path) -> None:
    done = jaxlint(
        tmp_path, "--output-format", "json", "-", "--stdin-filename", "pkg/m.py", stdin=JITTED_PRINT
    )
    assert done.returncode == 1, done.stderr
    [element] = json.loads(done.stdout)
    assert (element["code"], element["path"], element["line"], element["column"]) == (
        "JAX201",
        "pkg/m.py",
        6,
        5,
    )


def test_e2e_jobs_matches_serial(tmp_path: Path) -> None:
    for index in range(6):
        (tmp_path / f"m{index}.py").write_text(JITTED_PRINT if index % 2 else "import jax\n")
    serial = jaxlint(tmp_path, "check", ".")
    parallel = jaxlint(tmp_path, "check", "--jobs", "2", ".")
    assert serial.returncode == 1
    assert (parallel.returncode, parallel.stdout) == (serial.returncode, serial.stdout)
    assert serial.stdout.count("JAX201") == 3


def test_e2e_fix_rewrites_a_print_after_verifying_it_with_jax(tmp_path: Path) -> None:
    """--fix applies a verified rewrite, and a second --fix changes nothing."""
    source = textwrap.dedent(
        """\
        import jax


        @jax.jit
        def f(x):
            print("x is", x)  # keep me
            return x * 2
        """
    )
    path = tmp_path / "m.py"
    path.write_text(source)
    done = jaxlint(tmp_path, "check", "--fix", "m.py")
    assert done.returncode == 0, done.stdout + done.stderr
    fixed = source.replace('print("x is", x)', 'jax.debug.print("x is {x!s}", x=x)')
    assert path.read_text() == fixed
    assert "verified on 20 input sets" in done.stdout  # several signatures, then variants
    again = jaxlint(tmp_path, "check", "--fix", "m.py")
    assert again.returncode == 0
    assert path.read_text() == fixed


# ---------------------------------------------------------------- Ruff's options (issue 14)


def test_a_mistyped_command_is_refused_not_taken_for_a_path(fake_engine: Path, capsys) -> None:
    code, out, err = run(capsys, "chek", "x.py")
    assert (code, out) == (2, "")
    assert err.splitlines() == [
        "usage: jaxlint [-h] [-V] COMMAND ...",
        "jaxlint: error: unknown command 'chek' (did you mean 'check'?); commands: check, rule,"
        " rules, server, verify",
    ]
    (fake_engine / "chek").mkdir()  # a folder of that name is a path after all
    assert run(capsys, "chek")[0] == 0


@pytest.mark.parametrize(
    ("words", "usage"),
    [
        (["check", "--bogus", "x.py"], "usage: jaxlint check [-h] [--fix]"),
        (["--bogus", "x.py"], "usage: jaxlint check [-h] [--fix]"),  # `jaxlint PATHS` is check
        (["rules", "--bogus"], "usage: jaxlint rules [-h]"),
    ],
)
def test_an_unknown_option_is_refused_with_its_commands_usage(
    capsys, words: list[str], usage: str
) -> None:
    with pytest.raises(SystemExit) as stop:
        cli.main(words)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(usage)
    assert err.splitlines()[-1].endswith("error: unrecognized arguments: --bogus")


def test_short_version_flag(capsys) -> None:
    with pytest.raises(SystemExit) as stop:
        cli.main(["-V"])
    assert stop.value.code == 0
    assert capsys.readouterr().out.startswith("jaxlint ")


def test_unsafe_fixes_without_fix_says_it_does_nothing(fake_engine: Path, capsys) -> None:
    (fake_engine / "a.py").write_text("BAD\n")
    code, _, err = run(capsys, "check", "--unsafe-fixes", "a.py")
    assert (code, err) == (
        1,
        "jaxlint: warning: --unsafe-fixes does nothing without --fix or --diff\n",
    )
    assert (fake_engine / "a.py").read_text() == "BAD\n"


def test_a_machine_format_with_diff_keeps_stdout_for_the_report(fake_engine: Path, capsys) -> None:
    (fake_engine / "a.py").write_text("BAD\n")
    code, out, err = run(capsys, "check", "--diff", "--output-format", "json", "a.py")
    assert code == 1
    assert [d["code"] for d in json.loads(out)] == ["JAX204"]
    assert err.startswith("--- a/a.py\n+++ b/a.py\n")


def test_output_file_takes_the_report(fake_engine: Path, capsys) -> None:
    (fake_engine / "a.py").write_text("BAD\n")
    code, out, err = run(capsys, "check", "-o", "report.json", "--output-format", "json", "a.py")
    assert (code, out, err) == (1, "", "")
    assert [d["code"] for d in json.loads((fake_engine / "report.json").read_text())] == ["JAX204"]
    code, _, err = run(capsys, "check", "--output-file", "no/such/folder.txt", "a.py")
    assert (code, err) == (
        2,
        "jaxlint: error: --output-file no/such/folder.txt: No such file or directory\n",
    )


def test_exit_non_zero_on_fix(fake_engine: Path, capsys) -> None:
    (fake_engine / "a.py").write_text("BAD\n")
    assert run(capsys, "check", "--fix", "a.py")[0] == 0
    (fake_engine / "a.py").write_text("BAD\n")
    assert run(capsys, "check", "--fix", "--exit-non-zero-on-fix", "a.py")[0] == 1
    assert (fake_engine / "a.py").read_text() == "GOOD\n"
    assert run(capsys, "check", "--fix", "--exit-non-zero-on-fix", "a.py")[0] == 0  # nothing left


def test_extend_ignore_adds_to_ignore(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.py").write_text("import jax.numpy as jnp\n\nx = jnp.ones(3)\nx.at[0].set(1.0)\n")
    assert run(capsys, "check", "--no-cache", "a.py")[0] == 1
    code, out, _ = run(capsys, "check", "--no-cache", "--extend-ignore", "JAX205", "a.py")
    assert (code, out) == (0, "All checks passed!\n")


def test_per_file_ignores_on_the_command_line(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    for folder in ("legacy", "src"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "a.py").write_text(
            "import jax.numpy as jnp\n\nx = jnp.ones(3)\nx.at[0].set(1.0)\n"
        )
    code, out, _ = run(capsys, "check", "--no-cache", "--per-file-ignores", "legacy/*:JAX205", ".")
    assert code == 1
    assert sorted({line.split(":")[0] for line in out.splitlines() if ": JAX" in line}) == [
        "src/a.py"
    ]
    code, out, err = run(capsys, "check", "--per-file-ignores", "JAX205", ".")
    assert (code, out) == (2, "")
    assert err == "jaxlint: error: --per-file-ignores: 'JAX205' is not PATTERN:CODES\n"


def test_fix_only_reports_what_was_fixed_and_exits_zero_for_the_rest(
    fake_engine: Path, capsys
) -> None:
    (fake_engine / "a.py").write_text("BAD\nUGLY\n")
    assert run(capsys, "check", "--fix-only", "a.py") == (0, "Fixed 1 finding.\n", "")
    assert (fake_engine / "a.py").read_text() == "GOOD\nUGLY\n"
    (fake_engine / "a.py").write_text("BAD\nUGLY\n")
    code, out, _ = run(capsys, "check", "--fix-only", "--exit-non-zero-on-fix", "a.py")
    assert code == 1


def test_show_fixes_lists_the_fixes_applied(fake_engine: Path, capsys) -> None:
    (fake_engine / "a.py").write_text("BAD\nUGLY\n")
    code, out, _ = run(capsys, "check", "--fix", "--show-fixes", "a.py")
    assert code == 1  # UGLY is left
    assert "Fixed 1 finding:\n  a.py:1:1: JAX204 BAD → GOOD\n" in out
    assert out.endswith("Found 2 diagnostics (1 fixed, 1 remaining).\n")


IN_PLACE = (
    "import jax.numpy as jnp\n\n\ndef f():\n    x = jnp.zeros(3)\n    x[0] = 1.0\n    return x\n"
)


def test_each_diff_follows_the_findings_it_fixes(tmp_path: Path) -> None:
    for name in ("a.py", "b.py"):
        (tmp_path / name).write_text(IN_PLACE)
    done = subprocess.run(
        [sys.executable, "-m", "jaxlint", "check", "--diff", "--no-cache", "."],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,  # one pipe: the order a terminal shows
        text=True,
        env=dict(os.environ, PYTHONPATH=str(REPO)),
        timeout=300,
    )
    lines = done.stdout.splitlines()
    finding = (
        "{}:6:5: JAX204 [*] `x[0] = ...` on `x`, a JAX array, raises TypeError:"
        " JAX arrays are immutable"
    )
    order = [
        finding.format("a.py"),
        "--- a/a.py",
        "+    x = x.at[0].set(1.0)",
        finding.format("b.py"),
        "--- a/b.py",
        "+    x = x.at[0].set(1.0)",
        "Found 2 diagnostics.",
    ]
    position = -1
    for line in order:  # each one after the one before
        assert line in lines[position + 1 :], (line, lines)
        position = lines.index(line, position + 1)
    assert done.returncode == 1
    patch_only = jaxlint(tmp_path, "check", "--diff", "--no-cache", ".")
    assert patch_only.stdout.startswith("--- a/a.py\n")  # stdout alone is still a patch
    assert "JAX204" not in patch_only.stdout and "JAX204 [*]" in patch_only.stderr


def test_jobs_default_to_the_usable_cores(fake_engine: Path, capsys, monkeypatch) -> None:
    (fake_engine / "a.py").write_text("BAD\n")
    seen: list[int] = []

    def lint_paths(paths, config, options, jobs=1, progress=None):
        seen.append(jobs)
        return [files.lint_path(p, config, options) for p in paths]

    monkeypatch.setattr(cli, "lint_paths", lint_paths)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2}, raising=False)
    run(capsys, "check", "a.py")
    run(capsys, "check", "--jobs", "1", "a.py")
    assert seen == [3, 1]


class _Lines:
    """The lines a process prints, read by a thread so that waiting for one can time out."""

    def __init__(self, stream) -> None:
        import queue
        import threading

        self.queue: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, args=(stream,), daemon=True).start()

    def _read(self, stream) -> None:
        for line in stream:
            self.queue.put(line)
        self.queue.put("")

    def until(self, text: str, timeout: float = 60.0) -> str:
        """The lines up to and including one that holds `text`."""
        import queue

        read = ""
        deadline = time.monotonic() + timeout
        while text not in read:
            try:
                line = self.queue.get(timeout=max(deadline - time.monotonic(), 0.01))
            except queue.Empty:
                raise AssertionError(f"no {text!r} within {timeout} s; read {read!r}") from None
            if not line:
                raise AssertionError(f"output ended before {text!r}; read {read!r}")
            read += line
        return read


def test_watch_checks_again_on_every_change_until_ctrl_c(tmp_path: Path) -> None:
    clean = "import jax\n\n\n@jax.jit\ndef f(x):\n    return x + 1\n"
    (tmp_path / "model.py").write_text(clean)
    watcher = subprocess.Popen(
        [sys.executable, "-m", "jaxlint", "check", "--watch", "--no-cache", "."],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        bufsize=1,
        env=dict(os.environ, PYTHONPATH=str(REPO)),
    )
    try:
        lines = _Lines(watcher.stdout)
        first = lines.until("Watching for file changes")
        assert "All checks passed!" in first
        (tmp_path / "model.py").write_text(clean.replace("    return", "    print(x)\n    return"))
        second = lines.until("Watching for file changes")
        assert "model.py:6:5: JAX201 [*] print in traced `f`" in second
        (tmp_path / "pyproject.toml").write_text('[tool.jaxlint]\nignore = ["JAX201"]\n')
        third = lines.until("Watching for file changes")  # the config is watched
        assert "All checks passed!" in third
        watcher.send_signal(signal.SIGINT)
        assert watcher.wait(timeout=30) == 0  # the last check's exit code
    finally:
        watcher.kill()
        watcher.wait()


def test_watch_refuses_stdin(capsys) -> None:
    code, _, err = run(capsys, "check", "--watch", "-")
    assert (code, err) == (2, "jaxlint: error: --watch checks files, not stdin\n")
