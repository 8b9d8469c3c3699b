"""The observation run (`jaxlint check --observe CMD`) on real test suites: what it costs and
what it reports.

For each suite below (the fixture project first, then packages of the bench sets whose tests
run on CPU), copies the package to a temporary folder, runs its test command plain and under
`jaxlint check --no-cache --observe CMD --output-format json`, alternately, `--repeat` times,
and prints a markdown table: the command's wall time both ways (medians), the static findings,
the findings the run confirmed and those it alone found. Each package's JSON report is written
to `bench/results/observe/<name>.json` for reading by hand (`bench/results/observe.md`).

    bench/observe-venv/bin/python bench/observe.py [--repeat 3] [NAME ...]

Run it with a Python whose environment has what the packages' tests import (`observe-venv`:
the main venv's packages plus matplotlib, chex, einops, pandas, diffrax; see
bench/results/observe.md). The bench sets come from bench/setup_realcode.sh.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "observe"


@dataclass(frozen=True)
class Suite:
    name: str
    folder: str  # relative to the repository
    tests: str  # the test command's arguments after `python -m pytest`
    checked: str = "."  # what jaxlint checks, relative to the folder


SUITES = [
    Suite("fixtures-observe", "fixtures/observe", "tests"),
    Suite("vlax1d", "bench/fresh_b/vlax1d", "tests", "vlax1d"),
    Suite("slax", "bench/fresh_b/slax", "slax", "slax"),
    Suite(
        "pgx",
        "bench/unseen/pgx",
        "tests/test_tic_tac_toe.py tests/test_connect_four.py tests/test_play2048.py "
        "tests/test_kuhn_poker.py tests/test_othello.py",
        "pgx",
    ),
    Suite(
        "jaxquantum",
        "bench/unseen/jaxquantum",
        "test/test_core_misc.py test/test_codes.py",
        "jaxquantum",
    ),
    Suite(
        "jaxley",
        "bench/unseen/jaxley",
        "tests/test_solver.py tests/test_composability_of_modules.py",
        "jaxley",
    ),
]
PYTEST = "-q -p no:cacheprovider -p no:xdist -p no:randomly"


def _timed(argv: list[str], cwd: Path) -> tuple[float, subprocess.CompletedProcess[str]]:
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=1800)
    return time.perf_counter() - start, done


def run_suite(suite: Suite, repeat: int) -> dict[str, object]:
    python = sys.executable
    command = f"{python} -m pytest {PYTEST} {suite.tests}"
    with tempfile.TemporaryDirectory(prefix=f"observe-{suite.name}-") as work:
        project = Path(work) / suite.name
        shutil.copytree(ROOT / suite.folder, project)
        plain_times, observed_times = [], []
        report: list[dict[str, object]] = []
        plain_tail = stderr = ""
        for _ in range(repeat):
            seconds, plain = _timed(
                [python, "-m", "pytest", *PYTEST.split(), *suite.tests.split()], project
            )
            plain_times.append(seconds)
            plain_tail = (plain.stdout.strip().splitlines() or [""])[-1]
            check = [python, "-m", "jaxlint", "check", "--no-cache", "--output-format", "json"]
            seconds, observed = _timed([*check, "--observe", command, suite.checked], project)
            observed_times.append(seconds)
            report = json.loads(observed.stdout or "[]")
            stderr = observed.stderr
        static_seconds, _ = _timed([*check, suite.checked], project)
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"{suite.name}.json").write_text(json.dumps(report, indent=1), encoding="utf-8")
    kinds = [f.get("observed", {}).get("confirms_static_finding") for f in report]
    return {
        "name": suite.name,
        "tests": plain_tail,
        "plain_s": statistics.median(plain_times),
        "observed_s": statistics.median(observed_times),
        "static_s": static_seconds,
        "findings": len(report),
        "confirmed": kinds.count(True),
        "run_only": kinds.count(False),
        "said": [line for line in stderr.splitlines() if "--observe" in line],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("names", nargs="*", help="suites to run (default: all)")
    parser.add_argument("--repeat", type=int, default=1)
    options = parser.parse_args()
    chosen = [s for s in SUITES if not options.names or s.name in options.names]
    print(
        "| suite | tests | plain | jaxlint --observe | jaxlint alone | findings | confirmed "
        "| run only |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for suite in chosen:
        row = run_suite(suite, options.repeat)
        print(
            f"| {row['name']} | {row['tests']} | {row['plain_s']:.1f} s | "
            f"{row['observed_s']:.1f} s | {row['static_s']:.1f} s | {row['findings']} | "
            f"{row['confirmed']} | {row['run_only']} |",
            flush=True,
        )
        for line in row["said"]:  # type: ignore[attr-defined]
            print(f"<!-- {line} -->", flush=True)


if __name__ == "__main__":
    main()
