"""Share of real findings with a verified-kind rule that get a verified, applied fix.

For each package pinned in bench/realcode.txt (unpacked by bench/setup_realcode.sh into
bench/realcode/<name>/), copy its Python sources to a temporary folder with the package layout
kept, lint the copy once without verification to find the files with JAX101/JAX201/JAX301
findings, then run `jaxlint check --select JAX101,JAX201,JAX301 --fix --output-format json` on
each such file of the copy (one jaxlint process at a time, within a per-package time budget) and
tabulate, per package and per rule: findings, fixes applied (verified), failed, unverifiable,
timed out, refused (suggestion only, with its note) and the share applied / findings. Every
finding without an applied fix is listed with its reason, grouped by reason class, and every
applied fix's diff is kept.

    bench/setup_realcode.sh && .venv/bin/python bench/fix_share.py
    .venv/bin/python bench/fix_share.py --packages gmmx,tinygp --budget 120
    bench/setup_realcode_env.sh && .venv/bin/python bench/fix_share.py --examples

jaxlint runs from bench/realcode-venv when it exists (bench/setup_realcode_env.sh: the packages
installed with their dependencies, as on their users' machines), else from .venv. With
--examples, a package with a script bench/examples/<package>_examples.py (its README's or docs'
usage) is fixed with `--examples-from` that script, and the report goes to
bench/results/fix_share_examples.md. The headline share is over the findings
bench/results/triage.md calls real.
"""

from __future__ import annotations

import argparse
import datetime
import difflib
import hashlib
import json
import os
import platform
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RULES = ("JAX101", "JAX201", "JAX301")
DEFAULT_VENV = HERE / "realcode-venv"
SKIP_DIRS = {"__pycache__", ".git", "build", "dist"}
# A hand-written analysis below this marker in the results file survives a re-run.
ANALYSIS_MARKER = "<!-- analysis: hand-written, kept across runs -->"
OUTCOMES = ("applied", "failed", "unverifiable", "timeout", "refused", "other", "budget")


@dataclass
class Finding:
    package: str
    code: str
    path: str
    line: int
    message: str
    outcome: str  # one of OUTCOMES
    reason: str  # verification reason or fix note, "" when applied
    kind: str | None = None  # the fix kind jaxlint offered
    inputs_tried: int | None = None


@dataclass(frozen=True)
class Setup:
    """How every package is measured: the venv jaxlint runs from, its limits, the examples."""

    venv: Path
    budget: float
    jobs: int
    examples: Path | None  # bench/examples: <package>.py scripts for --examples-from


@dataclass
class PackageResult:
    name: str
    version: str
    files: int = 0
    lines: int = 0
    findings: list[Finding] = field(default_factory=list)
    seconds: float = 0.0
    budget_hit: bool = False
    errors: list[str] = field(default_factory=list)
    diffs: dict[str, str] = field(default_factory=dict)
    examples: str = ""  # the --examples-from script used, if any


def read_pins(path: Path) -> list[tuple[str, str, str]]:
    """(name, version, comment) per pin line of bench/realcode.txt."""
    pins = []
    for raw in path.read_text(encoding="utf-8").splitlines():
        text, _, comment = raw.partition("#")
        text = text.strip()
        if not text:
            continue
        name, _, version = text.partition("==")
        pins.append((name.strip(), version.strip(), comment.strip()))
    return pins


def copy_sources(src: Path, dest: Path) -> list[Path]:
    """Copy every .py file under `src` to `dest`, same relative layout; metadata folders skipped."""
    copied = []
    for dirpath, dirnames, filenames in os.walk(src):
        dirnames[:] = sorted(
            d
            for d in dirnames
            if d not in SKIP_DIRS and not d.endswith((".dist-info", ".egg-info"))
        )
        for filename in sorted(filenames):
            if not filename.endswith(".py"):
                continue
            rel = Path(dirpath, filename).relative_to(src)
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(Path(dirpath, filename), dest / rel)
            copied.append(rel)
    return copied


