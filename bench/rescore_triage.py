"""Re-run JAX204/JAX205/JAX401 over the hunt packages (unpacked in /tmp/hunt2/pkgs, see bench/hunt_arrays.txt) and score the findings against the verdicts of bench/results/triage_arrays.md."""

import collections
import json
import re
import subprocess
import sys
from pathlib import Path

rows = []
for line in Path("bench/results/triage_arrays.md").read_text().splitlines():
    if (
        not line.startswith("| ")
        or line.startswith("| package")
        or line.startswith("| rule")
        or "---" in line
    ):
        continue
    cells = [c.strip() for c in line.strip("|").split("|")]
    if len(cells) < 4 or not cells[2].startswith("JAX"):
        continue
    pkg = cells[0].split()[0]
    loc = cells[1]
    code = cells[2]
    verdict = cells[3].strip("*")
    path, _, lines = loc.partition(":")
    nums = re.findall(r"\d+", lines.split("(")[0])
    for n in nums:
        rows.append((pkg, path, int(n), code, verdict))
verdicts = {(p, path, n, code): v for p, path, n, code, v in rows}
pins = [
    l.split("==")[0].strip()
    for l in Path("bench/hunt_arrays.txt").read_text().splitlines()
    if "==" in l and not l.startswith("#")
]
found = []
for pkg in pins:
    d = Path("/tmp/hunt2/pkgs") / pkg
    if not d.exists():
        continue
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "jaxlint",
            "check",
            "--no-verify",
            "--no-cache",
            "--select",
            "JAX204,JAX205,JAX401",
            "--output-format",
            "json",
            str(d),
        ],
        capture_output=True,
        text=True,
        cwd="/work/main",
    )
    try:
        diags = json.loads(out.stdout)
    except Exception:
        print("fail", pkg, out.stderr[-200:])
        continue
    for x in diags:
        rel = str(Path(x["path"]).relative_to(d))
        found.append((pkg, rel, x["line"], x["code"], x["message"][:80]))
score = collections.Counter()
unknown = []
matched = set()
for pkg, rel, line, code, msg in found:
    key = next(
        (
            (p, path, n, c)
            for (p, path, n, c) in verdicts
            if p == pkg
            and c == code
            and n == line
            and rel.endswith(path.split("/")[-1])
            and (rel.endswith(path) or path.endswith(rel) or True)
        ),
        None,
    )
    if key is None:
        unknown.append((pkg, rel, line, code, msg))
        continue
    matched.add(key)
    score[code, verdicts[key]] += 1
gone = collections.Counter(
    (c, v) for (p, path, n, c), v in verdicts.items() if (p, path, n, c) not in matched
)
print("now flagged, by triage verdict:", sorted(score.items()))
print("no longer flagged:", sorted(gone.items()))
print("new (untriaged):", len(unknown))
for u in unknown:
    print("  ", u)
print("--- matched false / lost real")
for pkg, rel, line, code, msg in found:
    key = next(
        (
            (p, path, n, c)
            for (p, path, n, c) in verdicts
            if p == pkg and c == code and n == line and rel.endswith(path.split("/")[-1])
        ),
        None,
    )
    if key and verdicts[key] == "false":
        print("FALSE", key)
for k, v in verdicts.items():
    if k not in matched and v == "real":
        print("LOST REAL", k)
