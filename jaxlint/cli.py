"""The `jaxlint` command: argument parsing, file reading and writing, output, exit codes."""

from __future__ import annotations

import argparse
import difflib
import io
import os
import re
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TextIO

from jaxlint.diagnostics import SHOWN_IN_DIFF, Diagnostic
from jaxlint.engine.config import Config, ConfigError, load_config, parse_code_list
from jaxlint.files import (
    FileOutcome,
    LintOptions,
    checked_roots,
    index_project,
    lint_bytes,
    lint_paths,
    remove_stale_temps,
    unapply_fixes,
    unified_diff,
    write_fixes,
)
from jaxlint.observe.run import Observation, observe, params_for, seen_for
from jaxlint.output import FORMATS, HUMAN_FORMATS, formatter, tool_version
from jaxlint.output.escape import to_stderr
from jaxlint.output.progress import Progress
from jaxlint.session import Session

SUBCOMMANDS = ("check", "rule", "rules", "server", "verify")
EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
STDIN = "-"
# Line breaks as Python's tokenizer counts them (str.splitlines also breaks on form feeds).
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


class UsageError(Exception):
    """A command-line mistake reported as `jaxlint: error: …` with exit code 2."""


# ---------------------------------------------------------------- the check command


def _config_for(config_file: str | None, start: str) -> Config:
    return load_config(Path(config_file) if config_file else None, start=Path(start))


def _read_stdin(display: str, config: Config, options: LintOptions) -> FileOutcome:
    try:
        data = sys.stdin.buffer.read()
    except OSError as error:
        return FileOutcome(display, error=f"{display}: cannot read stdin: {error}")
    # `--stdin-filename pkg/losses.py`: the text is that module of its project, as an editor's
    # unsaved buffer is, and is linted with the project's index
    project = Session().index_for(display, config.jit_decorators, {display: data})
    return lint_bytes(data, display, config, replace(options, project=project))


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
    writing = bool(args.fix) and not args.diff
    roots = checked_roots([p for p in args.paths if p != STDIN] or ["."])
    if writing:
        for temp in remove_stale_temps(Path(o.path).parent for o in outcomes if o is not stdin):
            to_stderr(f"{temp}: removed a temp file an interrupted jaxlint left")
    written: list[str] = []
    for position, outcome in enumerate(outcomes):
        if args.diff:
            run.diffs.append(unified_diff(outcome))
            outcome = replace(
                outcome, diagnostics=unapply_fixes(outcome.diagnostics, SHOWN_IN_DIFF)
            )
        elif writing and outcome is not stdin:
            try:
                outcome = write_fixes(outcome, roots)
            except KeyboardInterrupt:
                unwritten = [o.path for o in outcomes[position:] if o.changed and o is not stdin]
                _say_interrupted(written, unwritten)
                raise
            if outcome.changed:
                written.append(outcome.path)
        run.outcomes.append(outcome)
        if outcome.error:
            run.errors.append(outcome.error)
        if outcome.note:
            to_stderr(outcome.note)
    return run


def _say_interrupted(written: Sequence[str], unwritten: Sequence[str]) -> None:
    """After Ctrl-C while writing: which files hold their fixes and which were left as read."""
    to_stderr("jaxlint: interrupted while writing fixes")
    for label, paths in (("fixes written to", written), ("not written (unchanged)", unwritten)):
        to_stderr(f"  {label}: {len(paths)} file(s): {', '.join(paths) or '-'}")


def _use_color(args: argparse.Namespace, stream: TextIO) -> bool:
    """`--color always|never`, or by default colour on a terminal unless NO_COLOR is set."""
    color: str = args.color
    if color != "auto":
        return color == "always"
    return not os.environ.get("NO_COLOR") and stream.isatty()


