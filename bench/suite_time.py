"""Where the test suite's time goes: its wall time, the CPU it and every process it started
used, each worker's last test, and each test module's share (issue 33: CI under 12 minutes).

    .venv/bin/python bench/suite_time.py                 # the whole suite, as .ci/run runs it
    .venv/bin/python bench/suite_time.py tests/test_cli.py -n 0

Arguments go to pytest. The CPU is what the run's processes used once waited for: pytest, its
workers, and what they started (CLI runs, verification children), as getrusage counts them.
A suite near 200 % on two cores is CPU-bound: only less work shortens it, not packing. Results
and their reading: bench/results/ci_time.md.
"""

from __future__ import annotations

import collections
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LOG_NAME = "JAXLINT_SUITE_TIMELINE"  # the folder the plugin below writes one file per worker to
_DURATION = re.compile(r"^([\d.]+)s (setup|call|teardown)\s+(\S+)")


# ------------------------------------------------------------------ the pytest plugin (-p)


def pytest_runtest_logfinish(nodeid: str, location: object) -> None:
    """When each test ended, on which worker (the main process when not distributed)."""
    folder = os.environ.get(LOG_NAME)
    if folder:
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        with open(os.path.join(folder, f"{worker}.jsonl"), "a", encoding="utf-8") as log:
            log.write(json.dumps([nodeid, time.time()]) + "\n")


# ------------------------------------------------------------------------------ the run


def main(pytest_args: list[str]) -> int:
    with tempfile.TemporaryDirectory(prefix="jaxlint-suite-time-") as folder:
        env = dict(os.environ, **{LOG_NAME: folder})
        command = [sys.executable, "-m", "pytest", "-q", "-p", "bench.suite_time"]
        command.append("--durations=0")
        started = time.time()
        done = subprocess.run(
            [*command, *pytest_args], cwd=ROOT, env=env, capture_output=True, text=True
        )
        wall = time.time() - started
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        ends = _worker_ends(Path(folder), started)
    summary = [line for line in done.stdout.splitlines() if " in " in line and "passed" in line]
    cpu = usage.ru_utime + usage.ru_stime
    if not summary:  # nothing ran: say what pytest said
        print((done.stdout + done.stderr).strip()[-2000:], file=sys.stderr)
    print(f"pytest: {summary[-1].strip('= ') if summary else f'exit {done.returncode}'}")
    print(f"wall {wall:.1f} s; CPU {usage.ru_utime:.1f} s user + {usage.ru_stime:.1f} s system")
    print(f"CPU share {100 * cpu / wall:.0f} % ({os.cpu_count()} cores)")
    print("last test on each worker: " + ", ".join(f"{w} {t:.0f} s" for w, t in ends.items()))
    by_module = _module_durations(done.stdout)
    total = sum(by_module.values()) or 1.0
    print("\n| module | seconds | share |\n|---|---|---|")
    for module, seconds in by_module.most_common(25):
        print(f"| `{Path(module).name}` | {seconds:.0f} | {100 * seconds / total:.0f} % |")
    return done.returncode


def _worker_ends(folder: Path, started: float) -> dict[str, float]:
    ends = {}
    logs = sorted(folder.glob("*.jsonl"))
    if len(logs) > 1:  # distributed: the controller hears of every test as well
        logs = [log for log in logs if log.stem != "main"]
    for log in logs:
        lines = log.read_text(encoding="utf-8").splitlines()
        if lines:
            ends[log.stem] = json.loads(lines[-1])[1] - started
    return ends


def _module_durations(output: str) -> collections.Counter[str]:
    """Seconds of setup, call and teardown per test module, from `--durations=0`."""
    by_module: collections.Counter[str] = collections.Counter()
    for line in output.splitlines():
        match = _DURATION.match(line)
        if match:
            by_module[match[3].split("::")[0]] += float(match[1])
    return by_module


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
