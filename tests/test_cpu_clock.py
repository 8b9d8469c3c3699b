"""A request's time limit counts the child's CPU time: a starved child is not stopped at the
limit's wall time, a sleeping one is, and a working one is once it has used the limit."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

from jaxlint.verify.cpu_clock import RequestClock, cpu_seconds, limit_spent, most_wall

needs_proc = pytest.mark.skipif(
    not os.path.isdir("/proc") or not hasattr(os, "sched_setaffinity"),
    reason="reads /proc and pins processes to one core",
)

# Each process pins itself to the first core it may use, so that two of them share it.
PINNED_BUSY = """
import os, sys
os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
print("running", flush=True)
while True:
    pass
"""
SLEEPER = """
import time
print("running", flush=True)
time.sleep(60)
"""


def _started(code: str) -> subprocess.Popen[str]:
    process = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, start_new_session=True
    )
    assert process.stdout is not None and process.stdout.readline() == "running\n"
    return process


@pytest.fixture
def processes() -> Iterator[list[subprocess.Popen[str]]]:
    started: list[subprocess.Popen[str]] = []
    yield started
    for process in started:  # the process group: a busy grandchild too
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def _spent_after(clock: RequestClock) -> float:
    """Wait as the runner does, with nothing to receive; the wall time until it is spent."""
    started = time.monotonic()
    while (wait := clock.wait_s()) > 0:
        time.sleep(wait)
    return time.monotonic() - started


def test_the_limit_is_spent_in_cpu_and_in_wall_time() -> None:
    assert not limit_spent(2.0, 1.9, 1.9, 6.0)  # the wall time is not up
    assert limit_spent(2.0, 2.0, 2.0, 6.0)  # both are
    assert not limit_spent(2.0, 4.0, 1.0, 6.0)  # half a core: it goes on
    assert limit_spent(2.0, 4.0, 0.1, 6.0)  # asleep or blocked
    assert limit_spent(2.0, 6.0, 1.9, 6.0)  # three limits of wall time at most
    assert limit_spent(2.0, 2.0, None, 6.0)  # no CPU time to read: wall time
    assert most_wall(2.0) == 6.0
    assert most_wall(2.0, cap_s=3.0) == 3.0  # the run's budget ends it sooner
    assert most_wall(2.0, cap_s=1.0) == 2.0


@needs_proc
def test_a_starved_child_gets_its_cpu_time_and_a_sleeping_one_does_not(processes) -> None:
    processes.append(_started(PINNED_BUSY))  # the load: it takes half of the shared core
    busy = _started(PINNED_BUSY)
    processes.append(busy)
    sleeper = _started(SLEEPER)
    processes.append(sleeper)

    before = cpu_seconds(busy.pid)
    waited = _spent_after(RequestClock(busy.pid, 1.0))
    used = cpu_seconds(busy.pid) - before
    assert waited > 1.3, "stopped at the limit's wall time with about half of its CPU time"
    assert used >= 0.95 or waited >= 2.9, (waited, used)

    assert _spent_after(RequestClock(sleeper.pid, 1.0)) < 1.3


@needs_proc
def test_the_cpu_time_of_a_process_tree_counts_its_children(processes) -> None:
    parent = _started(
        f"import subprocess, sys; subprocess.run([sys.executable, '-c', {PINNED_BUSY!r}])"
    )
    processes.append(parent)
    before = cpu_seconds(parent.pid)
    time.sleep(1.0)
    assert cpu_seconds(parent.pid) - before > 0.3  # the child's loop, not the waiting parent
