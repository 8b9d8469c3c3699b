"""How `--fix` writes (issue 13): owner, group, mode and hard links kept, temp files of killed
runs cleaned up, Ctrl-C reported, and SIGKILL at any moment leaving every file old or new."""

from __future__ import annotations

import ast
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from jaxlint import cli, files
from tests.conftest import ROOT

BEFORE = """import jax.numpy as jnp


def mark(n, picked):
    free = jnp.ones(n)
    free.at[picked].set(0.0)
    return free
"""
AFTER = BEFORE.replace("    free.at[", "    free = free.at[")
posix_only = pytest.mark.skipif(os.name != "posix", reason="POSIX file semantics")


@pytest.fixture
def tree(tmp_path: Path, monkeypatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def fix(capsys, *argv: str) -> tuple[int, str]:
    code = cli.main(["check", "--no-cache", "--fix", *argv])
    return code, capsys.readouterr().err


@posix_only
def test_a_hard_linked_file_is_rewritten_through_its_inode(tree: Path, capsys) -> None:
    path = tree / "a.py"
    path.write_text(BEFORE)
    os.link(path, tree / "a_link.py.txt")
    inode = path.stat().st_ino
    assert fix(capsys, "a.py") == (0, "")
    assert (path.stat().st_ino, path.stat().st_nlink) == (inode, 2)
    assert (tree / "a_link.py.txt").read_text() == AFTER


@posix_only
@pytest.mark.skipif(os.name == "posix" and os.geteuid() != 0, reason="needs root to chown")
def test_owner_group_and_mode_are_kept(tree: Path, capsys) -> None:
    path = tree / "a.py"
    path.write_text(BEFORE)
    os.chown(path, 4321, 4322)
    path.chmod(0o640)
    assert fix(capsys, "a.py") == (0, "")
    status = path.stat()
    assert (status.st_uid, status.st_gid, status.st_mode & 0o777) == (4321, 4322, 0o640)
    assert path.read_text() == AFTER


@posix_only
@pytest.mark.skipif(os.name == "posix" and os.geteuid() != 0, reason="needs root to chown")
def test_when_the_owner_cannot_be_given_back_the_file_is_rewritten_in_place(
    tree: Path, capsys, monkeypatch
) -> None:
    # What a user without root meets in a group-writable folder: the file is someone else's,
    # and chown of the temp file to them is refused; writing in place keeps the owner.
    path = tree / "a.py"
    path.write_text(BEFORE)
    os.chown(path, 4321, 4322)
    inode = path.stat().st_ino

    def refused(*_args: object) -> None:
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(os, "chown", refused)
    assert fix(capsys, "a.py") == (0, "")
    status = path.stat()
    assert (status.st_ino, status.st_uid, status.st_gid) == (inode, 4321, 4322)
    assert path.read_text() == AFTER
    assert [p.name for p in tree.iterdir()] == ["a.py"]


@posix_only
def test_temp_files_of_a_killed_run_are_removed_by_the_next(tree: Path, capsys) -> None:
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    stale = tree / f".a.py.jaxlint-{dead.pid}.k3j2h1.tmp"
    stale.write_text("half a file")
    running = tree / f".a.py.jaxlint-{os.getppid()}.x9y8z7.tmp"  # a live process's: kept
    running.write_text("someone is writing this")
    (tree / "a.py").write_text(BEFORE)
    code, err = fix(capsys, "a.py")
    assert (code, err) == (0, f"{stale.name}: removed a temp file an interrupted jaxlint left\n")
    assert not stale.exists()
    assert running.exists()
    assert [p.name for p in tree.iterdir() if p.name.endswith(".tmp")] == [running.name]


def test_ctrl_c_while_writing_says_what_was_written(tree: Path, capsys, monkeypatch) -> None:
    for name in ("a.py", "b.py", "c.py"):
        (tree / name).write_text(BEFORE)
    real_write = cli.write_fixes

    def interrupted_at_b(outcome: files.FileOutcome, roots: list[str]) -> files.FileOutcome:
        if outcome.path == "b.py":
            raise KeyboardInterrupt
        return real_write(outcome, roots)

    monkeypatch.setattr(cli, "write_fixes", interrupted_at_b)
    code, err = fix(capsys, ".")
    assert code == 130
    assert err.splitlines() == [
        "jaxlint: interrupted while writing fixes",
        "  fixes written to: 1 file(s): a.py",
        "  not written (unchanged): 2 file(s): b.py, c.py",
        "jaxlint: interrupted",
    ]
    assert [(tree / n).read_text() == AFTER for n in ("a.py", "b.py", "c.py")] == [1, 0, 0]


# ---------------------------------------------------------------- SIGKILL at random moments

KILL_TRIALS = int(os.environ.get("JAXLINT_KILL_TRIALS", "8"))
KILL_FILES = 150


@posix_only
def test_sigkill_at_random_moments_leaves_every_file_old_or_new(tmp_path: Path) -> None:
    env = _env_in(tmp_path)
    command = [sys.executable, "-m", "jaxlint", "check", "--no-cache", "--fix", "."]
    started = time.monotonic()
    subprocess.run(command, cwd=_fresh_tree(tmp_path / "timing"), env=env, capture_output=True)
    full_run = time.monotonic() - started
    rng = random.Random(13)
    trials = {"before writing": 0, "while writing": 0, "after writing": 0}
    for trial in range(KILL_TRIALS):
        folder = _fresh_tree(tmp_path / f"trial{trial}")
        run = subprocess.Popen(
            command, cwd=folder, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        # writing is the run's last tenth or so: most kills aim there, some before
        time.sleep(rng.uniform(0.6, 1.05) * full_run)
        run.send_signal(signal.SIGKILL)
        run.wait()
        # its workers and verification children end with it (they outlived it before)
        assert _processes_left(tmp_path) == [], trial
        new = 0
        for path in folder.glob("*.py"):
            text = path.read_text()
            assert text in (BEFORE, AFTER), path
            ast.parse(text)
            new += text == AFTER
        when = "before" if new == 0 else "after" if new == KILL_FILES else "while"
        trials[f"{when} writing"] += 1
        again = subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True)
        assert again.returncode == 0, again.stderr
        assert not [p for p in folder.iterdir() if p.name.endswith(".tmp")]
        assert all(p.read_text() == AFTER for p in folder.glob("*.py"))
    print(f"{KILL_TRIALS} kills of --fix over {KILL_FILES} files each, landing: {trials}")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_a_worker_whose_parent_died_before_it_started_ends_at_once() -> None:
    """The parent's pid is read before the fork: a worker that finds another parent (adopted,
    its parent killed between the fork and the worker's start) ends instead of linting on as an
    orphan (the SIGKILL trials above found one, 5 s after the kill, on a loaded machine)."""
    probe = (
        "import os, sys; from jaxlint.verify.lifetime import die_with_parent;"
        " die_with_parent(os.getppid() + int(sys.argv[1])); print('lived')"
    )
    for offset, code, printed in ((1, 1, ""), (0, 0, "lived\n")):
        run = subprocess.run(
            [sys.executable, "-c", probe, str(offset)], capture_output=True, text=True, cwd=ROOT
        )
        assert (run.returncode, run.stdout) == (code, printed), run.stderr


def _fresh_tree(folder: Path) -> Path:
    folder.mkdir()
    for number in range(KILL_FILES):
        (folder / f"m{number:03}.py").write_text(BEFORE)
    return folder


def _env_in(folder: Path) -> dict[str, str]:
    """The environment of a run whose every process (workers, verification children in their
    temporary folders) has its working folder under `folder`."""
    (folder / "tmp").mkdir(exist_ok=True)
    return dict(os.environ, PYTHONPATH=str(ROOT), TMPDIR=str(folder / "tmp"))


def _processes_left(folder: Path, grace_s: float = 5.0) -> list[str]:
    """The processes still working under `folder` after `grace_s` (their command lines)."""
    deadline = time.monotonic() + grace_s
    while True:
        left = []
        for pid in os.listdir("/proc"):
            try:
                cwd = os.readlink(f"/proc/{pid}/cwd")
                with open(f"/proc/{pid}/cmdline", "rb") as handle:
                    command = handle.read().replace(b"\0", b" ").decode(errors="replace")
            except (OSError, ValueError):
                continue
            if cwd.startswith(str(folder)) and command:
                left.append(f"{pid}: {command}")
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.2)