def _package_root(copy: Path) -> Path:
    """The folder top-level modules are imported from (an sdist keeps `name-version/`)."""
    entries = [e for e in copy.iterdir() if not e.name.startswith(".")]
    if len(entries) == 1 and entries[0].is_dir() and not (entries[0] / "__init__.py").exists():
        return entries[0]
    return copy


def run_jaxlint(
    venv: Path, args: list[str], cwd: Path, timeout: float, pythonpath: Path | None = None
) -> tuple[list[dict] | None, str]:
    """Run `venv`'s jaxlint in its own process group; (parsed JSON or None, error text).

    `pythonpath` reaches the `--examples-from` command through jaxlint, which puts its recording
    shim before it."""
    argv = [str(venv / "bin" / "jaxlint"), *args]
    env = dict(os.environ)
    if pythonpath is not None:
        env["PYTHONPATH"] = str(pythonpath)
    with (
        tempfile.TemporaryFile("w+") as out,
        tempfile.TemporaryFile("w+") as err,
        subprocess.Popen(
            argv, cwd=cwd, env=env, stdout=out, stderr=err, start_new_session=True
        ) as proc,
    ):
        try:
            code = proc.wait(timeout=max(1.0, timeout))
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            return None, f"timeout after {timeout:.0f} s"
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    if code not in (0, 1):
        return None, f"exit {code}: {stderr.strip()[-400:]}"
    try:
        return json.loads(stdout), ""
    except json.JSONDecodeError as exc:
        return None, f"bad JSON ({exc}): {stdout[:200]!r} {stderr[-200:]!r}"


def classify(item: dict) -> tuple[str, str, str | None, int | None]:
    """(outcome, reason, fix kind, inputs tried) of one JSON diagnostic."""
    fix = item.get("fix")
    if fix is None:
        return "refused", "no fix offered", None, None
    kind = fix.get("kind")
    verification = fix.get("verification") or {}
    note = fix.get("note") or ""
    tried = verification.get("inputs_tried")
    if fix.get("applied"):
        return "applied", "", kind, tried
    if kind == "suggestion":
        return "refused", note or fix.get("description", ""), kind, tried
    status = verification.get("status")
    if status in ("failed", "unverifiable", "timeout"):
        return status, verification.get("reason") or note, kind, tried
    return "other", f"{status or 'not verified'}: {note}", kind, tried


def reason_class(finding: Finding) -> str:
    """A reason with names, shapes and numbers blanked, so that alike refusals group together."""
    text = finding.reason
    text = re.sub(r"^original [\w.]+: line \d+: ", "", text)
    text = re.sub(r"import of [\w.]+ failed", "import of … failed", text)
    text = re.sub(r"\(raised at [^)]*\)", "", text)
    text = re.sub(r"No module named '[^']*'", "No module named …", text)
    text = re.sub(r"`[^`]*`", "`…`", text)
    text = re.sub(r"\b[A-Za-z_][\w.]*\(([^()]*|\([^()]*\))*\)", "F(…)", text)
    text = re.sub(r"\[[^\]]*\]", "[…]", text)
    text = re.sub(r"\d+(\.\d+)?", "N", text)
    text = text.split("; last error")[0]
    text = re.split(r"(?<=Error): ", text)[0]
    return f"{finding.code} {finding.outcome}: {text[:140]}"


