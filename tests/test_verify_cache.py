"""Verification results are kept by content (issue 14): a second `--fix --diff` over the same
tree starts no JAX child, identical files are verified once, and a change to the module or to
a local module it could import verifies again. Real child, real JAX."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from jaxlint import cli
from jaxlint.verify import jax_available, runner

pytestmark = pytest.mark.skipif(not jax_available(), reason="JAX is not installed")
SEED = Path(__file__).resolve().parents[1] / "fixtures" / "seed" / "cumulative_sum.py"


@pytest.fixture
def children(monkeypatch) -> list[str]:
    """The verification children started (their executables), counted as they start."""
    started: list[str] = []
    real = runner._Child

    def counting(executable: str, reads: tuple[str, ...] = ()) -> runner._Child:
        started.append(executable)
        return real(executable, reads)

    monkeypatch.setattr(runner, "_Child", counting)
    return started


def diff(capsys, *arguments: str) -> tuple[int, str, str]:
    code = cli.main(["check", "--fix", "--diff", *arguments])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("jobs", ["1", "2"])  # with 2, the pool's workers verify in this process
def test_a_second_run_does_no_jax_work(
    tmp_path: Path, monkeypatch, capsys, children, jobs: str
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("JAXLINT_CACHE_DIR", str(tmp_path))
    for number in range(3):  # identical files: verified once
        shutil.copy(SEED, tmp_path / f"copy{number}.py")
    first = diff(capsys, "--jobs", jobs, ".")
    assert first[1].count("+++ b/copy") == 3
    assert len(children) == 1
    children.clear()
    assert diff(capsys, "--jobs", jobs, ".") == first
    assert children == []


def test_a_changed_local_module_verifies_again(
    tmp_path: Path, monkeypatch, capsys, children
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("JAXLINT_CACHE_DIR", str(tmp_path))
    shutil.copy(SEED, tmp_path / "seed.py")
    (tmp_path / "helpers.py").write_text("SCALE = 1.0\n")
    first = diff(capsys, "seed.py")
    assert len(children) == 1
    (tmp_path / "helpers.py").write_text("SCALE = 2.0\n")  # the child could import it
    assert diff(capsys, "seed.py")[:2] == first[:2]  # the same diff; new timings in the report
    assert len(children) == 2
