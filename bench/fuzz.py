"""Run the hypothesmith round-trip properties of tests/test_fuzz.py thousands of times.

    python bench/fuzz.py --examples 2000

Prints how many examples ran and how long it took; any crash fails with hypothesis' report.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    """Run tests/test_fuzz.py with a large example count."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=2000, help="examples per property")
    args = parser.parse_args()
    env = dict(os.environ, JAXLINT_FUZZ_EXAMPLES=str(args.examples))
    start = time.perf_counter()
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_fuzz.py"]
    done = subprocess.run(command, cwd=ROOT, env=env)
    elapsed = time.perf_counter() - start
    print(f"{args.examples} examples x 3 properties in {elapsed:.0f} s, exit {done.returncode}")
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