def bench_package(name: str, version: str, src: Path, work: Path, setup: Setup) -> PackageResult:
    result = PackageResult(name, version)
    copy = work / name
    files = copy_sources(src, copy)
    result.files = len(files)
    result.lines = sum(
        len((copy / f).read_text(encoding="utf-8", errors="replace").splitlines()) for f in files
    )
    pristine = {f: (copy / f).read_text(encoding="utf-8", errors="replace") for f in files}
    select = ["--select", ",".join(RULES), "--output-format", "json", "--no-cache"]
    start = time.monotonic()
    budget, jobs = setup.budget, str(setup.jobs)
    lint, error = run_jaxlint(
        setup.venv,
        ["check", *select, "--no-verify", "--exit-zero", "--jobs", jobs, "."],
        copy,
        budget,
    )
    if lint is None:
        result.errors.append(f"lint pass: {error}")
        result.seconds = time.monotonic() - start
        return result
    by_file: dict[str, list[dict]] = defaultdict(list)
    for item in lint:
        by_file[item["path"]].append(item)
    script = setup.examples / f"{name}_examples.py" if setup.examples else None
    examples: list[str] = []
    pythonpath = None
    if script is not None and script.is_file():
        # The script imports the package from the copy (PYTHONPATH), so that the recording shim
        # wraps the functions of the files being fixed, not those of the installed package.
        examples = ["--examples-from", f"{setup.venv / 'bin' / 'python'} {script}"]
        pythonpath = _package_root(copy)
        result.examples = script.name
    for path in sorted(by_file):
        remaining = budget - (time.monotonic() - start)
        fixed, error = (None, "budget spent") if remaining <= 1 else (None, "")
        if not error:
            fixed, error = run_jaxlint(
                setup.venv,
                ["check", *select, "--fix", "--jobs", jobs, *examples, path],
                copy,
                remaining,
                pythonpath,
            )
        if fixed is None:
            if error.startswith(("timeout", "budget")):
                result.budget_hit = True
            else:
                result.errors.append(f"{path}: {error}")
            for item in by_file[path]:
                result.findings.append(
                    Finding(
                        name,
                        item["code"],
                        path,
                        item["line"],
                        item["message"],
                        "budget",
                        f"not reached: {error}",
                    )
                )
            continue
        for item in fixed:
            outcome, reason, kind, tried = classify(item)
            result.findings.append(
                Finding(
                    name,
                    item["code"],
                    item["path"],
                    item["line"],
                    item["message"],
                    outcome,
                    reason,
                    kind,
                    tried,
                )
            )
    result.seconds = time.monotonic() - start
    for rel, before in pristine.items():
        after = (copy / rel).read_text(encoding="utf-8", errors="replace")
        if after != before:
            result.diffs[str(rel)] = "".join(
                difflib.unified_diff(
                    before.splitlines(keepends=True),
                    after.splitlines(keepends=True),
                    f"a/{rel}",
                    f"b/{rel}",
                    n=2,
                )
            )
    return result


def read_verdicts(path: Path) -> dict[tuple[str, str, int, str], str]:
    """(package, path, line, code) → the hand-triaged verdict (real/false/debatable) of each
    finding in bench/results/triage.md's findings table."""
    verdicts: dict[tuple[str, str, int, str], str] = {}
    if not path.exists():
        return verdicts
    row = re.compile(r"^\| \d+ \| ([\w.-]+) \| ([^|\s]+):(\d+) \| (JAX\d+) \| \w+ \| (\w+) \|")
    for line in path.read_text(encoding="utf-8").splitlines():
        match = row.match(line)
        if match:
            package, file, number, code, verdict = match.groups()
            verdicts[(package, file, int(number), code)] = verdict
    return verdicts


def share(applied: int, total: int) -> str:
    return f"{applied / total:.0%}" if total else "—"


def table(results: list[PackageResult]) -> list[str]:
    head = (
        "| package | rule | findings | applied | failed | unverifiable | timeout | refused "
        "| other | budget | share applied |"
    )
    lines = [head, "|" + "---|" * 11]
    totals: dict[str, Counter[str]] = defaultdict(Counter)
    for res in results:
        per_rule: dict[str, Counter[str]] = defaultdict(Counter)
        for f in res.findings:
            per_rule[f.code][f.outcome] += 1
            totals[f.code][f.outcome] += 1
        if not per_rule:
            note = " (time budget hit)" if res.budget_hit else ""
            lines.append(f"| {res.name} | — | 0 |" + " 0 |" * 7 + f" —{note} |")
        for code in sorted(per_rule):
            lines.append(_row(res.name, code, per_rule[code]))
    lines.append("|" + "---|" * 11)
    for code in RULES:
        lines.append(_row("**all**", code, totals[code]))
    lines.append(_row("**all**", "**all**", sum(totals.values(), Counter())))
    return lines


