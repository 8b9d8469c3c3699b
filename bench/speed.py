"""Measure jaxlint's lint speed on a pinned corpus of JAX libraries against libcst and ast."""

from __future__ import annotations

import argparse
import ast
import contextlib
import cProfile
import importlib
import io
import os
import pstats
import resource
import shutil
import subprocess
import sys
import time
import warnings
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import libcst

BENCH_DIR = Path(__file__).resolve().parent
REPO_DIR = BENCH_DIR.parent
CORPUS_DIR = BENCH_DIR / "corpus"
PINS_FILE = BENCH_DIR / "corpus.txt"
TARGET_LINES_PER_S = 30_000

# A tool takes (source text, path) and returns the codes of the diagnostics it reports.
Linter = Callable[[str, str], Sequence[str]]


@dataclass(frozen=True)
class Package:
    """One pinned distribution and the import folders of it that are measured."""

    pin: str
    folders: tuple[str, ...]

    @property
    def name(self) -> str:
        """Return the distribution name without the version."""
        return self.pin.split("==", 1)[0]


@dataclass(frozen=True)
class SourceFile:
    """A corpus file read into memory (reading is not timed)."""

    path: Path
    text: str
    lines: int


@dataclass
class ToolResult:
    """Per-package timings of one tool over all repeats."""

    seconds: dict[str, list[float]] = field(default_factory=dict)
    failures: Counter[str] = field(default_factory=Counter)
    failure_kinds: Counter[str] = field(default_factory=Counter)
    failure_example: dict[str, str] = field(default_factory=dict)

    def best(self, package: str) -> float:
        """Return the fastest repeat for one package."""
        return min(self.seconds[package])

    def total_best(self) -> float:
        """Return the sum over packages of each package's fastest repeat."""
        return sum(min(times) for times in self.seconds.values())


def read_pins(pins_file: Path = PINS_FILE) -> list[Package]:
    """Parse corpus.txt lines 'name==version  folder [folder ...]'."""
    packages = []
    for raw in pins_file.read_text(encoding="utf-8").splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        pin, *folders = line.split()
        default_folder = pin.split("==", 1)[0].replace("-", "_")
        packages.append(Package(pin=pin, folders=tuple(folders) or (default_folder,)))
    return packages


def select_packages(packages: list[Package], wanted: str | None) -> list[Package]:
    """Keep the packages named (by distribution or folder) in a comma-separated list."""
    if not wanted:
        return packages
    names = {name.strip() for name in wanted.split(",") if name.strip()}
    chosen = [p for p in packages if p.name in names or names.intersection(p.folders)]
    unknown = names - {p.name for p in chosen} - {f for p in chosen for f in p.folders}
    if unknown:
        raise SystemExit(f"unknown package(s): {', '.join(sorted(unknown))}")
    return chosen


def collect_files(package: Package, corpus_dir: Path = CORPUS_DIR) -> list[SourceFile]:
    """Read every .py file under the package's own folders (not dist-info, docs or examples)."""
    files = []
    for folder in package.folders:
        root = corpus_dir / folder
        if not root.is_dir():
            raise SystemExit(f"{root} is missing: run bench/setup_corpus.sh first")
        for path in sorted(root.rglob("*.py")):
            text = path.read_text(encoding="utf-8")
            files.append(SourceFile(path=path, text=text, lines=len(text.splitlines())))
    return files


def parse_ast(text: str, path: str) -> Sequence[str]:
    """Parse with the standard library's ast; no diagnostics."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)
        ast.parse(text, filename=path)
    return ()


def parse_libcst(text: str, path: str) -> Sequence[str]:
    """Parse with libcst's parse_module (no metadata); no diagnostics."""
    libcst.parse_module(text)
    return ()


def ruff_command() -> list[str] | None:
    """Ruff with every rule, no configuration file and no cache, or None where it is not
    installed (it is a dev dependency: `.venv/bin/ruff`)."""
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    if ruff is None:
        return None
    return [ruff, "check", "--isolated", "--select", "ALL", "--no-cache", "--exit-zero", "-q"]


