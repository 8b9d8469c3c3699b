"""The verification child: `python -m jaxlint.verify.child`; JSON lines in on stdin, out on stdout.

Protocol (one JSON object per line):
  child → parent  {"type": "ready", "jax_version": "...", "sandbox": {feature: bool}}
                  once JAX is imported and the fences are up
                  {"type": "jax-missing", "error": "..."}  when it cannot be, then exits
  parent → child  {"op": "open", "request": {...VerifyRequest...}, "cpu_limit_s": 120}
                  {"op": "call", "role": "rewritten", "case": 0, "set": 2}
                  {"op": "mutations"}
                  {"op": "close"}  (no reply)
  child → parent  {"type": "reply", ...}: what `check.Trial` returned for the op, or
                  {"type": "reply", "error": "ClassName"} when it raised
The child sends what the checked code did, as data; jaxlint judges it (`jaxlint.verify.verdict`)
and holds no secret the child could use to speak for it. The protocol streams are private,
non-inheritable copies of fds 0 and 1: user code reads /dev/null on fd 0 and its prints (and
JAX's) land on stderr.

Limits: CPU time per request here; resident memory (JAXLINT_VERIFY_MEMORY_MB) and wall time are
watched by the parent (`memory`, `runner`), and on Linux with Landlock no writes outside its
working folder (and /dev).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sys
import threading
import time
from typing import Any, TextIO

from jaxlint.verify.compile_settings import cheap_compile_environment, installed_jaxlib

try:
    import resource
except ImportError:  # not on Windows: the parent's wall-time limits still hold
    resource = None  # type: ignore[assignment]  # tested for None where used


def _claim_protocol_streams() -> tuple[TextIO, TextIO]:
    """Move the protocol onto private fds; point fd 0 at /dev/null and fd 1 at stderr."""
    sys.stdout.flush()
    protocol_in = os.fdopen(os.dup(0), "r", encoding="utf-8")
    protocol_out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(2, 1)
    return protocol_in, protocol_out


def _set_soft_limit(which: int, soft: int) -> None:
    """Set a resource's soft limit, never above its hard limit."""
    _, hard = resource.getrlimit(which)
    if hard != resource.RLIM_INFINITY:
        soft = min(soft, hard)
    resource.setrlimit(which, (soft, hard))


def _limit_cpu(seconds: float) -> None:
    """Let this request use `seconds` more CPU time (all threads); SIGXCPU ends the child."""
    if resource is None or seconds <= 0:
        return
    usage = resource.getrusage(resource.RUSAGE_SELF)
    _set_soft_limit(resource.RLIMIT_CPU, int(usage.ru_utime + usage.ru_stime + seconds) + 1)


def _send(stream: TextIO, message: dict[str, Any]) -> None:
    stream.write(json.dumps(message) + "\n")
    stream.flush()


def _end_with_parent(every_s: float = 0.25) -> None:
    """End this child, and what it started in its process group, once its parent is gone (a
    SIGKILLed jaxlint): a thread that watches for the reparenting. Not the parent-death signal:
    the parent starts children from threads that end long before it does."""
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(every_s)
        with contextlib.suppress(OSError):
            os.killpg(0, signal.SIGKILL)
        os._exit(1)

    threading.Thread(target=watch, name="jaxlint-parent-watch", daemon=True).start()


def _sandbox_features() -> dict[str, bool]:
    """What `jaxlint.verify.sandbox` put in force around this child (nothing, when it did not
    start this child)."""
    from jaxlint.verify.sandbox import ENVIRONMENT_NAME, FEATURES

    try:
        told = json.loads(os.environ.pop(ENVIRONMENT_NAME, "{}"))
    except ValueError:
        told = {}
    return {name: told.get(name) is True for name in FEATURES}