def _row(package: str, code: str, counts: Counter[str]) -> str:
    total = sum(counts.values())
    cells = " | ".join(str(counts[o]) for o in OUTCOMES)
    return f"| {package} | {code} | {total} | {cells} | {share(counts['applied'], total)} |"


def report(results: list[PackageResult], elapsed: float, args: argparse.Namespace) -> str:
    findings = [f for r in results for f in r.findings]
    applied = sum(f.outcome == "applied" for f in findings)
    offered = [f for f in findings if f.kind == "verified"]
    verdicts = read_verdicts(HERE / "results" / "triage.md")
    real = [f for f in findings if verdicts.get((f.package, f.path, f.line, f.code)) == "real"]
    real_applied = sum(f.outcome == "applied" for f in real)
    untriaged = [f for f in findings if (f.package, f.path, f.line, f.code) not in verdicts]
    examples = [f"{r.name} ({r.examples})" for r in results if r.examples]
    lines = [
        "# fix_share — verified, applied fixes on real JAX packages",
        "",
        f"Run {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC by "
        f"`bench/fix_share.py` (budget {args.budget:g} s per package, --jobs {args.jobs}), "
        f"Python {platform.python_version()}, {_jax_version(args.venv)}, {os.cpu_count()} CPUs, "
        f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}; {elapsed:.0f} s in all; "
        f"jaxlint {_jaxlint_state()}.",
        "",
        "Rules with a verified-kind fix: JAX101 (loop → `lax.scan`), JAX201 (print → "
        "`jax.debug.print`), JAX301 (jitted method → static-arg helper). *applied* = verified "
        "with real JAX and written; *failed* / *unverifiable* / *timeout* = a rewrite was made "
        "but verification refused it; *refused* = jaxlint made no rewrite (suggestion only); "
        "*budget* = not reached within the package's time budget.",
        "",
        f"jaxlint ran from `{_shown(args.venv)}`; recorded signatures "
        + (
            f"(`--examples-from` the script in `bench/examples/`) for {', '.join(examples)}."
            if examples
            else "not used."
        ),
        "",
        f"**{real_applied} of the {len(real)} real findings ({share(real_applied, len(real))}) "
        f"got a verified, applied fix** (verdicts from `bench/results/triage.md`; "
        f"{len(untriaged)} findings not triaged there). Over all {len(findings)} findings: "
        f"{applied} applied ({share(applied, len(findings))}); {len(offered)} had a "
        f"verified-kind rewrite offered ({share(applied, len(offered))} of those applied).",
        "",
        "## Packages",
        "",
        "| package | version | .py files | lines | findings | seconds | notes |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in results:
        notes = []
        if r.budget_hit:
            notes.append("time budget hit")
        notes.extend(r.errors)
        lines.append(
            f"| {r.name} | {r.version} | {r.files} | {r.lines} | {len(r.findings)} "
            f"| {r.seconds:.0f} | {'; '.join(notes) or ''} |"
        )
    lines += ["", "## Per package and rule", "", *table(results), ""]
    lines += ["## Every finding without an applied fix, by reason class", ""]
    groups: dict[str, list[Finding]] = defaultdict(list)
    for f in findings:
        if f.outcome != "applied":
            groups[reason_class(f)].append(f)
    for key, members in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        lines.append(f"### {len(members)} × {key}")
        lines.append("")
        for f in members:
            verdict = verdicts.get((f.package, f.path, f.line, f.code), "untriaged")
            lines.append(
                f"- `{f.package}/{f.path}:{f.line}` ({verdict}) — {f.reason or '(no reason given)'}"
            )
        lines.append("")
    lines += ["## Applied fixes", ""]
    if not applied:
        lines.append("None.")
    for f in findings:
        if f.outcome == "applied":
            lines.append(
                f"- `{f.package}/{f.path}:{f.line}` {f.code} (verified on {f.inputs_tried} "
                "input sets)"
            )
    lines.append("")
    for r in results:
        for rel, diff in sorted(r.diffs.items()):
            lines += [f"### {r.name}/{rel}", "", "```diff", diff.rstrip("\n"), "```", ""]
    return "\n".join(lines)