def time_ruff(
    command: list[str], files: list[SourceFile], result: ToolResult, package: str
) -> None:
    """Time one Ruff process over a package's files, on one thread (`RAYON_NUM_THREADS=1`; the
    process inherits this one's CPU affinity). Its start-up (about 10 ms) is counted: Ruff is
    a program, not a library."""
    env = {**os.environ, "RAYON_NUM_THREADS": "1"}
    start = time.perf_counter()
    subprocess.run([*command, *(str(f.path) for f in files)], env=env, capture_output=True)
    result.seconds.setdefault(package, []).append(time.perf_counter() - start)


def load_jaxlint(checkout: Path = REPO_DIR) -> Linter | None:
    """Return a linter that does what one `jaxlint check --no-cache` process does per file,
    with the jaxlint of `checkout` (this one by default; another, a baseline worktree, for an
    A/B on the same corpus and harness)."""
    if str(checkout) not in sys.path:
        sys.path.insert(0, str(checkout))  # measure that checkout, installed or not
    try:
        files = importlib.import_module("jaxlint.files")
        config = importlib.import_module("jaxlint.engine.config").Config()
    except (ImportError, AttributeError) as error:
        print(f"jaxlint engine not importable ({error}); measuring ast and libcst only\n")
        return None
    options: dict[Path, object] = {}

    def lint(text: str, path: str) -> Sequence[str]:
        # the project index of the file's package, built (and timed) once per package and run,
        # as `jaxlint check` builds it before linting, checking the files as it parses them
        root = top_package(Path(path))
        if root not in options:
            package_files = sorted(root.rglob("*.py"))
            options[root] = files.index_project(package_files, config, files.LintOptions())
        outcome = files.lint_bytes(text.encode("utf-8"), path, config, options[root])
        if outcome.error:
            raise RuntimeError(outcome.error)
        return [diagnostic.code for diagnostic in outcome.diagnostics]

    lint.reset = options.clear  # type: ignore[attr-defined]
    return lint


def top_package(path: Path) -> Path:
    """The top package folder of `path` (walking up `__init__.py` files), or its folder."""
    folder = top = path.resolve().parent
    while (folder / "__init__.py").is_file():
        top, folder = folder, folder.parent
    return top


def time_tool(
    tool: Linter,
    files: Iterable[SourceFile],
    result: ToolResult,
    package: str,
    codes: Counter[str] | None = None,
) -> None:
    """Time one tool over a package's files; tally codes and failures when codes is given."""
    reset = getattr(tool, "reset", None)
    if reset is not None:
        reset()  # every repetition pays for the project index again
    start = time.perf_counter()
    for source in files:
        try:
            found = tool(source.text, str(source.path))
            if codes is not None and found:
                codes.update(found)
        except Exception as error:  # a crash is a result to report, not a reason to stop
            if codes is None:
                continue
            result.failures[package] += 1
            kind = f"{type(error).__name__}: {error}"[:160]
            result.failure_kinds[kind] += 1
            result.failure_example.setdefault(kind, str(source.path.relative_to(CORPUS_DIR)))
    result.seconds.setdefault(package, []).append(time.perf_counter() - start)


def pin_to_one_core(cpu: int | None) -> str:
    """Restrict this process to one CPU (default: the last allowed one) and describe it."""
    if not hasattr(os, "sched_setaffinity"):
        return "not pinned (no sched_setaffinity)"
    allowed = sorted(os.sched_getaffinity(0))
    chosen = allowed[-1] if cpu is None else cpu
    os.sched_setaffinity(0, {chosen})
    return f"pinned to CPU {chosen} of {allowed}"


