"""`python -m jaxlint.verify.sandbox [--no-namespaces] [--processes=N] CMD...`: run the
verification child in namespaces of its own.

The child runs the checked code. On Linux with user namespaces this launcher (trusted: it never
loads user code) gives it:

- a PID namespace with a /proc of its own, whose process 1 (this module's code) reaps orphans
  and ends when the child does: the child cannot see or signal jaxlint or any other process
  outside, and when it ends, every process it started ends too, `setsid` daemons included (the
  kernel kills a namespace with its first process); at most N process IDs, threads included
  (the namespace's own `pid_max`, Linux 6.14+): a fork bomb stops there;
- a network namespace with no interface up: no connection to anything, not even loopback, and
  no abstract Unix socket of the machine;
- a mount namespace in which every file system is remounted read-only except the child's own
  working folder, with a private `/dev/shm`: nothing outside that folder can be written, created,
  deleted, chmod-ed, chown-ed or touched, whatever Landlock (the second fence, in `child`) offers;
- an IPC namespace (no System V shared memory or queues of the machine), no capabilities (the
  bounding set is emptied before the child starts, so even a child mapped to root has none), and
  no new privileges.

The launcher stays outside the PID namespace, cannot be ptraced (not dumpable), ends the child
when jaxlint goes (it watches for its own reparenting) and exits with the child's status.
This module imports nothing that starts a thread (NumPy's BLAS pool): the kernel refuses a
user namespace to a process that has more than one. Each feature is tried on its own; what the
kernel refused is listed in JAXLINT_SANDBOX for the child to report (`jaxlint.verify.runner`
warns, or refuses to verify when asked to). Where the kernel offers no namespaces (gVisor, on
TPU VMs; a container that forbids them), or with `--no-namespaces`, the launcher still adopts
every orphan of the child's tree as its subreaper and kills them when the child ends, and
Landlock (in `child`) fences writes where it exists.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import select
import signal
import sys
import time

from jaxlint.verify.memory import children_by_parent, process_limit

ENVIRONMENT_NAME = "JAXLINT_SANDBOX"  # the features in force, for the child to report
FEATURES = (
    "reaps_descendants",
    "pid_namespace",
    "private_proc",
    "network_namespace",
    "read_only_mounts",
    "private_dev_shm",
    "ipc_namespace",
    "no_capabilities",
    "process_limit",
)

_CLONE_NEWNS, _CLONE_NEWIPC = 0x00020000, 0x08000000
_CLONE_NEWUSER, _CLONE_NEWPID, _CLONE_NEWNET = 0x10000000, 0x20000000, 0x40000000
_MS_RDONLY, _MS_NOSUID, _MS_NODEV, _MS_NOEXEC = 1, 2, 4, 8
_MS_REMOUNT, _MS_NOATIME, _MS_NODIRATIME, _MS_BIND = 32, 1024, 2048, 4096
_MS_REC, _MS_PRIVATE, _MS_RELATIME = 16384, 1 << 18, 1 << 21
# statvfs flags that a remount must repeat (the kernel refuses to clear a locked one)
_KEPT_FLAGS = {2: _MS_NOSUID, 4: _MS_NODEV, 8: _MS_NOEXEC, 1024: _MS_NOATIME, 2048: _MS_NODIRATIME}
_PR_SET_PDEATHSIG, _PR_SET_DUMPABLE, _PR_CAPBSET_DROP, _PR_SET_NO_NEW_PRIVS = 1, 4, 24, 38
_PR_SET_CHILD_SUBREAPER = 36
_DEV_SHM_SIZE = "size=64m"


def main(argv: list[str]) -> int:
    """Run `argv` sandboxed and end as it ended: with its exit status, or killed by the signal
    that killed it (jaxlint tells a CPU limit by SIGXCPU)."""
    namespaces, processes = True, process_limit()
    while argv and argv[0].startswith("--"):
        option = argv.pop(0)
        if option == "--no-namespaces":
            namespaces = False
        elif option.startswith("--processes=") and option[12:].isdigit():
            processes = max(64, int(option[12:]))
        else:
            argv = []
    if not argv:
        usage = "usage: python -m jaxlint.verify.sandbox [--no-namespaces] [--processes=N] CMD..."
        print(usage, file=sys.stderr)
        return 2
    libc = _libc()
    if libc is None:
        os.execvp(argv[0], argv)  # not Linux: the child as before
    parent = os.getppid()
    contained = namespaces and _enter_namespaces(libc)
    if not contained:  # orphans of the child's tree are adopted here, and killed at its end
        libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    libc.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)
    child = os.fork()
    if child == 0:
        _become_first_process(libc, argv, contained, processes)  # never returns
    for sent in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sent, lambda signum, frame: _kill(child))
    status = _wait_for(child, parent)
    if not contained:
        _kill_adopted()
    if contained and status > 128:  # process 1 says the child died of signal status - 128
        status = 128 - status
    if status < 0:  # the child died of a signal (SIGXCPU: its CPU limit): end the same way
        signal.signal(-status, signal.SIG_DFL)
        os.kill(os.getpid(), -status)
    return 128 - status if status < 0 else status


def _libc() -> ctypes.CDLL | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None


def _enter_namespaces(libc: ctypes.CDLL) -> bool:
    """A new user namespace (mapping this user to itself) holding new mount, PID, network and
    IPC namespaces; False when the kernel (or a policy) refuses."""
    uid, gid = os.geteuid(), os.getegid()
    flags = _CLONE_NEWUSER | _CLONE_NEWNS | _CLONE_NEWPID | _CLONE_NEWNET | _CLONE_NEWIPC
    if libc.unshare(flags) != 0:
        return False
    try:
        _write("/proc/self/setgroups", "deny")
        _write("/proc/self/uid_map", f"{uid} {uid} 1")
        _write("/proc/self/gid_map", f"{gid} {gid} 1")
    except OSError:
        return False
    return True


def _write(path: str, text: str) -> None:
    with open(path, "w") as handle:
        handle.write(text)


def _become_first_process(
    libc: ctypes.CDLL, argv: list[str], contained: bool, processes: int
) -> None:
    """In the new PID namespace (`contained`): fence the file systems, cap the namespace's
    process IDs at `processes`, and drop every capability; then run `argv`."""
    status = 127
    try:
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)  # the launcher gone: all gone
        features = dict.fromkeys(FEATURES, False)
        features["reaps_descendants"] = True  # a PID namespace, or this launcher's adoption
        if contained:
            features.update(pid_namespace=True, network_namespace=True, ipc_namespace=True)
            features.update(_fence_mounts(libc, os.getcwd()))
            features["process_limit"] = _limit_processes(processes)
        # Without namespaces too: root's child would otherwise keep CAP_SYS_PTRACE, and with it
        # read the environment of jaxlint, undumpable or not.
        features["no_capabilities"] = _drop_capabilities(libc)
        os.environ[ENVIRONMENT_NAME] = json.dumps(features)
        for default in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(default, signal.SIG_DFL)
        if contained:
            child = os.fork()
            if child:
                _serve_as_init(child)  # never returns
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        os.execvp(argv[0], argv)
    except BaseException as error:  # noqa: BLE001 — in a forked child: say why, never return
        with contextlib.suppress(Exception):
            os.write(2, f"jaxlint sandbox: {type(error).__name__}: {error}\n".encode())
    os._exit(status)


def _serve_as_init(child: int) -> None:
    """Process 1 of the namespace: reap every orphan until `child` (the verification child, the
    namespace's second process) ends, then end the namespace with its status, a signal N as
    128 + N. Not the child itself as process 1: the kernel ignores a signal with its default
    action sent to process 1 by any process inside, SIGXCPU among them (its CPU limit)."""
    while True:
        try:
            pid, status = os.wait()
        except ChildProcessError:
            os._exit(1)
        except InterruptedError:
            continue
        if pid == child:
            code = os.waitstatus_to_exitcode(status)
            os._exit(128 - code if code < 0 else code)


def _fence_mounts(libc: ctypes.CDLL, home: str) -> dict[str, bool]:
    """Every mount read-only but `home`; a private /dev/shm; a /proc of this PID namespace."""
    mount = libc.mount
    mount.argtypes = [
        ctypes.c_char_p,
        ctypes.c_char_p,
        ctypes.c_char_p,
        ctypes.c_ulong,
        ctypes.c_void_p,
    ]
    out = {"read_only_mounts": False, "private_dev_shm": False, "private_proc": False}
    if mount(None, b"/", None, _MS_REC | _MS_PRIVATE, None) != 0:
        return out  # mounts would reach the machine's namespace: leave them all alone
    home_bytes = os.fsencode(home)
    if mount(home_bytes, home_bytes, None, _MS_BIND | _MS_REC, None) != 0:
        return out
    os.chdir(home)  # into the new mount: the old working folder is about to be read-only
    refused = 0
    for point in _mount_points():
        if point == home or point.startswith(os.path.join(home, "")):
            continue
        try:
            kept = os.statvfs(point).f_flag
        except OSError:
            continue
        flags = _MS_REMOUNT | _MS_BIND | _MS_RDONLY
        flags |= sum(ms for st, ms in _KEPT_FLAGS.items() if kept & st)
        if mount(None, os.fsencode(point), None, flags, None) != 0:
            refused += 1
    out["read_only_mounts"] = refused == 0
    if os.path.isdir("/dev/shm"):
        tmpfs_flags = _MS_NOSUID | _MS_NODEV | _MS_NOEXEC
        out["private_dev_shm"] = (
            mount(b"tmpfs", b"/dev/shm", b"tmpfs", tmpfs_flags, _DEV_SHM_SIZE.encode()) == 0
        )
    proc_flags = _MS_NOSUID | _MS_NODEV | _MS_NOEXEC
    out["private_proc"] = mount(b"proc", b"/proc", b"proc", proc_flags, None) == 0
    return out


def _limit_processes(processes: int) -> bool:
    """Cap this PID namespace's process IDs (its own `pid_max`, which the child, without
    capabilities, cannot raise); False where the kernel does not namespace `pid_max`."""
    try:
        _write("/proc/sys/kernel/pid_max", str(processes))
        with open("/proc/sys/kernel/pid_max") as handle:
            return int(handle.read()) == processes
    except (OSError, ValueError):
        return False


def _mount_points() -> list[str]:
    """Mount points of this mount namespace, parents before children."""
    points = []
    try:
        with open("/proc/self/mountinfo", encoding="utf-8", errors="surrogateescape") as handle:
            for line in handle:
                fields = line.split()
                if len(fields) > 4:
                    points.append(_unescaped(fields[4]))
    except OSError:
        return []
    return sorted(set(points), key=lambda point: (point.count("/"), point))


def _unescaped(field: str) -> str:
    """mountinfo writes space, tab, newline and backslash in a path as octal escapes."""
    for code in ("\\040", "\\011", "\\012", "\\134"):
        field = field.replace(code, chr(int(code[1:], 8)))
    return field


def _drop_capabilities(libc: ctypes.CDLL) -> bool:
    """Empty the bounding set (no capability survives exec, even as root) and set no_new_privs."""
    try:
        with open("/proc/sys/kernel/cap_last_cap") as handle:
            last = int(handle.read())
    except (OSError, ValueError):
        last = 40
    dropped = all(libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0) == 0 for cap in range(last + 1))
    return dropped and libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0


def _wait_for(child: int, parent: int, every_s: float = 0.25) -> int:
    """The child's exit status; the child is killed (and with it its namespace) once jaxlint,
    this launcher's parent, is gone. A loop, not a thread: a process that made a PID namespace
    for its children cannot start threads."""
    try:
        exited = os.pidfd_open(child)
    except (AttributeError, OSError):
        exited = None
    while True:
        try:
            pid, status = os.waitpid(child, os.WNOHANG)
        except ChildProcessError:
            return 1
        if pid:
            return os.waitstatus_to_exitcode(status)
        if os.getppid() != parent:
            _kill(child)
        if exited is not None:
            select.select([exited], [], [], every_s)  # wakes as soon as the child exits
        else:
            time.sleep(every_s / 5)


def _kill_adopted() -> None:
    """Kill and reap what the child left behind (adopted here as their subreaper)."""
    for _ in range(50):  # orphans of orphans arrive as their parents die
        adopted = children_by_parent().get(os.getpid(), [])
        if not adopted:
            return
        for pid in adopted:
            _kill(pid)
        with contextlib.suppress(ChildProcessError):
            while os.waitpid(-1, os.WNOHANG)[0]:
                pass
        time.sleep(0.01)


def _kill(pid: int) -> None:
    with contextlib.suppress(OSError):
        os.kill(pid, signal.SIGKILL)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
