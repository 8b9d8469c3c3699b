"""What the verification sandbox holds on this machine: its fences, and the hostile modules of
tests/test_sandbox.py run against the real child (each returns normally when its attack failed,
so the identity rewrite is `verified`). Run it wherever jaxlint verifies (a TPU VM, a CI image):

    python bench/sandbox_probe.py

The module that sends SIGSTOP to every process it can see runs only where the child gets a
PID namespace (elsewhere it would stop this machine's processes of the same user)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from jaxlint.verify.runner import sandbox_policy  # noqa: E402
from tests import test_sandbox as hostile  # noqa: E402


def main() -> int:
    features = hostile.sandbox_features()
    if sandbox_policy() == "off":  # what the child gets then: the launcher without namespaces
        launcher = [sys.executable, "-m", "jaxlint.verify.sandbox", "--no-namespaces"]
        probe = "from jaxlint.verify.child import _sandbox_features as f; print(json.dumps(f()))"
        features = hostile._probed([*launcher, sys.executable], probe)
    print(f"policy {sandbox_policy()}, fences:", json.dumps(features))
    landlock = hostile.confine_writes_supported()
    print("landlock writes:", landlock)
    probes = {
        "honest double": (hostile.DOUBLE, "double", {}),
        "tamper (chmod/utime/chown outside, /dev/shm)": (hostile.TAMPERER, "tamper", {}),
        "daemons (setsid, double fork)": (hostile.DAEMONIZER, "daemonize", {}),
        "read parents' environ": (hostile.PROC_READER, "steal", {}),
        "secret from a file in the reason": (hostile.DESCRIPTION_FORGER, "double", {}),
        "forged verdict for a wrong rewrite": (
            "def triple(x):\n    return x * 2\n",
            "triple",
            {"rewritten": hostile.VERDICT_FORGER},
        ),
    }
    if features.get("pid_namespace") and sandbox_policy() != "off":
        probes["SIGSTOP every visible process"] = (hostile.STOPPER, "stop_them_all", {})
    with tempfile.TemporaryDirectory() as folder_name:
        folder = Path(folder_name)
        outside = folder / "outside.txt"
        outside.write_text("the user's file")
        os.utime(outside, (1_000_000_000, 1_000_000_000))
        before = outside.stat()
        shm = Path("/dev/shm") / "jaxlint-probe"
        shm.unlink(missing_ok=True)  # left by an earlier probe without the fences
        secret = "hunter2-probe-0123456789"
        (folder / ".env").write_text(f"API_TOKEN={secret}\n")
        for label, (source, target, options) in probes.items():
            source = (
                source.replace("OUTSIDE", str(outside))
                .replace("SHM", str(shm))
                .replace("SECONDS", "302.5")
                .replace("SECRET_MARK", "JAXLINT_PROBE_SECRET=")
                .replace("SECRET_VALUE", secret)
            )
            rewritten = textwrap.dedent(options.get("rewritten", source))
            status, reason = _verify_in_a_process(folder, source, rewritten, target, secret)
            print(f"{label}: {status}" + ("" if status == "verified" else f" ({reason[:160]})"))
        after = outside.stat()
        touched = (after.st_mode, after.st_mtime, after.st_ctime) != (
            before.st_mode,
            before.st_mtime,
            before.st_ctime,
        )
        print("outside file changed:", touched, "| /dev/shm file left:", shm.exists())
        left = subprocess.run(["pgrep", "-f", "sleep 302.5"], capture_output=True, text=True)
        print("daemons left:", len(left.stdout.split()))
    return 0


def _verify_in_a_process(
    folder: Path, source: str, rewritten: str, target: str, secret: str
) -> tuple[str, str]:
    """(status, reason) of verifying `source` rewritten to `rewritten` in a fresh process; a
    reason that holds the secret in any form is LEAKED."""
    (folder / "module.py").write_text(textwrap.dedent(source))
    (folder / "rewritten.py").write_text(rewritten)
    script = (
        "import json; from pathlib import Path; from jaxlint.verify import VerifyRequest, verify;"
        f" p = Path({str(folder)!r}); old = (p / 'module.py').read_text();"
        " new = (p / 'rewritten.py').read_text();"
        f" (r,) = verify([VerifyRequest('m', str(p / 'module.py'), old, new, {target!r}, 'X',"
        " False)], time_limit_s=60); print(json.dumps([r.status, r.reason]))"
    )
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    env = dict(os.environ, PYTHONPATH=path, JAXLINT_PROBE_SECRET=secret)
    try:
        done = subprocess.run(
            [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=240
        )
    except subprocess.TimeoutExpired:
        return "hung", "the verifying process did not finish"
    lines = done.stdout.strip().splitlines()
    if not lines:
        return "crashed", done.stderr[-300:]
    status, reason = json.loads(lines[-1])
    if secret in reason or secret[::-1] in reason:
        status = "LEAKED"
    return status, reason


if __name__ == "__main__":
    sys.exit(main())
