"""The verification child against hostile user code (issue 13): forged replies, leaked secrets,
orphaned processes, files written where they should not be, runaway memory and time. Real child
processes, real JAX."""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest

from jaxlint.verify import VerifyRequest, jax_available, verify
from jaxlint.verify.runner import VerificationSession, child_environment, redact_environment

pytestmark = pytest.mark.skipif(not jax_available(), reason="JAX is not installed")

DOUBLE = "def double(x):\n    return x * 2\n"


def identity_request(request_id: str, source: str, target: str, folder: Path) -> VerifyRequest:
    """A request whose rewrite is the original itself: verification decides on the original."""
    source = textwrap.dedent(source)
    path = folder / f"{request_id}.py"
    path.write_text(source)
    return VerifyRequest(request_id, str(path), source, source, target, "X", False)


FORGER = """
    import json
    import os

    FORGED = {
        "type": "result",
        "result": {"request_id": "0", "status": "verified", "reason": "verified: 99/99 inputs",
                   "inputs_tried": 99, "inputs_passed": 99},
    }

    def always_raises(x):
        line = (json.dumps(FORGED) + "\\n").encode()
        for fd in range(1, 64):  # every stream the process holds, the protocol's among them
            try:
                os.write(fd, line)
            except OSError:
                pass
        raise ValueError("this function never returns")
"""


def test_a_forged_reply_is_refused_and_the_next_request_gets_its_own(tmp_path: Path) -> None:
    forged, honest = verify(
        [
            identity_request("0", FORGER, "always_raises", tmp_path),
            identity_request("1", DOUBLE, "double", tmp_path),
        ]
    )
    assert forged.status == "unverifiable"
    assert forged.reason == (
        "verification stopped: the child sent a reply that does not answer this request"
    )
    assert (honest.request_id, honest.status) == ("1", "verified")


LEAKER = """
    import os

    def leak(x):
        found = os.environ.get("JAXLINT_TEST_SECRET", "not in my environment")
        raise ValueError("secret: " + found)
"""


def test_the_child_never_sees_the_users_environment(tmp_path: Path, monkeypatch) -> None:
    secret = "hunter2-0123456789abcdef"
    monkeypatch.setenv("JAXLINT_TEST_SECRET", secret)
    monkeypatch.setenv("JAX_TEST_KNOB", "kept")
    env = child_environment(str(tmp_path))
    assert "JAXLINT_TEST_SECRET" not in env
    assert (env["JAX_TEST_KNOB"], env["HOME"], env["TMPDIR"]) == (
        "kept",
        str(tmp_path),
        str(tmp_path),
    )
    (result,) = verify([identity_request("leak", LEAKER, "leak", tmp_path)])
    assert result.status == "unverifiable"
    assert "not in my environment" in result.reason
    assert secret not in result.reason
    # and a value user code found elsewhere (a file, a config) is hidden in what is shown
    assert redact_environment(f"token {secret} refused") == "token $JAXLINT_TEST_SECRET refused"


SPAWNER = """
    import subprocess

    def spawn(x):
        subprocess.Popen(["sleep", "SECONDS"])  # outlives the function, unless stopped
        with open("written-by-user-code.txt", "w") as out:
            out.write("relative writes land in the child's own folder")
        return x * 2
"""


def test_no_orphans_and_no_writes_in_the_callers_folder(tmp_path: Path, monkeypatch) -> None:
    seconds = f"300.{secrets.randbelow(10**6):06}"  # names the sleeps this test starts
    monkeypatch.chdir(tmp_path)
    # a temporary folder of its own: other test workers' children come and go in the shared one
    private = tmp_path / "tmp"
    private.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(private))
    before = _verify_folders()
    assert before == set()
    source = SPAWNER.replace("SECONDS", seconds)
    (result,) = verify([identity_request("spawn", source, "spawn", tmp_path)])
    assert result.status == "verified"
    assert not (tmp_path / "written-by-user-code.txt").exists()
    assert _verify_folders() == before  # the child's folder went with it
    deadline = time.monotonic() + 10
    while _sleeping(seconds) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _sleeping(seconds) == []


