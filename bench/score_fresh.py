"""Score today's findings on the fresh sets against the hand-read verdicts.

`bench/results/triage_fresh.tsv` holds one row per finding read by hand (set, path, line, code,
verdict, reason), `triage_fresh_c.tsv` the same for set C (no set column); a later row for the
same finding replaces an earlier one (a re-reading). A finding on a hand-labelled hazard
(`bench/labels/`) is real without a row.
This runs `jaxlint check --no-verify --output-format json` on `bench/fresh_a`, `bench/fresh_b`,
`bench/fresh_c` and `bench/fresh_d` and prints the per-code table (findings, real, false,
debatable, precision) and every finding the table has no row for, to be read by hand.

    .venv/bin/python bench/score_fresh.py [--python-path DIR]
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

BENCH = Path(__file__).resolve().parent
SETS = ("fresh_a", "fresh_b", "fresh_c", "fresh_d")
VERDICTS = ("real", "false", "debatable")


def verdicts() -> dict[tuple[str, str, int, str], str]:
    """(set, path, line, code) → verdict: a labelled hazard (`bench/labels/<set>.tsv`, written
    before jaxlint ran) is real, a labelled look-alike false; the triage rows come after."""
    found = {}
    for name in SETS:
        for suffix, verdict in (("", "real"), ("_not_hazards", "false")):
            with open(BENCH / "labels" / f"{name}{suffix}.tsv", encoding="utf-8") as labels:
                for row in csv.DictReader(labels, delimiter="\t"):
                    found[name, row["path"], int(row["line"]), row["code"]] = verdict
    for table_name in ("triage_fresh.tsv", "triage_fresh_c.tsv"):
        with open(BENCH / "results" / table_name, encoding="utf-8") as table:
            for row in csv.DictReader(table, delimiter="\t"):
                name = row.get("set") or "fresh_c"
                found[name, row["path"], int(row["line"]), row["code"]] = row["verdict"]
    return found


def findings(folder: Path, python_path: str | None) -> list[dict]:
    env = dict(os.environ)
    if python_path:
        env["PYTHONPATH"] = python_path
    command = [sys.executable, "-m", "jaxlint", "check", "--no-verify", "--no-cache"]
    command += ["--output-format", "json", "."]
    done = subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True)
    if done.returncode not in (0, 1):
        raise SystemExit(f"jaxlint failed on {folder}:\n{done.stderr}")
    return json.loads(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python-path", help="run the jaxlint found here (an older tree)")
    options = parser.parse_args()
    known = verdicts()
    counts: Counter[tuple[str, str]] = Counter()
    unread = []
    for name in SETS:
        folder = BENCH / name
        if not folder.is_dir():
            raise SystemExit(
                f"{folder} is missing: PINS=bench/{name}.txt TARGET=bench/{name} "
                "bash bench/setup_realcode.sh"
            )
        for finding in findings(folder, options.python_path):
            slot = (name, finding["path"], finding["line"], finding["code"])
            verdict = known.get(slot)
            if verdict is None:
                unread.append(slot)
            counts[finding["code"], verdict or "unread"] += 1
    codes = sorted({code for code, _ in counts})
    print("| code | findings | real | false | debatable | unread | precision |")
    print("|---|---|---|---|---|---|---|")
    total: Counter[str] = Counter()
    for code in [*codes, "all"]:
        row = {v: counts[code, v] for v in (*VERDICTS, "unread")} if code != "all" else dict(total)
        n = sum(row.values())
        if code != "all":
            total.update(row)
        precision = row.get("real", 0) / n if n else 0.0
        cells = [str(row.get(v, 0)) for v in (*VERDICTS, "unread")]
        name = f"**{code}**" if code == "all" else code
        print(f"| {name} | {n} | {' | '.join(cells)} | {precision:.2f} |")
    for slot in unread:
        print("unread:", *slot)


if __name__ == "__main__":
    main()
