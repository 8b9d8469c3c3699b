"""Re-lint the hunt's packages and score the findings against the hand-made verdicts.

The hunt (bench/hunt_arrays.txt) unpacked its packages under /tmp/hunt2/pkgs (PKGS= to
change); bench/results/triage_arrays.md holds a verdict per finding. This prints how many of
today's JAX204/JAX205/JAX401 findings fall under each verdict, which triaged findings are no
longer reported, and the findings the table has no row for (to triage by hand).

    .venv/bin/python bench/rescore_triage.py
"""

from __future__ import annotations

import collections
import json
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PKGS = Path(os.environ.get("PKGS", "/tmp/hunt2/pkgs"))
CODES = "JAX204,JAX205,JAX401"


def verdicts() -> dict[tuple[str, str, int, str], str]:
    """(package, file, line, code) → verdict, for the table rows that list their lines."""
    found = {}
    for row in (ROOT / "bench" / "results" / "triage_arrays.md").read_text().splitlines():
        cells = [c.strip() for c in row.strip("|").split("|")]
        if not row.startswith("| ") or len(cells) < 4 or not cells[2].startswith("JAX"):
            continue
        package, (path, _, lines) = cells[0].split()[0], cells[1].partition(":")
        for number in re.findall(r"\d+", lines.split("(")[0]):
            found[package, path, int(number), cells[2]] = cells[3].strip("*")
    return found


def findings(package: str) -> list[tuple[str, int, str]]:
    folder = PKGS / package
    done = subprocess.run(
        [sys.executable, "-m", "jaxlint", "check", "--no-verify", "--no-cache", "--select", CODES]
        + ["--output-format", "json", str(folder)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    return [
        (str(Path(d["path"]).relative_to(folder)), d["line"], d["code"])
        for d in json.loads(done.stdout or "[]")
        if d["code"] != "JAX000"
    ]


def main() -> None:
    table = verdicts()
    pins = [
        line.split("==")[0].strip()
        for line in (ROOT / "bench" / "hunt_arrays.txt").read_text().splitlines()
        if "==" in line and not line.startswith("#")
    ]
    score: collections.Counter = collections.Counter()
    matched, untriaged = set(), collections.Counter()
    for package in pins:
        if not (PKGS / package).is_dir():
            continue
        for path, line, code in findings(package):
            key = next(
                (
                    k
                    for k in table
                    if k[0] == package and k[2] == line and k[3] == code and path.endswith(k[1])
                ),
                None,
            )
            if key is None:
                untriaged[package, code] += 1
                continue
            matched.add(key)
            score[code, table[key]] += 1
    gone = collections.Counter((k[3], v) for k, v in table.items() if k not in matched)
    print("reported now, by verdict:", sorted(score.items()))
    print("no longer reported, by verdict:", sorted(gone.items()))
    print("reported, on rows grouped by package or not in the table:", sorted(untriaged.items()))
    for key, verdict in sorted(table.items()):
        if key in matched and verdict == "false":
            print("  still reported, false:", key)
        if key not in matched and verdict == "real":
            print("  no longer reported, real:", key)


if __name__ == "__main__":
    main()