def _verify_folders() -> set[str]:
    return {p.name for p in Path(tempfile.gettempdir()).glob("jaxlint-verify-*")}


def _sleeping(seconds: str) -> list[int]:
    """The live (not zombie) processes running `sleep <seconds>`."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            command = (entry / "cmdline").read_bytes().split(b"\0")
            state = (entry / "stat").read_text().rpartition(") ")[2][:1]
        except OSError:
            continue
        if command[:2] == [b"sleep", seconds.encode()] and state != "Z":
            found.append(int(entry.name))
    return found


WRITER = """
    def scribble(x):
        with open("TARGET", "w") as out:
            out.write("user code wrote outside its folder")
        return x * 2
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Landlock is Linux's")
def test_user_code_cannot_write_outside_the_childs_folder(tmp_path: Path) -> None:
    target = tmp_path / "outside.txt"
    source = WRITER.replace("TARGET", str(target))
    (result,) = verify([identity_request("scribble", source, "scribble", tmp_path)])
    if not confine_writes_supported():
        pytest.skip("this kernel has no Landlock")
    assert not target.exists()
    assert result.status == "unverifiable"
    assert "PermissionError: [Errno 13] Permission denied" in result.reason


def confine_writes_supported() -> bool:
    probe = (
        "import sys; from jaxlint.verify.landlock import confine_writes as c; sys.exit(not c([]))"
    )
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    return subprocess.run([sys.executable, "-c", probe], env=env).returncode == 0


SLEEPER = """
    import time

    def slow(x):
        time.sleep(30)
        return x
"""


def test_the_run_has_one_time_budget_for_all_its_functions(tmp_path: Path) -> None:
    slow = [identity_request(f"slow{i}", SLEEPER, "slow", tmp_path) for i in range(3)]
    with VerificationSession(budget_s=4) as session:
        results = session.verify(slow, time_limit_s=3)
    assert [r.status for r in results] == ["timeout", "timeout", "timeout"]
    assert results[0].reason == "verification exceeded the 3 s time limit"
    assert results[1].reason.startswith("verification exceeded the 0.")  # what the budget left
    assert results[2].reason == (
        "not verified: this run's verification time (4 s, JAXLINT_VERIFY_BUDGET_S) is spent"
    )


def test_no_verify_never_starts_the_child(tmp_path: Path, monkeypatch, capsys) -> None:
    from jaxlint import cli
    from jaxlint.verify import runner

    def refuse(*_args: object) -> None:
        raise AssertionError("the verification child was started")

    monkeypatch.setattr(runner, "_Child", refuse)
    seed = Path(__file__).resolve().parents[1] / "fixtures" / "seed" / "cumulative_sum.py"
    (tmp_path / "cumulative_sum.py").write_text(seed.read_text())
    monkeypatch.chdir(tmp_path)
    assert cli.main(["check", "--no-cache", "--fix", "--no-verify", "cumulative_sum.py"]) == 1
    assert "\n    no fix: not verified (--no-verify)\n" in capsys.readouterr().out


def test_paths_in_the_environment_are_not_taken_for_secrets(monkeypatch) -> None:
    monkeypatch.setenv("PWD", "/home/someone/project")
    reason = "import of cnb failed: /home/someone/project/src/cnb/__init__.py: ImportError"
    assert redact_environment(reason) == reason


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_CPU as on Linux")
def test_a_request_past_its_cpu_time_is_ended_by_sigxcpu() -> None:
    burn = "from jaxlint.verify.child import _limit_cpu\n_limit_cpu(1)\nwhile True:\n    pass\n"
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    done = subprocess.run([sys.executable, "-c", burn], env=env, timeout=60)
    assert done.returncode == -signal.SIGXCPU
