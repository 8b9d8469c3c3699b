"""A request's time limit counted in the child's CPU time, so that a busy machine does not
cut verification short.

A wall-clock limit measures the machine as much as the code: under `pytest -n auto` on two
cores, or beside a compile in another window, a verification that needs 30 s of CPU got a
third of a core and passed 60 s of wall time (the flax and nnx module fixtures, 21 s and 27 s
alone, timed out so in CI). The limit is therefore spent only when the child's processes
have used that much CPU time as well as that much wall time, or at `WALL_FACTOR` times the
limit of wall time; a child that is not using the CPU (it sleeps, or waits on input) is stopped
at the limit. Where `/proc` cannot be read the limit is wall time, as before.
"""

from __future__ import annotations

import os
import time

from jaxlint.verify.memory import descendants

# A child still working at this many limits of wall time is stopped whatever its CPU time.
WALL_FACTOR = 3.0
# A child that used less than this share of one core since its request began is waiting, not
# working (asleep, blocked on input): it is stopped at the limit, as a wall clock would.
IDLE_SHARE = 0.1
# How often the CPU time is read once the wall time has passed the limit.
POLL_S = 0.5
try:
    _TICKS = os.sysconf("SC_CLK_TCK")
except (AttributeError, ValueError, OSError):
    _TICKS = 100


def cpu_seconds(pid: int) -> float | None:
    """The CPU time (user and system, its waited-for children's included) of `pid` and of every
    process it started; None where `/proc` cannot say."""
    total = 0
    readable = False
    for process in [pid, *descendants(pid)]:
        try:
            with open(f"/proc/{process}/stat", "rb") as handle:
                stat = handle.read()
        except OSError:
            continue  # gone between the scan and the read
        # after "pid (comm) ": state is field 3, utime..cstime are fields 14..17
        fields = stat[stat.rfind(b")") + 2 :].split()
        try:
            total += sum(int(f) for f in fields[11:15])
        except (IndexError, ValueError):
            continue
        readable = True
    return total / _TICKS if readable else None


def limit_spent(limit_s: float, wall_s: float, cpu_s: float | None, most_wall_s: float) -> bool:
    """Whether work that has run `wall_s` and used `cpu_s` of CPU time (None: unknown) has
    spent `limit_s`: it has used the limit in both, or it is not working (under IDLE_SHARE of
    a core: asleep or blocked), or it has run `most_wall_s`."""
    if wall_s < limit_s:
        return False
    if wall_s >= most_wall_s or cpu_s is None:
        return True
    return cpu_s >= limit_s or cpu_s < IDLE_SHARE * wall_s


def most_wall(limit_s: float, cap_s: float | None = None) -> float:
    """The wall time a limit allows at most: WALL_FACTOR limits, or less where `cap_s` (the
    run's budget) ends sooner."""
    most = WALL_FACTOR * limit_s
    return most if cap_s is None else max(limit_s, min(most, cap_s))


class RequestClock:
    """How long to wait for the child's next reply within one request's `limit_s`."""

    def __init__(self, pid: int, limit_s: float, cap_s: float | None = None) -> None:
        self._pid = pid
        self.limit_s = limit_s
        self._most_wall_s = most_wall(limit_s, cap_s)
        self._started = time.monotonic()
        self._cpu_at_start = cpu_seconds(pid)

    def wait_s(self) -> float:
        """Seconds to wait for a reply before asking again; 0 once the limit is spent."""
        wall = time.monotonic() - self._started
        if wall < self.limit_s:
            return self.limit_s - wall
        used = None
        if self._cpu_at_start is not None and (now := cpu_seconds(self._pid)) is not None:
            used = now - self._cpu_at_start
        if limit_spent(self.limit_s, wall, used, self._most_wall_s):
            return 0.0
        return min(POLL_S, self._most_wall_s - wall)
