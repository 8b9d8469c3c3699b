"""The verification child against hostile user code (issue 13): forged replies, leaked secrets,
orphaned processes, files written where they should not be, runaway memory and time. Real child
processes, real JAX."""

from __future__ import annotations

import os
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
    import os
    import subprocess

    def spawn(x):
        child = subprocess.Popen(["sleep", "300"])
        with open(os.environ["SPAWN_RECORD"], "a") as record:
            record.write(f"{child.pid} {os.getcwd()}\\n")
        with open("written-by-user-code.txt", "w") as out:
            out.write("relative writes land in the child's own folder")
        return x * 2
"""


def test_no_orphans_and_no_writes_in_the_callers_folder(tmp_path: Path, monkeypatch) -> None:
    record = tmp_path / "spawned.txt"
    monkeypatch.setenv("JAX_SPAWN_RECORD", "unused")  # JAX_ names pass; this one must not matter
    source = SPAWNER.replace('os.environ["SPAWN_RECORD"]', repr(str(record)))
    monkeypatch.chdir(tmp_path)
    (result,) = verify([identity_request("spawn", source, "spawn", tmp_path)])
    assert result.status == "verified"
    lines = record.read_text().splitlines()
    assert lines
    pids = [int(line.split()[0]) for line in lines]
    folders = {line.split(maxsplit=1)[1] for line in lines}
    assert not (tmp_path / "written-by-user-code.txt").exists()
    assert all(not Path(folder).exists() for folder in folders)  # removed with the child
    assert all(Path(folder).name.startswith("jaxlint-verify-") for folder in folders)
    deadline = time.monotonic() + 10
    while any(_running(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(_running(pid) for pid in pids)


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as stat:  # a zombie has ended, only its entry is left
        return stat.read().split(") ")[1][0] != "Z"


HOG = """
    import numpy as np

    def hog(x):
        pages = []
        for _ in range(64):
            pages.append(np.ones(2**27))  # 1 GiB each
        return x
"""


def test_a_memory_hog_is_stopped_by_the_limit(tmp_path: Path, monkeypatch) -> None:
    (result,) = verify([identity_request("hog", HOG, "hog", tmp_path)])
    assert result.status == "unverifiable"
    assert "MemoryError" in result.reason


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