def _shown(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def _jaxlint_state() -> str:
    """The commit jaxlint ran from, and a hash of uncommitted changes to jaxlint/ if any."""

    def git(*args: str) -> str:
        done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True)
        return done.stdout if done.returncode == 0 else ""

    head = git("rev-parse", "--short", "HEAD").strip() or "?"
    diff = git("diff", "HEAD", "--", "jaxlint")
    for name in git("ls-files", "--others", "--exclude-standard", "jaxlint").split():
        diff += name + (ROOT / name).read_text(encoding="utf-8", errors="replace")
    if not diff:
        return f"at {head}"
    digest = hashlib.sha1(diff.encode()).hexdigest()[:10]
    return f"at {head} + uncommitted jaxlint/ changes (sha1 {digest})"


def _jax_version(venv: Path) -> str:
    python = venv / "bin" / "python"
    try:
        done = subprocess.run(
            [str(python), "-c", "import jax; print(jax.__version__)"],
            capture_output=True,
            text=True,
            timeout=120,
        )
        return f"jax {done.stdout.strip() or '?'}"
    except (OSError, subprocess.SubprocessError):
        return "jax ?"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pins", type=Path, default=HERE / "realcode.txt")
    parser.add_argument("--corpus", type=Path, default=HERE / "realcode")
    parser.add_argument("--packages", help="comma-separated subset of the pinned names")
    parser.add_argument("--budget", type=float, default=240.0, help="seconds per package")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--out", type=Path, help="default: bench/results/fix_share[_examples].md")
    parser.add_argument("--keep", type=Path, help="keep the fixed copies in this folder")
    parser.add_argument(
        "--venv",
        type=Path,
        default=DEFAULT_VENV if DEFAULT_VENV.is_dir() else ROOT / ".venv",
        help="the venv jaxlint runs from (default: bench/realcode-venv, made by "
        "bench/setup_realcode_env.sh, where the packages' dependencies are installed)",
    )
    parser.add_argument(
        "--examples",
        action="store_true",
        help="record signatures with --examples-from bench/examples/<package>_examples.py "
        "where it exists",
    )
    args = parser.parse_args(argv)
    if args.out is None:
        args.out = HERE / "results" / ("fix_share_examples.md" if args.examples else "fix_share.md")
    setup = Setup(args.venv, args.budget, args.jobs, HERE / "examples" if args.examples else None)

    pins = read_pins(args.pins)
    if args.packages:
        wanted = set(args.packages.split(","))
        pins = [p for p in pins if p[0] in wanted]
    missing = [name for name, _, _ in pins if not (args.corpus / name).is_dir()]
    if missing:
        print(f"not unpacked: {', '.join(missing)}; run bench/setup_realcode.sh", file=sys.stderr)
        return 2
    work = Path(tempfile.mkdtemp(prefix="jaxlint-fix-share-"))
    started = time.monotonic()
    results = []
    try:
        for name, version, _ in pins:
            res = bench_package(name, version, args.corpus / name, work, setup)
            results.append(res)
            counts = Counter(f.outcome for f in res.findings)
            print(
                f"{name}=={version}: {len(res.findings)} findings {dict(counts)} "
                f"in {res.seconds:.0f} s{' (budget hit)' if res.budget_hit else ''}",
                flush=True,
            )
        if args.keep:
            shutil.rmtree(args.keep, ignore_errors=True)
            shutil.copytree(work, args.keep)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    text = report(results, time.monotonic() - started, args)
    print()
    print(text)
    previous = args.out.read_text(encoding="utf-8") if args.out.exists() else ""
    if ANALYSIS_MARKER in previous and not args.packages:
        text += "\n" + ANALYSIS_MARKER + previous.split(ANALYSIS_MARKER, 1)[1]
    if not args.packages:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text.rstrip("\n") + "\n", encoding="utf-8")
        print(f"\nwrote {args.out.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
