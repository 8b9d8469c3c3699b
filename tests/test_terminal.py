"""What a terminal shows (issue 14), through a real pseudo-terminal: the progress line during
long work (never in a pipe, nor with --quiet) and colour (auto on a terminal, NO_COLOR,
--color always|never)."""

from __future__ import annotations

import os
import select
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from jaxlint.verify import jax_available
from tests.conftest import ROOT

pty = pytest.importorskip("pty")  # POSIX only
SEED = ROOT / "fixtures" / "seed"
ESC = "\x1b["


def run_on_terminal(
    args: list[str], cwd: Path, *, stream: str, env: dict[str, str] | None = None
) -> tuple[int, str, str]:
    """Run jaxlint with `stream` ("stdout" or "stderr") on a pseudo-terminal, the other on a
    pipe: (exit code, what the terminal showed, what the pipe got)."""
    master, slave = pty.openpty()
    environment = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    environment.update(PYTHONPATH=str(ROOT), **(env or {}))
    streams = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, stream: slave}
    process = subprocess.Popen(
        [sys.executable, "-m", "jaxlint", *args],
        cwd=cwd,
        env=environment,
        stdout=streams["stdout"],
        stderr=streams["stderr"],
    )
    os.close(slave)
    shown = b""
    while True:
        ready, _, _ = select.select([master], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the child closed its end
                break
            if not chunk:
                break
            shown += chunk
        elif process.poll() is not None:
            break
    piped = (process.stderr if stream == "stdout" else process.stdout).read()  # type: ignore[union-attr]
    code = process.wait(timeout=600)
    os.close(master)
    return code, shown.decode("utf-8", "replace"), piped.decode("utf-8", "replace")


@pytest.fixture
def seed(tmp_path: Path) -> Path:
    shutil.copytree(SEED, tmp_path / "seed")
    return tmp_path


@pytest.mark.skipif(not jax_available(), reason="JAX is not installed")
def test_the_progress_line_counts_files_and_verifications_then_gives_way(seed: Path) -> None:
    code, shown, report = run_on_terminal(
        ["check", "--no-cache", "--fix", "--diff", "--color", "never", "seed"],
        seed,
        stream="stderr",
    )
    assert code == 1
    assert "\rjaxlint: 0/3 files linted · 0:00" in shown
    assert "\rjaxlint: 3/3 files linted, 3 rewrites verified with JAX (3 passed) · " in shown
    before_report = shown.index("seed/cumulative_sum.py:15:5: JAX101")
    last_line = shown.rindex("\rjaxlint: 3/3", 0, before_report)
    erased = shown[last_line:before_report].rsplit("\r", 2)[-2]
    assert erased.strip() == ""  # blanked before the report
    assert "--- a/seed/cumulative_sum.py" in report  # the diff, on the pipe


def test_no_progress_line_in_a_pipe_or_with_quiet(seed: Path) -> None:
    piped = subprocess.run(
        [sys.executable, "-m", "jaxlint", "check", "--no-cache", "seed"],
        cwd=seed,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        capture_output=True,
        text=True,
    )
    assert "files linted" not in piped.stderr + piped.stdout
    code, shown, out = run_on_terminal(
        ["check", "--no-cache", "--quiet", "seed"], seed, stream="stderr"
    )
    assert code == 1
    assert shown == ""
    assert "JAX101" in out and "Found" not in out  # findings, no summary


def test_colour_on_a_terminal_and_its_switches(seed: Path) -> None:
    command = ["check", "--no-cache", "seed/cumulative_sum.py"]
    _, shown, _ = run_on_terminal(command, seed, stream="stdout")
    where = f"{ESC}1mseed/cumulative_sum.py:15:5{ESC}0m"
    assert f"{where}: {ESC}1;33mJAX101{ESC}0m {ESC}32m[*]{ESC}0m Python loop over" in shown
    _, shown, _ = run_on_terminal(command, seed, stream="stdout", env={"NO_COLOR": "1"})
    assert ESC not in shown and "JAX101" in shown
    _, shown, _ = run_on_terminal([*command, "--color", "never"], seed, stream="stdout")
    assert ESC not in shown and "JAX101" in shown
    piped = subprocess.run(
        [sys.executable, "-m", "jaxlint", *command, "--color", "always"],
        cwd=seed,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        capture_output=True,
        text=True,
    )
    assert f"{ESC}1;33mJAX101{ESC}0m" in piped.stdout
