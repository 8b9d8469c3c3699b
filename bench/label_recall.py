"""Recall of jaxlint on a hand-labelled set of hazards, and the findings the labels do not name.

The labels (`bench/labels/<set>.tsv`: package, path, line, code, certainty, evidence; paths
relative to `bench/<set>/`) are written by reading the code before jaxlint runs on it;
`<set>_not_hazards.tsv` names places that look like hazards and are not. This script runs
`jaxlint check --no-verify --output-format json` on the set (the default rules) and prints:
recall per code (a label is found when a finding has its file, line and code; a second
table leaves out the labels `<set>_review.tsv` judges wrong or outside a rule's stated policy),
every finding that hits a not-hazard label (a false positive by the labels), and every finding
the labels do not mention (to be read by hand).

    .venv/bin/python bench/label_recall.py fresh_a fresh_b [--python-path DIR]
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
ROOT = BENCH.parent

Key = tuple[str, int, str]  # path relative to bench/<set>/, line, code


def read_labels(path: Path) -> dict[Key, dict[str, str]]:
    if not path.is_file():
        return {}
    with path.open(newline="") as handle:
        rows = csv.DictReader(handle, delimiter="\t")
        return {(r["path"], int(r["line"]), r["code"]): r for r in rows if r.get("path")}


def findings(folder: Path, python_path: str | None) -> set[Key]:
    env = dict(os.environ)
    command = [sys.executable]
    if python_path:  # another jaxlint tree (a baseline), imported instead of this one
        env["PYTHONPATH"] = python_path
        command.append("-P")
    command += ["-m", "jaxlint", "check", "--no-verify", "--no-cache", "--output-format", "json"]
    done = subprocess.run(
        [*command, "."], cwd=folder, env=env, capture_output=True, text=True, check=False
    )
    if done.returncode not in (0, 1):
        raise SystemExit(f"jaxlint failed on {folder}: {done.stderr[-2000:]}")
    return {(Path(d["path"]).as_posix(), d["line"], d["code"]) for d in json.loads(done.stdout)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sets", nargs="+", help="label sets: bench/labels/<set>.tsv")
    parser.add_argument("--python-path", help="import jaxlint from this folder instead")
    args = parser.parse_args()
    found_by_code: Counter[str] = Counter()
    total_by_code: Counter[str] = Counter()
    # the same, without the labels a later review judged wrong or out of the rules' stated
    # policy (`<set>_review.tsv`: path, line, code, verdict, reason)
    reviewed_found: Counter[str] = Counter()
    reviewed_total: Counter[str] = Counter()
    for name in args.sets:
        labels = read_labels(BENCH / "labels" / f"{name}.tsv")
        not_hazards = read_labels(BENCH / "labels" / f"{name}_not_hazards.tsv")
        reported = findings(BENCH / name, args.python_path)
        print(f"## {name}: {len(labels)} labelled hazards, {len(reported)} findings")
        review = read_labels(BENCH / "labels" / f"{name}_review.tsv")
        for key in sorted(labels):
            total_by_code[key[2]] += 1
            hit = key in reported
            found_by_code[key[2]] += hit
            if key not in review:
                reviewed_total[key[2]] += 1
                reviewed_found[key[2]] += hit
            if not hit:
                print(f"missed  {key[0]}:{key[1]} {key[2]} ({labels[key]['certainty']})")
        for key in sorted(reported & set(not_hazards)):
            print(f"false   {key[0]}:{key[1]} {key[2]} (labelled not a hazard)")
        for key in sorted(reported - set(labels) - set(not_hazards)):
            print(f"unread  {key[0]}:{key[1]} {key[2]} (not labelled: read it)")
    _table("all labels", total_by_code, found_by_code)
    if sum(reviewed_total.values()) != sum(total_by_code.values()):
        _table(
            "labels a review kept (not wrong, within the rules' policy)",
            reviewed_total,
            reviewed_found,
        )
    return 0


def _table(title: str, total_by_code: Counter[str], found_by_code: Counter[str]) -> None:
    print(f"\n{title}\n\n| code | labelled | found | recall |\n|---|---|---|---|")
    for code in sorted(total_by_code):
        total, found = total_by_code[code], found_by_code[code]
        print(f"| {code} | {total} | {found} | {found / total:.2f} |")
    total, found = sum(total_by_code.values()), sum(found_by_code.values())
    print(f"| all | {total} | {found} | {found / max(total, 1):.2f} |")


if __name__ == "__main__":
    sys.exit(main())
