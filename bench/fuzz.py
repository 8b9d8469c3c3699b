"""Run the property tests many times: fixture mutations (tests/test_mutations.py) and
hypothesmith-generated programs (tests/test_fuzz.py).

    python bench/fuzz.py --mutations 10000 --examples 200

Prints how many cases ran and how long each part took; any failure fails with its report.
Generated programs are slow to make (~1 s each), mutations cheap (~0.1 s), hence the defaults.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _run(test_file: str, env: dict[str, str]) -> tuple[int, float]:
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", test_file]
    start = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, env=env)
    return done.returncode, time.perf_counter() - start


def main() -> int:
    """Run both property suites with large counts."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mutations", type=int, default=10_000, help="mutated fixtures")
    parser.add_argument("--examples", type=int, default=200, help="hypothesmith examples each")
    args = parser.parse_args()
    env = dict(
        os.environ,
        JAXLINT_MUTATIONS=str(args.mutations),
        JAXLINT_FUZZ_EXAMPLES=str(args.examples),
    )
    status = 0
    code, seconds = _run("tests/test_mutations.py", env)
    print(f"{args.mutations} fixture mutations in {seconds:.0f} s, exit {code}")
    status = status or code
    code, seconds = _run("tests/test_fuzz.py", env)
    print(f"{args.examples} generated programs x 3 properties in {seconds:.0f} s, exit {code}")
    return status or code


if __name__ == "__main__":
    sys.exit(main())