def max_rss_mib() -> float:
    """Return this process's peak resident set size in MiB (ru_maxrss is KiB on Linux)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024


def load_average() -> str:
    """Return the 1/5/15-minute load average as text."""
    try:
        return " ".join(Path("/proc/loadavg").read_text(encoding="utf-8").split()[:3])
    except OSError:
        return "unknown"


def rate(lines: int, seconds: float) -> str:
    """Format lines per second."""
    return f"{lines / seconds:,.0f}" if seconds > 0 else "inf"


def print_table(
    packages: list[Package],
    corpus: dict[str, list[SourceFile]],
    results: dict[str, ToolResult],
) -> None:
    """Print one Markdown row per package and a total row."""
    tools = [tool for tool in ("ast", "libcst", "ruff", "jaxlint") if tool in results]
    header = ["package", "files", "lines"]
    for tool in tools:
        header += [f"{tool} s", f"{tool} lines/s"]
    if "jaxlint" in results:
        header.append("jaxlint/libcst time")
    if "jaxlint" in results and "ruff" in results:
        header.append("jaxlint speed / Ruff's")
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join(["---"] + ["---:"] * (len(header) - 1)) + "|")
    rows = [(p.pin, p.name) for p in packages] + [("**total**", None)]
    for label, name in rows:
        files = corpus[name] if name else [f for fs in corpus.values() for f in fs]
        lines = sum(f.lines for f in files)
        cells = [label, str(len(files)), f"{lines:,}"]
        seconds = {}
        for tool in tools:
            seconds[tool] = results[tool].best(name) if name else results[tool].total_best()
            cells += [f"{seconds[tool]:.3f}", rate(lines, seconds[tool])]
        if "jaxlint" in results:
            cells.append(f"{seconds['jaxlint'] / seconds['libcst']:.2f}x")
        if "jaxlint" in results and "ruff" in results:
            cells.append(f"{seconds['ruff'] / seconds['jaxlint']:.2f}x")
        print("| " + " | ".join(cells) + " |")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the speed harness and print the report."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--packages", help="comma-separated subset (distribution or folder names)")
    parser.add_argument("--repeat", type=int, default=3, help="passes per tool; best is reported")
    parser.add_argument("--profile", action="store_true", help="cProfile one jaxlint pass")
    parser.add_argument("--profile-sort", default="cumulative", help="pstats sort key")
    parser.add_argument("--profile-out", help="also write the profile's stats to this file")
    parser.add_argument("--cpu", type=int, help="CPU to pin to (default: last allowed)")
    parser.add_argument("--no-jaxlint", action="store_true", help="measure ast and libcst only")
    parser.add_argument("--no-ruff", action="store_true", help="leave Ruff out")
    parser.add_argument(
        "--jaxlint-from",
        type=Path,
        default=REPO_DIR,
        help="the checkout whose jaxlint to measure (a baseline worktree), on this corpus",
    )
    parser.add_argument(
        "--no-cache-run", action="store_true", help="skip the cold/warm `jaxlint check` timing"
    )
    args = parser.parse_args(argv)

    packages = select_packages(read_pins(), args.packages)
    corpus = {p.name: collect_files(p) for p in packages}
    affinity = pin_to_one_core(args.cpu)
    codes: Counter[str] = Counter()
    # jaxlint runs before libcst so that the RSS high-water mark read after it is its own.
    tools: dict[str, Linter] = {"ast": parse_ast}
    jaxlint = None if args.no_jaxlint else load_jaxlint(args.jaxlint_from.resolve())
    if jaxlint is not None:
        tools["jaxlint"] = jaxlint
    tools["libcst"] = parse_libcst

    total_lines = sum(f.lines for fs in corpus.values() for f in fs)
    print(f"# jaxlint speed: {total_lines:,} lines in {sum(map(len, corpus.values()))} files\n")
    print(f"- Python {sys.version.split()[0]}, libcst {libcst_version()}, {affinity}")
    print(f"- load average at start: {load_average()}; repeats: {args.repeat} (best per package)")

    ruff = None if args.no_ruff else ruff_command()
    results = {name: ToolResult() for name in tools}
    if ruff is not None:
        results["ruff"] = ToolResult()
    peak_after: dict[str, float] = {"files read": max_rss_mib()}
    for repeat in range(args.repeat):
        for name, tool in tools.items():
            tally = codes if repeat == 0 else None  # count diagnostics and crashes once
            for package in packages:
                time_tool(tool, corpus[package.name], results[name], package.name, tally)
            if repeat == 0:
                peak_after[name] = max_rss_mib()
        if ruff is not None:
            for package in packages:
                time_ruff(ruff, corpus[package.name], results["ruff"], package.name)
    print(f"- load average at end: {load_average()}\n")

    print_table(packages, corpus, results)
    print()
    for name, result in results.items():
        if result.failures:
            print(
                f"{name}: {sum(result.failures.values())} file(s) failed: {dict(result.failures)}"
            )
            for kind, count in result.failure_kinds.most_common(5):
                print(f"  {count} x {kind} (e.g. {result.failure_example[kind]})")
    print(
        "peak RSS (ru_maxrss, high-water mark, MiB) after: "
        + ", ".join(f"{stage} {mib:.0f}" for stage, mib in peak_after.items())
    )

    if "jaxlint" in results:
        jaxlint_rate = total_lines / results["jaxlint"].total_best()
        verdict = "meets" if jaxlint_rate >= TARGET_LINES_PER_S else "MISSES"
        ratio = results["jaxlint"].total_best() / results["libcst"].total_best()
        print(
            f"\njaxlint: {jaxlint_rate:,.0f} lines/s on one core, {ratio:.2f}x libcst parse time; "
            f"{verdict} the {TARGET_LINES_PER_S:,} lines/s target"
        )
        if "ruff" in results:
            ruff_rate = total_lines / results["ruff"].total_best()
            print(
                f"Ruff --select ALL: {ruff_rate:,.0f} lines/s on one thread; jaxlint runs at "
                f"{jaxlint_rate / ruff_rate:.2f}x Ruff's speed"
            )
        print(
            f"diagnostics ({sum(codes.values())}): "
            + (", ".join(f"{code} {count}" for code, count in sorted(codes.items())) or "none")
        )
        if args.profile:
            print_profile(jaxlint, packages, corpus, args.profile_sort, args.profile_out)
    if jaxlint is not None and not args.no_cache_run:
        cold, warm = time_cache_runs(
            [CORPUS_DIR / p.name for p in packages], args.jaxlint_from.resolve()
        )
        print(
            f"cache: `jaxlint check` over these packages took {cold:.2f} s cold and "
            f"{warm:.2f} s warm ({warm / cold:.0%} of cold; process start-up included)"
        )
    return 0


def time_cache_runs(folders: list[Path], checkout: Path = REPO_DIR) -> tuple[float, float]:
    """Wall time of `jaxlint check` (the checkout's) with an empty cache, then again with the
    cache it wrote."""
    import tempfile

    with tempfile.TemporaryDirectory() as cache_dir:
        env = {**os.environ, "JAXLINT_CACHE_DIR": cache_dir, "PYTHONPATH": str(checkout)}
        command = [sys.executable, "-m", "jaxlint", "check", "--no-verify", "--select", "JAX"]
        times = []
        for _ in range(2):
            start = time.perf_counter()
            subprocess.run(
                [*command, *map(str, folders)], cwd=checkout, env=env, capture_output=True
            )
            times.append(time.perf_counter() - start)
    return times[0], times[1]


def print_profile(
    jaxlint: Linter,
    packages: list[Package],
    corpus: dict[str, list[SourceFile]],
    sort: str,
    out_file: str | None = None,
) -> None:
    """Profile one jaxlint pass over the corpus and print the top 25 functions."""
    profiler = cProfile.Profile()
    profiler.enable()
    for package in packages:
        for source in corpus[package.name]:
            with contextlib.suppress(Exception):  # crashes were reported by the timed passes
                jaxlint(source.text, str(source.path))
    profiler.disable()
    if out_file:
        profiler.dump_stats(out_file)
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats(sort).print_stats(25)
    print(f"\n## cProfile of one jaxlint pass (top 25 by {sort})\n")
    print(out.getvalue())


def libcst_version() -> str:
    """Return the installed libcst version."""
    from importlib.metadata import version

    return version("libcst")


if __name__ == "__main__":
    raise SystemExit(main())