def _print_report(
    run: _Run, args: argparse.Namespace, stream: TextIO, diff_stream: TextIO | None = None
) -> None:
    """The diagnostics (or statistics) in the chosen format, and the human formats' summary.

    With `diff_stream`, each file's diff follows that file's findings there (flushed in turn,
    so a terminal showing both streams shows every diff after the findings it fixes)."""
    from jaxlint.output import text
    from jaxlint.output.json_format import format_json_statistics

    diagnostics = run.diagnostics
    human = args.output_format in HUMAN_FORMATS
    applied = [d for d in diagnostics if d.fix is not None and d.fix.applied]
    if args.fix_only:  # only what was fixed: the findings left are not this run's business
        if args.show_fixes:
            _emit(stream, text.format_fixes(applied))
        if not args.quiet:
            _emit(stream, f"Fixed {len(applied)} finding{'' if len(applied) == 1 else 's'}.")
        return
    if args.statistics:
        _emit(stream, (text.format_statistics if human else format_json_statistics)(diagnostics))
    elif human:
        sources = None
        if args.show_source:
            sources = {o.path: _LINE_BREAK.split(o.source) for o in run.outcomes if o.source}
        color = _use_color(args, stream)
        diffs = run.diffs if diff_stream is not None else [""] * len(run.outcomes)
        for outcome, diff in zip(run.outcomes, diffs, strict=True):
            report = text.format_text(
                outcome.diagnostics,
                sources,
                color=color,
                concise=args.output_format == "concise",
                fixing=bool(args.fix or args.diff),
            )
            _emit(stream, report)
            if diff and diff_stream is not None:
                stream.flush()
                _emit(diff_stream, diff)
                diff_stream.flush()
    else:
        _emit(stream, formatter(args.output_format)(diagnostics))
    if not human or (run.errors and not diagnostics) or args.quiet:
        return
    if args.show_fixes and applied:
        _emit(stream, text.format_fixes(applied))
    _emit(stream, text.summary(diagnostics, fixing=bool(args.fix) and not args.diff))
    changed_files = sum(1 for diff in run.diffs if diff)
    if changed_files:
        _emit(stream, f"Would change {changed_files} file{'s' if changed_files > 1 else ''}.")


def run_check(args: argparse.Namespace) -> int:
    """`jaxlint check`: lint, optionally fix or diff, report, and return the exit code; with
    `--watch`, again on every change until Ctrl-C."""
    if not args.watch:
        return _check_once(args)
    paths: list[str] = list(args.paths) or ["."]
    if STDIN in paths or args.stdin_filename:
        raise UsageError("--watch checks files, not stdin")
    if args.output_file:
        raise UsageError("--watch shows each check on the terminal; it takes no --output-file")
    from jaxlint.watch import watch

    def check() -> int:
        try:
            return _check_once(args)
        except (ConfigError, UsageError) as error:  # e.g. pyproject.toml saved half-edited
            to_stderr(f"jaxlint: error: {error}")
            return EXIT_ERROR

    return watch(check, lambda: _watched_files(args, paths))


def _watched_files(args: argparse.Namespace, paths: Sequence[str]) -> list[Path]:
    """What `--watch` watches: the files a check would read, and every config file above."""
    from jaxlint.discovery import discover

    start = Path(os.path.abspath(paths[0]))
    folders = [start if start.is_dir() else start.parent, *start.parents]
    files = [f / name for f in folders for name in ("pyproject.toml", "jaxlint.toml")]
    if args.config:
        files.append(Path(args.config))
    try:
        config = _config_for(args.config, paths[0])
    except ConfigError:
        return files  # a broken config is reported by the check; it changes when it is fixed
    return [*files, *discover(paths, config, force_exclude=args.force_exclude).files]


