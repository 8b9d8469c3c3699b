"""The verification child's memory limit: what its processes really hold, never address space.

JAX's runtimes reserve far more virtual memory than they touch (XLA's CPU client, libtpu and
the CUDA plugin map tens of GiB on many-core and accelerator hosts, `PROT_NONE` and
`MAP_NORESERVE`), so an address-space limit (`RLIMIT_AS`) fails every verification there with a
MemoryError while the same code needs a few hundred MiB. The limit here is on resident memory:
a thread in the parent samples the resident set of the child and of every process it started
(at any depth, whatever its process group or session), and kills them all once their sum
passes the limit. A sampler, not a cgroup:
cgroup v2 `memory.max` needs a subtree delegated to the user with no process of its own in it,
which CI containers and sandboxed VMs (gVisor) rarely offer; sampling works wherever `/proc`
does. Between two samples a child can overshoot by what it allocates in `SAMPLE_S`.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Mapping

# How often the child's own resident set is read, and how often the whole process group is.
SAMPLE_S = 0.05
TREE_SCAN_EVERY = 10  # samples: a scan of /proc reads one file per process on the machine
_MIB = 1024 * 1024
_FLOOR_MB = 2048  # JAX and XLA alone hold ~0.5 GiB; a small verification needs a little more
ENVIRONMENT_NAME = "JAXLINT_VERIFY_MEMORY_MB"
try:
    _PAGE_SIZE = os.sysconf("SC_PAGE_SIZE")
except (AttributeError, ValueError, OSError):
    _PAGE_SIZE = 4096


def machine_memory_bytes() -> int | None:
    """Physical memory, or the container's memory limit where that is lower; None if unknown."""
    total: int | None = None
    with contextlib.suppress(AttributeError, ValueError, OSError):
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    for limit_file in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        with contextlib.suppress(OSError, ValueError):
            with open(limit_file) as handle:
                limit = int(handle.read().strip())  # "max" raises ValueError: no limit
            if total is None or 0 < limit < total:
                total = limit
    return total


def limit_mb(environ: Mapping[str, str] | None = None) -> int:
    """The limit in MiB: JAXLINT_VERIFY_MEMORY_MB (0 turns it off), else a quarter of the
    machine's memory and at least 2 GiB (6 GiB on a 24 GiB machine, 10 GiB on a 40 GiB TPU VM)."""
    if environ is None:
        environ = os.environ
    configured = environ.get(ENVIRONMENT_NAME, "").strip()
    if configured:
        try:
            return max(0, int(configured))
        except ValueError:
            pass  # a malformed value falls back to the default rather than stopping the run
    total = machine_memory_bytes()
    return _FLOOR_MB if total is None else max(_FLOOR_MB, total // 4 // _MIB)


def describe_limit(megabytes: int) -> str:
    """'6 GiB' or '1.5 GiB' or '512 MiB'."""
    if megabytes < 1024:
        return f"{megabytes} MiB"
    return f"{megabytes / 1024:.3g} GiB"


def resident_bytes(pid: int) -> int:
    """The resident set of one process (0 when it is gone or unreadable)."""
    try:
        with open(f"/proc/{pid}/statm", "rb") as handle:
            return int(handle.read().split()[1]) * _PAGE_SIZE
    except (OSError, IndexError, ValueError):
        return 0


def children_by_parent() -> dict[int, list[int]]:
    """Each process's children, from the parent process ids in /proc."""
    children: dict[int, list[int]] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return children
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                stat = handle.read()
        except OSError:
            continue
        # pid (comm) state ppid ...: comm may hold spaces and parentheses, so split after it
        fields = stat[stat.rfind(b")") + 2 :].split()
        if len(fields) > 1:
            children.setdefault(int(fields[1]), []).append(int(entry))
    return children


def descendants(root: int) -> list[int]:
    """The processes started by `root`, at any depth: those in a process group or session of
    their own (`setsid`) and those a PID namespace's first process adopted included."""
    children = children_by_parent()
    found, frontier = [], [root]
    while frontier:
        kids = children.get(frontier.pop(), [])
        found += kids
        frontier += kids
    return found


class ResidentMemoryWatch:
    """Samples the resident memory of process `pid` and its descendants in a thread and calls
    `stop` once, when it passes `limit_bytes`; `breached` says whether it did."""

    def __init__(self, pid: int, limit_bytes: int, stop: Callable[[], object]) -> None:
        self._pid = pid
        self._limit = limit_bytes
        self._stop = stop
        self._done = threading.Event()
        self.breached = False
        self.peak_bytes = 0
        self._thread = threading.Thread(target=self._watch, name="jaxlint-memory", daemon=True)
        self._thread.start()

    def _watch(self) -> None:
        others: list[int] = []
        samples = 0
        while not self._done.wait(SAMPLE_S):
            if samples % TREE_SCAN_EVERY == 0:
                others = descendants(self._pid)
            samples += 1
            used = resident_bytes(self._pid) + sum(resident_bytes(p) for p in others)
            self.peak_bytes = max(self.peak_bytes, used)
            if used > self._limit:
                self.breached = True
                self._stop()
                return

    def close(self) -> None:
        """Stop sampling."""
        self._done.set()
        if self._thread is not threading.current_thread():
            self._thread.join(timeout=5)


PROCESSES_NAME = "JAXLINT_VERIFY_PROCESSES"


def process_limit() -> int:
    """Process IDs (processes and threads) the child's PID namespace may hold at once:
    JAXLINT_VERIFY_PROCESSES, else 4096 and 16 per core (XLA starts a thread pool per core)."""
    try:
        return max(64, int(os.environ[PROCESSES_NAME]))
    except (KeyError, ValueError):
        return 4096 + 16 * (os.cpu_count() or 1)
