"""The `jaxlint` command: argument parsing, file reading and writing, output, exit codes."""

from __future__ import annotations

import argparse
import contextlib
import difflib
import hashlib
import io
import multiprocessing
import os
import re
import stat
import sys
import tempfile
import tokenize
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from jaxlint.config import Config, ConfigError, load_config, parse_code_list
from jaxlint.diagnostics import Diagnostic
from jaxlint.output import FORMATS, formatter, tool_version

if TYPE_CHECKING:
    from jaxlint.project import ProjectIndex

SUBCOMMANDS = ("check", "rule", "rules", "verify")
EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
STDIN = "-"
DIFF_NOTE = "shown in diff"
# Line breaks as Python's tokenizer counts them (str.splitlines also breaks on form feeds).
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


class UsageError(Exception):
    """A command-line mistake reported as `jaxlint: error: …` with exit code 2."""


# ---------------------------------------------------------------- linting one file


@dataclass(frozen=True)
class LintOptions:
    """What the engine is asked to do with each file."""

    fix: bool = False
    unsafe_fixes: bool = False
    verify: bool = True
    project: ProjectIndex | None = None  # functions other modules trace, per file


@dataclass(frozen=True)
class FileOutcome:
    """What became of one file: its diagnostics and rewrite, or why it could not be linted."""

    path: str
    diagnostics: tuple[Diagnostic, ...] = ()
    source: str | None = None
    fixed_source: str | None = None
    encoding: str = "utf-8"
    digest: str | None = None  # sha256 of the bytes read, to detect a change before writing
    error: str | None = None  # could not be linted: exit code 2
    note: str | None = None  # skipped for a reason that is not the user's fault

    @property
    def changed(self) -> bool:
        return self.fixed_source is not None and self.fixed_source != self.source


def source_linter(path: str) -> Callable[..., Any] | None:
    """The function that lints a file's text: the notebook adapter for `.ipynb`, else the engine.

    Both take `(text, path, config, *, fix, unsafe_fixes, verify)` and return a LintResult whose
    `fixed_source` is the whole new file text. None means the file kind is not supported here.
    """
    if path.endswith(".ipynb"):
        try:
            from jaxlint.notebook import lint_notebook
        except ModuleNotFoundError as error:
            if error.name != "jaxlint.notebook":
                raise
            return None
        return lint_notebook
    from jaxlint.engine import lint_source

    return lint_source


def decode_source(data: bytes, path: str) -> tuple[str, str]:
    """Bytes → (text, encoding): PEP 263 for Python, UTF-8 for notebooks; ValueError if bad."""
    encoding = "utf-8"
    if not path.endswith(".ipynb"):
        try:
            encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        except SyntaxError as error:
            # Without a declaration, the complaint is about the bytes: decode them to say where.
            if "unknown encoding" in error.msg or "encoding problem" in error.msg:
                raise ValueError(f"bad encoding declaration: {error.msg}") from None
    try:
        return data.decode(encoding), encoding
    except UnicodeDecodeError as error:
        byte = data[error.start]
        raise ValueError(
            f"not valid {encoding} text (byte 0x{byte:02x} at offset {error.start})"
        ) from None


def lint_bytes(data: bytes, path: str, config: Config, options: LintOptions) -> FileOutcome:
    """Decode and lint one file's content; never raises for bad input or an engine failure."""
    digest = hashlib.sha256(data).hexdigest()
    try:
        source, encoding = decode_source(data, path)
    except ValueError as error:
        return FileOutcome(path, error=f"{path}: {error}")
    try:
        lint = source_linter(path)
        if lint is None:
            note = f"{path}: skipped: notebook support (jaxlint.notebook) is not installed"
            return FileOutcome(path, source=source, digest=digest, note=note)
        result = lint(
            source,
            path,
            config,
            fix=options.fix,
            unsafe_fixes=options.unsafe_fixes,
            verify=options.verify,
            project=options.project.view(path) if options.project else None,
        )
    except Exception as error:  # one broken file must not stop the others
        message = f"{path}: internal error: {type(error).__name__}: {error}"
        if os.environ.get("JAXLINT_DEBUG"):
            import traceback

            message += "\n" + traceback.format_exc()
        return FileOutcome(path, source=source, digest=digest, error=message)
    return FileOutcome(
        path,
        diagnostics=tuple(result.diagnostics),
        source=source,
        fixed_source=result.fixed_source,
        encoding=encoding,
        digest=digest,
    )