def _check_once(args: argparse.Namespace) -> int:
    from jaxlint.discovery import discover

    paths: list[str] = list(args.paths) or ([STDIN] if args.stdin_filename else ["."])
    if args.statistics and args.output_format not in (*HUMAN_FORMATS, "json"):
        raise UsageError("--statistics works with the concise, full or json output format")
    if args.jobs is None:
        args.jobs = _usable_cores()
    if args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    args.fix = args.fix or args.fix_only
    if args.unsafe_fixes and not (args.fix or args.diff):
        to_stderr("jaxlint: warning: --unsafe-fixes does nothing without --fix or --diff")
    start = paths[0] if paths[0] != STDIN else (args.stdin_filename or ".")
    config = _config_for(args.config, start).with_overrides(
        select=args.select,
        ignore=args.ignore,
        extend_select=args.extend_select,
        per_file_ignores=args.per_file_ignores,
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
        found = discover(file_paths, config, force_exclude=args.force_exclude)
        discovery_errors.extend(found.errors)
        for message in found.skipped:
            to_stderr(message)
        observation = _observe(args, found.files, config, options)
        if observation is None:
            _record_examples(args, found.files, config, options)
        cache_root = None if args.no_cache else _cache_root(file_paths[0])
        python_files = [f for f in found.files if f.suffix == ".py"]
        options = replace(
            options,
            cache_root=cache_root,
            observed_params=params_for(observation, python_files, use_cache=not args.no_cache),
        )
        progress = Progress(enabled=False if args.quiet else None)
        progress.start(len(found.files))
        try:
            # one process lints: the index's parse of each file serves its check too (a pool
            # would lint in parallel, after the index; one file is linted here either way)
            in_process = args.jobs == 1 or len(found.files) <= 1
            options = index_project(python_files, config, options, check=in_process)
            linted = lint_paths(found.files, config, options, args.jobs, progress)
            outcomes.extend(_with_observations(linted, observation, config, args.no_cache))
        finally:
            progress.clear()
    run = _settle(outcomes, stdin, args)
    run.errors[:0] = discovery_errors

    stdin_fixing = bool(args.fix) and not args.diff and stdin is not None
    if stdin_fixing and stdin is not None and stdin.source is not None:
        # Like a formatter filter: the (possibly unchanged) source on stdout, the report on stderr.
        sys.stdout.flush()
        new_text = stdin.fixed_source if stdin.fixed_source is not None else stdin.source
        sys.stdout.buffer.write(new_text.encode(stdin.encoding))
        sys.stdout.buffer.flush()
    # A machine format is the run's output: on stdout (or --output-file), the diff beside it on
    # stderr. The human report gives stdout to the diff (each file's after its findings, on
    # stderr) or to a fixed stdin.
    machine = args.output_format not in HUMAN_FORMATS
    report_on_stdout = not stdin_fixing and (machine or not args.diff)
    interleave = not machine and not args.output_file and not args.statistics and args.diff
    if any(run.diffs) and not interleave:
        _emit(
            sys.stderr if report_on_stdout and not args.output_file else sys.stdout,
            "".join(run.diffs),
        )
    for message in run.errors:
        to_stderr(message)
    if args.output_file:
        with _report_file(args.output_file) as stream:
            _print_report(run, args, stream)
    else:
        stream = sys.stdout if report_on_stdout else sys.stderr
        _print_report(run, args, stream, sys.stdout if interleave else None)

    if run.errors:
        return EXIT_ERROR
    if args.exit_zero:
        return EXIT_CLEAN
    remaining = [d for d in run.diagnostics if d.fix is None or not d.fix.applied]
    fixed = any(d.fix is not None and d.fix.applied for d in run.diagnostics)
    if args.fix_only:
        remaining = []
    if remaining or any(run.diffs) or (fixed and args.exit_non_zero_on_fix):
        return EXIT_FINDINGS
    return EXIT_CLEAN


def _usable_cores() -> int:
    """The cores this process may run on (its affinity mask where the system has one)."""
    if hasattr(os, "sched_getaffinity"):
        return max(len(os.sched_getaffinity(0)), 1)
    return os.cpu_count() or 1


@contextmanager
def _report_file(name: str) -> Iterator[TextIO]:
    """`--output-file`: the report written to a file (its folder must exist)."""
    try:
        stream = open(name, "w", encoding="utf-8")  # noqa: SIM115 — closed below
    except OSError as error:
        raise UsageError(f"--output-file {name}: {error.strerror or error}") from None
    with stream:
        yield stream


def _cache_root(start: str) -> Path:
    """The folder that gets `.jaxlint_cache`: $JAXLINT_CACHE_DIR, else the project root."""
    from jaxlint.cache import project_root

    override = os.environ.get("JAXLINT_CACHE_DIR")
    return Path(override) if override else project_root(start)


def _record_examples(
    args: argparse.Namespace, files: Sequence[Path], config: Config, options: LintOptions
) -> None:
    """`--examples-from CMD`: record the verify targets' signatures by running CMD once."""
    command = getattr(args, "examples_from", None)
    if command is None:
        return
    if not (options.fix and options.verify):
        to_stderr("jaxlint: --examples-from is only used when verifying fixes (--fix or --diff)")
        return
    if args.examples_timeout <= 0:
        raise UsageError("--examples-timeout must be positive")
    from jaxlint.verify.recording import prepare_examples

    prepare_examples(files, config, command, timeout_s=args.examples_timeout)


def _observe(
    args: argparse.Namespace, files: Sequence[Path], config: Config, options: LintOptions
) -> Observation | None:
    """`--observe CMD`: run CMD once with JAX watched (and the verify targets recorded)."""
    command = getattr(args, "observe", None)
    if command is None:
        return None
    if getattr(args, "examples_from", None) is not None:
        raise UsageError("--observe records the example inputs too: give it alone")
    if args.examples_timeout <= 0:
        raise UsageError("--examples-timeout must be positive")
    record = options.fix and options.verify
    return observe(
        command,
        files,
        config,
        timeout_s=args.examples_timeout,
        record=record,
        keep=not args.no_cache,
    )


def _with_observations(
    outcomes: Sequence[FileOutcome], observation: Observation | None, config: Config, no_cache: bool
) -> list[FileOutcome]:
    """Each file's findings with what this run's observation (or, for an unchanged file, an
    earlier one kept in the cache) showed."""
    from jaxlint.observe.attach import with_evidence

    out = []
    for outcome in outcomes:
        seen = None
        if outcome.source is not None and not outcome.error:
            seen = seen_for(outcome.path, outcome.source, observation, use_cache=not no_cache)
        if seen is not None:
            command, hazards = seen
            diagnostics = with_evidence(
                outcome.diagnostics,
                hazards,
                path=outcome.path,
                source=outcome.source or "",
                config=config,
                command=command,
            )
            outcome = replace(outcome, diagnostics=tuple(diagnostics))
        out.append(outcome)
    return out


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
    from jaxlint.engine.registry import ENGINE_CODES, all_rules, known_codes, rule_page

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
    from jaxlint.engine.registry import ENGINE_CODES, all_rules

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


def run_verify(args: argparse.Namespace) -> int:
    """`jaxlint verify PATHS`: hand the discovered files to the verification report."""
    from jaxlint.discovery import discover
    from jaxlint.verify_command import run_verify_command

    paths = list(args.paths) or ["."]
    config = _config_for(args.config, paths[0])
    found = discover(paths, config)
    for message in found.skipped:
        to_stderr(message)
    for message in found.errors:
        to_stderr(message)
    _record_examples(args, found.files, config, LintOptions(fix=True))
    status = run_verify_command(list(found.files), config)
    return EXIT_ERROR if found.errors else int(status)


def run_server(args: argparse.Namespace) -> int:
    """`jaxlint server`: the language server, until the editor says exit."""
    try:
        from jaxlint.server import serve
    except ModuleNotFoundError as error:
        if error.name not in ("pygls", "lsprotocol"):
            raise
        raise UsageError("jaxlint server needs pygls: pip install 'jaxlint[server]'") from None
    return serve()


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
    parser.add_argument("-V", "--version", action="version", version=f"jaxlint {tool_version()}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    check = commands.add_parser("check", help="lint files (and fix them with --fix)")
    check.add_argument("paths", nargs="*", metavar="PATHS", help="files or folders; - for stdin")
    _add_fix_options(check)
    _add_selection_options(check)
    _add_output_options(check)
    _add_run_options(check)
    _add_examples_options(check, "; only used with --fix or --diff")
    check.set_defaults(handler=run_check)

    rule = commands.add_parser("rule", help="print a rule's page")
    rule.add_argument("code", metavar="CODE")
    rule.set_defaults(handler=run_rule)

    rules = commands.add_parser("rules", help="list all rules")
    rules.set_defaults(handler=run_rules)

    server = commands.add_parser(
        "server", help="run the language server on stdin/stdout (needs jaxlint[server])"
    )
    server.set_defaults(handler=run_server)

    verify = commands.add_parser("verify", help="run the verification report only")
    verify.add_argument("paths", nargs="*", metavar="PATHS")
    verify.add_argument("--config", metavar="FILE")
    _add_examples_options(verify, "")
    verify.set_defaults(handler=run_verify)
    for command in commands.choices.values():
        command.set_defaults(parser=command)  # to reject a stray option with its own usage
    return parser


def _add_fix_options(check: argparse.ArgumentParser) -> None:
    """`check`: whether and how fixes are applied."""
    check.add_argument("--fix", action="store_true", help="apply safe and verified fixes")
    check.add_argument(
        "--unsafe-fixes", action="store_true", help="also apply fixes that failed verification"
    )
    check.add_argument(
        "--diff", action="store_true", help="print the fixes as a diff; write nothing"
    )
    check.add_argument("--no-verify", action="store_true", help="skip verification with real JAX")
    check.add_argument(
        "--fix-only",
        action="store_true",
        help="apply fixes like --fix, but report only what was fixed and exit 0 for the rest",
    )
    check.add_argument(
        "--show-fixes", action="store_true", help="list the fixes applied, after the report"
    )
    check.add_argument(
        "--exit-non-zero-on-fix",
        action="store_true",
        help="exit 1 when fixes were written, even if no diagnostic is left",
    )


def _add_selection_options(check: argparse.ArgumentParser) -> None:
    """`check`: which rule codes run, and on which files."""
    for option, text in (
        ("--select", "enable exactly these codes or prefixes (e.g. JAX1,JAX303)"),
        ("--extend-select", "enable these codes in addition"),
        ("--ignore", "disable these codes or prefixes"),
    ):
        check.add_argument(option, type=_codes, action="extend", metavar="CODES", help=text)
    check.add_argument(
        "--extend-ignore", dest="ignore", type=_codes, action="extend", metavar="CODES",
        help="the same as --ignore (added to the configuration's ignore)",
    )  # fmt: skip
    check.add_argument(
        "--per-file-ignores",
        action="append",
        metavar="PATTERN:CODES",
        help="ignore CODES in files matching PATTERN (added to the configuration's), repeatable",
    )
    check.add_argument(
        "--force-exclude",
        action="store_true",
        help="apply exclude and .gitignore to files named on the command line too (pre-commit)",
    )


def _add_output_options(check: argparse.ArgumentParser) -> None:
    """`check`: what the report looks like and where it goes."""
    check.add_argument("--output-file", "-o", metavar="FILE", help="write the report to FILE")
    check.add_argument(
        "--quiet", "-q", action="store_true", help="no progress line and no summary line"
    )
    check.add_argument(
        "--color",
        choices=("auto", "always", "never"),
        default="auto",
        help="colour the text report (auto: on a terminal, unless NO_COLOR is set)",
    )
    check.add_argument(
        "--output-format",
        choices=FORMATS,
        default="concise",
        help="concise (default: a line per finding, [*] where --fix rewrites it), full (the "
        "whole message and fix status; `text` is its old name), json, sarif or github",
    )
    check.add_argument("--statistics", action="store_true", help="print counts per rule code")


def _add_run_options(check: argparse.ArgumentParser) -> None:
    """`check`: processes, watching, the cache and the configuration file."""
    check.add_argument(
        "--jobs",
        "-j",
        type=int,
        default=None,
        metavar="N",
        help="processes to lint and verify in (default: the cores this machine gives jaxlint)",
    )
    check.add_argument(
        "--watch",
        "-w",
        action="store_true",
        help="check again whenever a checked file or the configuration changes (Ctrl-C stops)",
    )
    check.add_argument(
        "--no-cache",
        action="store_true",
        help="do not read or write .jaxlint_cache/ (results keyed by file content and config)",
    )
    check.add_argument(
        "--observe",
        metavar="CMD",
        help="run CMD once (e.g. 'pytest tests/') with JAX watched: findings it confirms say "
        "what it saw (compiles and why, reused PRNG keys, leaked tracers, float64 truncated "
        "to float32) and hazards seen only at run time are reported too; kept in "
        ".jaxlint_cache/ for the unchanged files; with --fix or --diff it also records the "
        "example inputs of --examples-from; this runs your code",
    )
    check.add_argument("--config", metavar="FILE", help="pyproject.toml or jaxlint.toml to use")
    check.add_argument("--exit-zero", action="store_true", help="exit 0 even with diagnostics")
    check.add_argument("--stdin-filename", metavar="NAME", help="the path reported for stdin")
    check.add_argument("--show-source", action="store_true", help="show the flagged source line")


def _with_default_command(argv: list[str]) -> list[str]:
    """`jaxlint PATHS` is `jaxlint check PATHS`; a mistyped command is not taken for a path.

    Raises UsageError for a first word that is no path and close to a command (`chek`)."""
    if argv and argv[0] in (*SUBCOMMANDS, "-h", "--help", "-V", "--version"):
        return argv
    if argv and not argv[0].startswith("-") and not os.path.lexists(argv[0]):
        close = difflib.get_close_matches(argv[0], SUBCOMMANDS, n=1, cutoff=0.6)
        if close:
            raise UsageError(
                f"unknown command {argv[0]!r} (did you mean {close[0]!r}?);"
                f" commands: {', '.join(SUBCOMMANDS)}"
            )
    return ["check", *argv]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="backslashreplace")
    parser = build_parser()
    try:
        words = _with_default_command(list(sys.argv[1:] if argv is None else argv))
    except UsageError as error:
        parser.print_usage(sys.stderr)
        to_stderr(f"jaxlint: error: {error}")
        return EXIT_ERROR
    args, unknown = parser.parse_known_args(words)
    if unknown:
        getattr(args, "parser", parser).error(f"unrecognized arguments: {' '.join(unknown)}")
    try:
        return int(args.handler(args))
    except (ConfigError, UsageError) as error:
        to_stderr(f"jaxlint: error: {error}")
        return EXIT_ERROR
    except KeyboardInterrupt:
        to_stderr("jaxlint: interrupted")
        return 130
    except BrokenPipeError:
        # The reader went away (`jaxlint … | head`); keep Python from complaining at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_ERROR
    except Exception as error:  # a bug in jaxlint: say so in one line, not a traceback
        to_stderr(f"jaxlint: internal error: {type(error).__name__}: {error}")
        if os.environ.get("JAXLINT_DEBUG"):
            raise
        return EXIT_ERROR