@posix_only
def test_ctrl_c_during_verification_ends_the_run_and_all_its_processes(tmp_path: Path) -> None:
    """Ctrl-C with the default jobs was ignored for 30 s, then thread tracebacks, then a hang
    (one SIGINT to the process group: over 95 s). A terminal sends it to the process group; a
    SIGINT to the main process alone took the same way out when measured by hand (0.2 s)."""
    project = tmp_path / "project"
    shutil.copytree(ROOT / "fixtures", project)  # minutes of verification with two workers
    run = subprocess.Popen(
        [sys.executable, "-m", "jaxlint", "check", "--no-cache", "--fix", "--jobs", "2", "."],
        cwd=project,
        env=_env_in(tmp_path),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group, as a terminal's foreground job has
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # pytest's may ignore
    )
    deadline = time.monotonic() + 120
    while not _verification_running(tmp_path / "tmp") and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _verification_running(tmp_path / "tmp"), "no verification child started"
    time.sleep(4.0)  # JAX imported, requests in flight
    interrupted = time.monotonic()
    os.killpg(run.pid, signal.SIGINT)
    try:
        _, stderr = run.communicate(timeout=30)
    finally:
        run.kill()
    assert run.returncode == 130, stderr
    assert time.monotonic() - interrupted < 10
    assert stderr.strip().splitlines()[-1] == "jaxlint: interrupted"
    assert "Traceback" not in stderr
    assert _processes_left(tmp_path) == []
    for path in project.rglob("*.py"):  # every file old or fixed, none half-written
        ast.parse(path.read_text())


def _verification_running(homes: Path) -> bool:
    return any(path.name.startswith("jaxlint-verify-") for path in homes.iterdir())