def lint_path(path: Path, config: Config, options: LintOptions = LintOptions()) -> FileOutcome:
    """Read and lint one file (the single entry point for `.py` and `.ipynb` alike)."""
    display = str(path)
    try:
        data = path.read_bytes()
    except OSError as error:
        return FileOutcome(display, error=f"{display}: cannot read file: {error.strerror or error}")
    return lint_bytes(data, display, config, options)


def _lint_chunk(paths: Sequence[Path], config: Config, options: LintOptions) -> list[FileOutcome]:
    if not options.fix:
        return [lint_path(path, config, options) for path in paths]
    from jaxlint.verify import shared_session

    with shared_session():  # one verification child (one JAX import) for all these files
        return [lint_path(path, config, options) for path in paths]


def lint_paths(
    paths: Sequence[Path], config: Config, options: LintOptions, jobs: int = 1
) -> list[FileOutcome]:
    """Lint files, in a process pool when `jobs` > 1; outcomes come back in the order of `paths`."""
    if jobs <= 1 or len(paths) <= 1:
        return _lint_chunk(paths, config, options)
    size = max(1, len(paths) // (jobs * 4))
    chunks = [paths[i : i + size] for i in range(0, len(paths), size)]
    outcomes: list[FileOutcome] = []
    if multiprocessing.get_start_method() == "fork":
        # Load the engine and its rules once here: forked workers inherit them instead of each
        # paying the start-up (about half a second) again.
        with contextlib.suppress(Exception):
            warm_up = source_linter("warm-up.py")
            if warm_up is not None:
                warm_up("import jax\n", "warm-up.py", config)
    try:
        pool = ProcessPoolExecutor(max_workers=min(jobs, len(chunks)))
    except (OSError, NotImplementedError, ValueError):
        return _lint_chunk(paths, config, options)
    with pool:
        futures = [pool.submit(_lint_chunk, chunk, config, options) for chunk in chunks]
        for chunk, future in zip(chunks, futures, strict=True):
            try:
                outcomes.extend(future.result())
            except Exception:  # a worker died or a result would not pickle: lint it here
                outcomes.extend(_lint_chunk(chunk, config, options))
    return outcomes


# ---------------------------------------------------------------- writing fixes


def _file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def write_atomically(path: Path, text: str, encoding: str, expected_digest: str | None) -> None:
    """Replace `path` with `text` via a temp file in its folder, keeping its mode.

    Raises OSError, or ValueError when the file no longer holds the bytes it was linted from.
    """
    target = Path(os.path.realpath(path))  # write through a symlink, never over it
    data = text.encode(encoding)
    mode = stat.S_IMODE(target.stat().st_mode)
    handle, temp_name = tempfile.mkstemp(
        dir=target.parent, prefix=f".{target.name}.", suffix=".tmp"
    )
    try:
        with os.fdopen(handle, "wb") as temp:
            temp.write(data)
            temp.flush()
            os.fsync(temp.fileno())
        os.chmod(temp_name, mode)
        if expected_digest is not None and _file_digest(target) != expected_digest:
            raise ValueError("the file changed on disk since it was read; fixes not written")
        os.replace(temp_name, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp_name)
        raise


def _unapply(diagnostics: Sequence[Diagnostic], note: str) -> tuple[Diagnostic, ...]:
    """Mark applied fixes as not applied (nothing was written), saying why."""
    out = []
    for diagnostic in diagnostics:
        if diagnostic.fix is not None and diagnostic.fix.applied:
            diagnostic = diagnostic.with_fix(replace(diagnostic.fix, applied=False, note=note))
        out.append(diagnostic)
    return tuple(out)


def write_fixes(outcome: FileOutcome) -> FileOutcome:
    """Write a changed file; on refusal or failure, its fixes become not applied with an error."""
    if not outcome.changed:
        return outcome
    assert outcome.fixed_source is not None
    try:
        write_atomically(Path(outcome.path), outcome.fixed_source, outcome.encoding, outcome.digest)
    except (OSError, ValueError, UnicodeEncodeError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        return replace(
            outcome,
            diagnostics=_unapply(outcome.diagnostics, f"not written: {reason}"),
            fixed_source=None,
            error=f"{outcome.path}: cannot write fixes: {reason}",
        )
    return outcome


def unified_diff(outcome: FileOutcome) -> str:
    """The `--diff` text for one file (`--- a/path` / `+++ b/path`), empty when unchanged."""
    if not outcome.changed or outcome.source is None or outcome.fixed_source is None:
        return ""
    name = outcome.path.replace(os.sep, "/").lstrip("/")
    lines = difflib.unified_diff(
        outcome.source.splitlines(keepends=True),
        outcome.fixed_source.splitlines(keepends=True),
        fromfile=f"a/{name}",
        tofile=f"b/{name}",
    )
    out = []
    for line in lines:
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)


# ---------------------------------------------------------------- the check command


def _config_for(config_file: str | None, start: str) -> Config:
    return load_config(Path(config_file) if config_file else None, start=Path(start))


def _read_stdin(display: str, config: Config, options: LintOptions) -> FileOutcome:
    try:
        data = sys.stdin.buffer.read()
    except OSError as error:
        return FileOutcome(display, error=f"{display}: cannot read stdin: {error}")
    return lint_bytes(data, display, config, options)


def _emit(stream: TextIO, text: str) -> None:
    if text:
        stream.write(text if text.endswith("\n") else text + "\n")


@dataclass
class _Run:
    """What one `check` run produced, after fixes were written or diffed."""

    outcomes: list[FileOutcome]
    diffs: list[str]
    errors: list[str]

    @property
    def diagnostics(self) -> list[Diagnostic]:
        """Every file's diagnostics, files in discovery order, each file in the engine's order."""
        return [d for outcome in self.outcomes for d in outcome.diagnostics]


def _settle(
    outcomes: list[FileOutcome], stdin: FileOutcome | None, args: argparse.Namespace
) -> _Run:
    """Write fixes (`--fix`) or collect diffs (`--diff`), and gather every file's error."""
    run = _Run([], [], [])
    for outcome in outcomes:
        if args.diff:
            run.diffs.append(unified_diff(outcome))
            outcome = replace(outcome, diagnostics=_unapply(outcome.diagnostics, DIFF_NOTE))
        elif args.fix and outcome is not stdin:
            outcome = write_fixes(outcome)
        run.outcomes.append(outcome)
        if outcome.error:
            run.errors.append(outcome.error)
        if outcome.note:
            print(outcome.note, file=sys.stderr)
    return run


def _print_report(run: _Run, args: argparse.Namespace, stream: TextIO) -> None:
    """The diagnostics (or statistics) in the chosen format, and the text summary."""
    from jaxlint.output import text
    from jaxlint.output.json_format import format_json_statistics

    diagnostics = run.diagnostics
    if args.statistics:
        stats = text.format_statistics if args.output_format == "text" else format_json_statistics
        _emit(stream, stats(diagnostics))
    elif args.output_format == "text":
        sources = None
        if args.show_source:
            sources = {o.path: _LINE_BREAK.split(o.source) for o in run.outcomes if o.source}
        _emit(stream, text.format_text(diagnostics, sources))
    else:
        _emit(stream, formatter(args.output_format)(diagnostics))
    if args.output_format != "text" or (run.errors and not diagnostics):
        return
    _emit(stream, text.summary(diagnostics, fixing=bool(args.fix) and not args.diff))
    changed_files = sum(1 for diff in run.diffs if diff)
    if changed_files:
        _emit(stream, f"Would change {changed_files} file{'s' if changed_files > 1 else ''}.")


def run_check(args: argparse.Namespace) -> int:
    """`jaxlint check`: lint, optionally fix or diff, report, and return the exit code."""
    from jaxlint.discovery import discover

    paths: list[str] = list(args.paths) or ([STDIN] if args.stdin_filename else ["."])
    if args.statistics and args.output_format not in ("text", "json"):
        raise UsageError("--statistics works with --output-format text or json")
    if args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    start = paths[0] if paths[0] != STDIN else (args.stdin_filename or ".")
    config = _config_for(args.config, start).with_overrides(
        select=args.select, ignore=args.ignore, extend_select=args.extend_select
    )
    options = LintOptions(
        fix=bool(args.fix or args.diff), unsafe_fixes=args.unsafe_fixes, verify=not args.no_verify
    )

    discovery_errors: list[str] = []
    outcomes: list[FileOutcome] = []
    stdin = None
    if STDIN in paths:
        stdin = _read_stdin(args.stdin_filename or STDIN, config, options)
        outcomes.append(stdin)
    file_paths = [p for p in paths if p != STDIN]
    if file_paths:
        found = discover(file_paths, config)
        discovery_errors.extend(found.errors)
        _record_examples(args, found.files, config, options)
        from jaxlint.project import build_project_index

        python_files = [f for f in found.files if f.suffix == ".py"]
        options = replace(options, project=build_project_index(python_files, config))
        outcomes.extend(lint_paths(found.files, config, options, jobs=args.jobs))
    run = _settle(outcomes, stdin, args)
    run.errors[:0] = discovery_errors

    stdin_fixing = bool(args.fix) and not args.diff and stdin is not None
    if stdin_fixing and stdin is not None and stdin.source is not None:
        # Like a formatter filter: the (possibly unchanged) source on stdout, the report on stderr.
        sys.stdout.flush()
        new_text = stdin.fixed_source if stdin.fixed_source is not None else stdin.source
        sys.stdout.buffer.write(new_text.encode(stdin.encoding))
        sys.stdout.buffer.flush()
    if any(run.diffs):
        _emit(sys.stdout, "".join(run.diffs))
    for message in run.errors:
        print(message, file=sys.stderr)
    _print_report(run, args, sys.stderr if stdin_fixing or args.diff else sys.stdout)

    if run.errors:
        return EXIT_ERROR
    if args.exit_zero:
        return EXIT_CLEAN
    remaining = [d for d in run.diagnostics if d.fix is None or not d.fix.applied]
    return EXIT_FINDINGS if remaining or any(run.diffs) else EXIT_CLEAN


def _record_examples(
    args: argparse.Namespace, files: Sequence[Path], config: Config, options: LintOptions
) -> None:
    """`--examples-from CMD`: record the verify targets' signatures by running CMD once."""
    command = getattr(args, "examples_from", None)
    if command is None:
        return
    if not (options.fix and options.verify):
        print(
            "jaxlint: --examples-from is only used when verifying fixes (--fix or --diff)",
            file=sys.stderr,
        )
        return
    if args.examples_timeout <= 0:
        raise UsageError("--examples-timeout must be positive")
    from jaxlint.verify.recording import prepare_examples

    prepare_examples(files, config, command, timeout_s=args.examples_timeout)


def _add_examples_options(parser: argparse.ArgumentParser, only_with: str) -> None:
    parser.add_argument(
        "--examples-from",
        metavar="CMD",
        help=f"run CMD once (e.g. 'pytest tests/', 'python train.py') with the functions to "
        f"verify wrapped and record their argument shapes, dtypes and static values as example "
        f"inputs, cached in .jaxlint_cache/; this runs your code{only_with}",
    )
    parser.add_argument(
        "--examples-timeout",
        type=float,
        default=300.0,
        metavar="S",
        help="stop CMD after S seconds (default 300)",
    )


# ---------------------------------------------------------------- other commands


def run_rule(args: argparse.Namespace) -> int:
    """`jaxlint rule CODE`: print the rule's page."""
    from jaxlint.registry import ENGINE_CODES, all_rules, known_codes, rule_page

    code = args.code.strip().upper()
    if code not in known_codes():
        raise UsageError(f"unknown rule code {args.code!r}; `jaxlint rules` lists them")
    page = rule_page(code)
    if page is None:
        if code in ENGINE_CODES:
            name, severity, summary = ENGINE_CODES[code]
        else:
            rule = all_rules()[code]
            name, severity, summary = rule.name, rule.severity, rule.summary
        page = f"# {code} ({name})\n\n{summary}\n\nSeverity: {severity}.\n"
    _emit(sys.stdout, page)
    return EXIT_CLEAN


def rules_table() -> str:
    """`jaxlint rules`: code, name, severity, fix kind and default/opt-in, one rule a row."""
    from jaxlint.registry import ENGINE_CODES, all_rules

    rows = [("code", "name", "severity", "fix", "selection")]
    for code, (name, severity, _) in ENGINE_CODES.items():
        rows.append((code, name, severity, "-", "default"))
    for code, rule in all_rules().items():
        selection = "opt-in" if rule.opt_in else "default"
        rows.append((code, rule.name, rule.severity, rule.fix_kind or "-", selection))
    rows[1:] = sorted(rows[1:])
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "".join(
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        + "\n"
        for row in rows
    )


def run_rules(args: argparse.Namespace) -> int:
    """`jaxlint rules`: print the rules table."""
    _emit(sys.stdout, rules_table())
    return EXIT_CLEAN


def _verify_command() -> Callable[[list[Path], Config], int]:
    try:
        from jaxlint.verify import report
    except ModuleNotFoundError as error:
        if error.name in ("jax", "jaxlib"):
            raise UsageError("verification needs JAX: pip install 'jaxlint[verify]'") from None
        if error.name not in ("jaxlint.verify", "jaxlint.verify.report"):
            raise
        raise UsageError(
            "verification is not available: jaxlint.verify.report is missing"
        ) from None
    command = getattr(report, "run_verify_command", None)
    if command is None:
        raise UsageError(
            "verification is not available: no jaxlint.verify.report.run_verify_command"
        )
    return command


def run_verify(args: argparse.Namespace) -> int:
    """`jaxlint verify PATHS`: hand the discovered files to the verification report."""
    from jaxlint.discovery import discover

    run_verify_command = _verify_command()
    paths = list(args.paths) or ["."]
    config = _config_for(args.config, paths[0])
    found = discover(paths, config)
    for message in found.errors:
        print(message, file=sys.stderr)
    _record_examples(args, found.files, config, LintOptions(fix=True))
    status = run_verify_command(list(found.files), config)
    return EXIT_ERROR if found.errors else int(status)


# ---------------------------------------------------------------- argument parsing


def _codes(text: str) -> list[str]:
    return parse_code_list(text)


def build_parser() -> argparse.ArgumentParser:
    """The argparse parser for every subcommand."""
    parser = argparse.ArgumentParser(
        prog="jaxlint",
        description="Find and fix the mistakes that make jax.jit code slow, wrong or crash.",
        epilog="`jaxlint PATHS` is short for `jaxlint check PATHS`.",
    )
    parser.add_argument("--version", action="version", version=f"jaxlint {tool_version()}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    check = commands.add_parser("check", help="lint files (and fix them with --fix)")
    check.add_argument("paths", nargs="*", metavar="PATHS", help="files or folders; - for stdin")
    check.add_argument("--fix", action="store_true", help="apply safe and verified fixes")
    check.add_argument(
        "--unsafe-fixes", action="store_true", help="also apply fixes that failed verification"
    )
    check.add_argument(
        "--diff", action="store_true", help="print the fixes as a diff; write nothing"
    )
    check.add_argument("--no-verify", action="store_true", help="skip verification with real JAX")
    for option, text in (
        ("--select", "enable exactly these codes or prefixes (e.g. JAX1,JAX303)"),
        ("--extend-select", "enable these codes in addition"),
        ("--ignore", "disable these codes or prefixes"),
    ):
        check.add_argument(option, type=_codes, action="extend", metavar="CODES", help=text)
    check.add_argument("--output-format", choices=FORMATS, default="text")
    check.add_argument("--statistics", action="store_true", help="print counts per rule code")
    check.add_argument("--jobs", "-j", type=int, default=1, metavar="N", help="processes to use")
    check.add_argument("--no-cache", action="store_true", help="do not read or write a cache")
    check.add_argument("--config", metavar="FILE", help="pyproject.toml or jaxlint.toml to use")
    check.add_argument("--exit-zero", action="store_true", help="exit 0 even with diagnostics")
    check.add_argument("--stdin-filename", metavar="NAME", help="the path reported for stdin")
    check.add_argument("--show-source", action="store_true", help="show the flagged source line")
    _add_examples_options(check, "; only used with --fix or --diff")
    check.set_defaults(handler=run_check)

    rule = commands.add_parser("rule", help="print a rule's page")
    rule.add_argument("code", metavar="CODE")
    rule.set_defaults(handler=run_rule)

    rules = commands.add_parser("rules", help="list all rules")
    rules.set_defaults(handler=run_rules)

    verify = commands.add_parser("verify", help="run the verification report only")
    verify.add_argument("paths", nargs="*", metavar="PATHS")
    verify.add_argument("--config", metavar="FILE")
    _add_examples_options(verify, "")
    verify.set_defaults(handler=run_verify)
    return parser


def _with_default_command(argv: list[str]) -> list[str]:
    if not argv or argv[0] not in (*SUBCOMMANDS, "-h", "--help", "--version"):
        return ["check", *argv]
    return argv


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="backslashreplace")
    args = build_parser().parse_args(
        _with_default_command(list(sys.argv[1:] if argv is None else argv))
    )
    try:
        return int(args.handler(args))
    except (ConfigError, UsageError) as error:
        print(f"jaxlint: error: {error}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (`jaxlint … | head`); keep Python from complaining at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_ERROR
    except Exception as error:  # a bug in jaxlint: say so in one line, not a traceback
        print(f"jaxlint: internal error: {type(error).__name__}: {error}", file=sys.stderr)
        if os.environ.get("JAXLINT_DEBUG"):
            raise
        return EXIT_ERROR