# What the child reads beside the project: the system's libraries and settings a Python process
# (and a library it imports later, such as matplotlib) reads; no home folder, /tmp, /root, /var,
# /run, /opt or /mnt, and of /etc no secret.
_SYSTEM_READS = (
    "/usr", "/lib", "/lib32", "/lib64", "/bin", "/sbin", "/dev", "/proc", "/sys", "/nix/store",
    "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime",
    "/etc/timezone", "/etc/passwd", "/etc/group", "/etc/nsswitch.conf", "/etc/hosts",
    "/etc/host.conf", "/etc/resolv.conf", "/etc/os-release", "/etc/lsb-release",
    "/etc/mime.types", "/etc/ssl/certs", "/etc/ca-certificates", "/etc/pki/tls/certs",
    "/etc/alternatives", "/etc/fonts", "/etc/matplotlibrc",
)  # fmt: skip


def _readable(projects: list[str]) -> list[str]:
    """Where the child may read: the projects jaxlint named, the Python installation (its
    prefixes and every folder on sys.path: site-packages, editable installs, jaxlint), and the
    system (`_SYSTEM_READS`)."""
    prefixes = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    folders = {entry for entry in sys.path if entry and os.path.isdir(entry)}
    return sorted({*projects, *prefixes, *folders, *_SYSTEM_READS})


def main() -> int:
    """Serve verification requests until stdin closes."""
    _end_with_parent()
    protocol_in, protocol_out = _claim_protocol_streams()
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    # before JAX starts XLA, which reads XLA_FLAGS once: the settings that need this jaxlib
    os.environ.update(cheap_compile_environment(os.environ, installed_jaxlib()))
    try:
        import jax
    except Exception as exc:  # noqa: BLE001 — a broken install is as good as a missing one
        _send(protocol_out, {"type": "jax-missing", "error": f"{type(exc).__name__}: {exc}"})
        return 0
    from jaxlint.verify.landlock import confine
    from jaxlint.verify.protocol import READS_NAME

    # XLA's first compilation in a process pays one-off set-up costs: keep them out of the timings.
    jax.jit(lambda x: x + 1).lower(1.0).compile()
    # after JAX's import and first compile, which may write their caches
    fences = _sandbox_features()
    projects = os.environ.pop(READS_NAME, None)  # None: started by hand, reads not fenced
    reads = _readable(json.loads(projects)) if projects is not None else None
    fences.update(confine([os.getcwd(), os.devnull.rpartition("/")[0] or os.devnull], reads))
    _send(protocol_out, {"type": "ready", "jax_version": jax.__version__, "sandbox": fences})
    _serve(protocol_in, protocol_out)
    return 0


def _serve(protocol_in: TextIO, protocol_out: TextIO) -> None:
    """Answer jaxlint's ops until stdin closes: each request's `Trial` stays open from its
    `open` to the next `open` or `close`."""
    from jaxlint.verify.check import Trial
    from jaxlint.verify.protocol import request_from_wire

    with contextlib.ExitStack() as open_trial:
        trial: Trial | None = None
        for line in protocol_in:
            if not line.strip():
                continue
            message = json.loads(line)
            op = message.get("op")
            if op in ("open", "close"):
                open_trial.close()
                trial = None
            if op == "close":
                continue
            try:
                if op == "open":
                    _limit_cpu(float(message.get("cpu_limit_s") or 0))
                    trial = open_trial.enter_context(Trial(request_from_wire(message["request"])))
                    reply = trial.open()
                elif op == "call" and trial is not None:
                    reply = {"call": trial.call(message["role"], message["case"], message["set"])}
                elif op == "mutations" and trial is not None:
                    reply = {"mutations": trial.mutations()}
                else:
                    reply = {"error": "ProtocolError"}
            except (Exception, SystemExit) as exc:  # noqa: BLE001 — user code raised past jaxlint
                reply = {"error": type(exc).__name__}
            sys.stdout.flush()
            sys.stderr.flush()
            _send(protocol_out, {"type": "reply", **reply})


if __name__ == "__main__":
    sys.exit(main())
