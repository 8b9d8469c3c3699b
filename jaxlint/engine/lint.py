"""Source → diagnostics: cheap text and `ast` pre-passes, then one batched libcst traversal.

Only the statements that hold traced (or jit-wrapped) functions reach libcst, each parsed on its
own: libcst parses ~20x slower than `ast`, and most of a JAX library is never traced.
"""

from __future__ import annotations

import ast
import bisect
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import cast

import libcst as cst
from libcst.metadata import MetadataWrapper

from jaxlint.analysis.ast_walk import walk_ast
from jaxlint.analysis.cst_walk import walk
from jaxlint.analysis.project import ParsedModule
from jaxlint.analysis.project_view import ProjectView
from jaxlint.analysis.scope import FunctionInfo, ModuleIndex, build_index
from jaxlint.analysis.source import mentions_jax, mentions_x64, parse_python, split_lines
from jaxlint.analysis.unit_summary import summarize
from jaxlint.diagnostics import Diagnostic, Fix, Span
from jaxlint.engine import suppression
from jaxlint.engine.config import Config
from jaxlint.engine.registry import ENGINE_CODES, all_rules
from jaxlint.engine.rule import Finding, Rule, UnitContext

_FUNCTION_NODES = ("FunctionDef", "Lambda")


@dataclass(frozen=True)
class LintResult:
    """Diagnostics of one source text, and its rewritten text when fixes were applied."""

    diagnostics: list[Diagnostic]
    fixed_source: str | None = None
    findings: list[Finding] = field(default_factory=list, compare=False, repr=False)
    # the check's index of the text, which a fix of the same text starts from
    index: ModuleIndex | None = field(default=None, compare=False, repr=False)


@dataclass
class AnalyzedSource:
    """A parsed source with its index and the findings of every enabled rule."""

    source: str
    lines: list[str]
    index: ModuleIndex | None
    findings: list[Finding]
    syntax_error: Diagnostic | None = None


def enabled_rules(config: Config, path: str) -> list[type[Rule]]:
    codes = config.enabled_codes(path)
    return [rule for code, rule in all_rules().items() if code in codes]


def analyze(
    source: str,
    path: str,
    config: Config,
    rules: list[type[Rule]],
    project: ProjectView | None = None,
    parsed: ParsedModule | None = None,
) -> AnalyzedSource:
    """Parse, index, and run `rules` over every unit that holds traced code; `parsed` is the
    module as the project index parsed and indexed it, for `project` = `parsed.view`."""
    if parsed is not None:
        index = parsed.index
        tree, lines = index.tree, index.lines
        _project_facts(index, project)
    else:
        lines = split_lines(source)
        try:
            tree = parse_python(source, path)
        except (SyntaxError, ValueError) as error:
            return AnalyzedSource(source, lines, None, [], syntax_error=_syntax_error(error, path))
        index = _index(tree, config, lines, project)
    findings: list[Finding] = []
    if not rules:
        return AnalyzedSource(source, lines, index, findings)
    starts = [_start_line(f) for f in index.functions]
    candidates = host_candidates(tree, rules, index)
    for first, last, _ in index.units(candidates):
        low, high = bisect.bisect_left(starts, first), bisect.bisect_right(starts, last)
        functions = index.functions[low:high]
        codes = frozenset(
            code for line, found in candidates.items() if first <= line <= last for code in found
        )
        summary = summarize(functions, index.imports, codes)
        unit_rules = [rule for rule in rules if rule.may_apply(summary)]
        if not unit_rules:
            continue
        segment, offset = _segment(lines, first, last)
        try:
            module = cst.parse_module(segment)
        except cst.ParserSyntaxError as error:
            message = f"libcst cannot parse this code: {error.message}"
            span = Span(first, 1, first, 1)
            return AnalyzedSource(
                source, lines, index, [], syntax_error=_engine_diagnostic(path, span, message)
            )
        findings += run_rules(module, index, config, path, offset, functions, unit_rules)
    return AnalyzedSource(source, lines, index, findings)


def host_candidates(
    tree: ast.Module, rules: list[type[Rule]], index: ModuleIndex
) -> dict[int, set[str]]:
    """Line → codes of the rules whose host query found a node there (Rule.host_query).

    One walk of the top-level statements whose text holds what some enabled rule looks
    for (HostQuery.text): walking every node of a large module costs more than parsing it."""
    lines = index.lines
    # What a statement's text holds, the module's holds too (the text filters test for
    # presence, and statements start at line starts): a query the whole module rules out is out
    # everywhere.
    module_text, starts, everywhere = index.text, index.line_starts, range(1, len(lines) + 1)
    asking = [
        (rule.code, query)
        for rule in rules
        if (query := rule.host_query) is not None and query.text(module_text, index, everywhere)
    ]
    if not asking:
        return {}
    found: dict[int, set[str]] = {}
    # a class is looked at statement by statement: one large class is most of some modules
    chunks = [
        part
        for statement in tree.body
        for part in (statement.body if isinstance(statement, ast.ClassDef) else [statement])
    ]
    for chunk in chunks:
        first = min([chunk.lineno] + [d.lineno for d in getattr(chunk, "decorator_list", [])])
        last = chunk.end_lineno or chunk.lineno
        text = module_text[starts[first - 1] : starts[last]]
        here = [
            (code, query)
            for code, query in asking
            if query.text(text, index, range(first, last + 1))
        ]
        if not here:
            continue
        types = tuple({t for _, query in here for t in query.node_types})
        for node in walk_ast(chunk):
            if isinstance(node, types):
                for code, query in here:
                    if not isinstance(node, query.node_types):
                        continue
                    answer = query.candidate(node, chunk, index)
                    if answer:
                        # the queries' node types are statements and expressions: each has a line
                        located = cast("ast.stmt | ast.expr", node)
                        line = located.lineno if answer is True else answer
                        found.setdefault(line, set()).add(code)
    return found


def analyze_module(
    source: str,
    path: str,
    config: Config,
    rules: list[type[Rule]],
    project: ProjectView | None = None,
    index: ModuleIndex | None = None,
) -> tuple[AnalyzedSource, cst.Module | None]:
    """Like `analyze`, but over one libcst tree of the whole file, so fixes can edit it.
    `index`: the check's index of this very text (it is not parsed and indexed again)."""
    lines = split_lines(source)
    try:
        tree = index.tree if index is not None else parse_python(source, path)
        module = cst.parse_module(source)
    except (SyntaxError, ValueError) as error:
        return AnalyzedSource(
            source, lines, None, [], syntax_error=_syntax_error(error, path)
        ), None
    except cst.ParserSyntaxError as error:
        span = Span(error.raw_line, error.raw_column + 1, error.raw_line, error.raw_column + 1)
        diagnostic = _engine_diagnostic(path, span, f"libcst cannot parse: {error.message}")
        return AnalyzedSource(source, lines, None, [], syntax_error=diagnostic), None
    if index is None:
        index = _index(tree, config, lines, project)
    findings = run_rules(module, index, config, path, 0, index.functions, rules) if rules else []
    return AnalyzedSource(source, lines, index, findings), module


def _index(
    tree: ast.Module, config: Config, lines: list[str], project: ProjectView | None
) -> ModuleIndex:
    project = project or ProjectView()
    index = build_index(
        tree,
        config.jit_decorators,
        lines,
        package=project.package,
        traced_from_outside=project.traced_from_outside,
    )
    _project_facts(index, project)
    return index


def _project_facts(index: ModuleIndex, project: ProjectView | None) -> None:
    """What the index learns from the project: x64, the project's key consumers, its classes'
    jitted members and the methods it calls in loops through `self`."""
    project = project or ProjectView()
    index.enables_x64 = project.enables_x64 or mentions_x64(index.text)
    index.key_consumers = project.key_consumers
    index.project_packages = project.packages
    index.async_members = project.async_members
    index.looped_methods = project.looped_methods
    if project.observed_params:
        _observed_hints(index, project.observed_params)


def _observed_hints(index: ModuleIndex, observed: Mapping[int, Mapping[str, str]]) -> None:
    """What a run saw a jitted function's parameters hold is evidence of their kind, as a call
    site's argument is (`FunctionInfo.param_hints`): an array every call, or a pytree."""
    for function in index.functions:
        if isinstance(function.node, ast.Lambda):
            continue
        for name, hint in observed.get(function.start_line, {}).items():
            if name in function.params:
                function.param_hints.setdefault(name, set()).add(hint)


KEY_TEXT = re.compile(r"key|rng|seed", re.IGNORECASE)


def run_rules(
    module: cst.Module,
    index: ModuleIndex,
    config: Config,
    path: str,
    line_offset: int,
    functions: list[FunctionInfo],
    rules: Iterable[type[Rule]],
) -> list[Finding]:
    """One batched traversal of `module` by every rule; returns their findings."""
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    context = UnitContext(index, config, path, wrapper, line_offset, functions)
    walk(module, _BatchedTraversal(context, [rule(context) for rule in rules]))
    return context.findings


def should_lint(source: str, config: Config, project: ProjectView | None) -> bool:
    """False for a file that opts out, or that neither mentions JAX nor is traced from outside
    nor may hand keys to the project's key consumers (a sampler subclass calling its base's
    `self.next_key(key)` needs no `import jax`)."""
    if suppression.file_is_skipped(source):
        return False
    if mentions_jax(source, config.jit_decorators):
        return True
    return project is not None and (
        bool(project.traced_from_outside) or _may_call_project_consumers(source, project)
    )


def _may_call_project_consumers(source: str, project: ProjectView) -> bool:
    """Cheap text check: does the module import from its project and name a key? (Not a
    question to `project.key_consumers`: what a check asks of them is what it depends on.)"""
    imports_project = "from ." in source or any(p in source for p in project.packages if p)
    return imports_project and KEY_TEXT.search(source) is not None


def syntax_problems(source: str, path: str, config: Config) -> list[Diagnostic]:
    """A file that is not linted is still parsed (with `ast`, cheap): a JAX000 when it fails,
    unless the file opts out."""
    if suppression.file_is_skipped(source) or "JAX000" not in config.enabled_codes(path):
        return []
    try:
        parse_python(source, path)
    except (SyntaxError, ValueError) as error:
        return [_syntax_error(error, path)]
    return []


def check_source(
    source: str,
    path: str,
    config: Config,
    *,
    project: ProjectView | None = None,
    fixes: Callable[[Finding], Fix | None] | None = None,
    parsed: ParsedModule | None = None,
) -> LintResult:
    """Lint one source text without changing it; `fixes` annotates each finding's diagnostic.
    With `parsed` (the project index's parse of this text), `project` is `parsed.view`."""
    if parsed is not None:
        project = parsed.view
    if not should_lint(source, config, project):
        # the project index parsed it already when `parsed` is given
        return LintResult(syntax_problems(source, path, config) if parsed is None else [])
    analyzed = analyze(source, path, config, enabled_rules(config, path), project, parsed)
    diagnostics = to_diagnostics(analyzed, path, config, fixes=fixes)
    return LintResult(diagnostics, findings=analyzed.findings, index=analyzed.index)


def to_diagnostics(
    analyzed: AnalyzedSource,
    path: str,
    config: Config,
    fixes: Callable[[Finding], Fix | None] | None = None,
) -> list[Diagnostic]:
    """Findings → sorted, unsuppressed Diagnostics (with their fix outcome when given)."""
    if analyzed.syntax_error is not None:
        if "JAX000" in config.enabled_codes(path):
            return [analyzed.syntax_error]
        return []
    diagnostics = []
    for finding in analyzed.findings:
        code = finding.rule.code
        if suppression.is_suppressed(code, finding.span.line, analyzed.lines, finding.header_lines):
            continue
        diagnostics.append(
            Diagnostic(
                code=code,
                severity=finding.level,
                message=finding.message,
                path=path,
                span=finding.span,
                fix=fixes(finding) if fixes is not None else None,
            )
        )
    return sorted(set(diagnostics), key=Diagnostic.sort_key)


class _BatchedTraversal(cst.CSTVisitor):
    """Dispatches each node to every rule that visits its type, keeping function frames."""

    def __init__(self, context: UnitContext, rules: list[Rule]) -> None:
        super().__init__()
        self.context = context
        self.visitors: dict[str, list[Callable[[cst.CSTNode], object]]] = {}
        self.leavers: dict[str, list[Callable[[cst.CSTNode], object]]] = {}
        for rule in rules:
            for node_type in type(rule).visited_node_types():
                for prefix, table in (("visit_", self.visitors), ("leave_", self.leavers)):
                    method = getattr(rule, prefix + node_type, None)
                    if method is not None:
                        table.setdefault(node_type, []).append(method)

    def on_visit(self, node: cst.CSTNode) -> bool:
        name = type(node).__name__
        if name in _FUNCTION_NODES:
            self.context.enter_function(node)  # type: ignore[arg-type]  # a def or lambda, by name
        for method in self.visitors.get(name, ()):
            method(node)
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        name = type(original_node).__name__
        for method in self.leavers.get(name, ()):
            method(original_node)
        if name in _FUNCTION_NODES:
            self.context.leave_function()

    def on_visit_attribute(self, node: cst.CSTNode, attribute: str) -> None:
        return None

    def on_leave_attribute(self, original_node: cst.CSTNode, attribute: str) -> None:
        return None


def _start_line(function: FunctionInfo) -> int:
    return function.start_line


def _segment(lines: list[str], first: int, last: int) -> tuple[str, int]:
    """The source of lines first..last, parseable on its own, and its line offset in the file."""
    text = "".join(lines[first - 1 : last])
    if text[:1] in (" ", "\t"):
        return "if 1:\n" + text, first - 2  # an indented statement parses as the body of `if 1:`
    return text, first - 1


def _syntax_error(error: SyntaxError | ValueError, path: str) -> Diagnostic:
    if isinstance(error, SyntaxError):
        line = error.lineno or 1
        column = error.offset or 1
        message = f"cannot parse: {error.msg}"
    else:
        line, column, message = 1, 1, f"cannot parse: {error}"
    return _engine_diagnostic(path, Span(line, column, line, column), message)


TOO_DEEP = (
    "too deeply nested to analyse: Python's recursion limit was reached (the file was not linted)"
)


def file_problems(path: str, message: str, config: Config) -> list[Diagnostic]:
    """A file jaxlint could not read, decode, parse or analyse: one JAX000 at its start, when
    JAX000 is enabled for it."""
    if "JAX000" not in config.enabled_codes(path):
        return []
    return [_engine_diagnostic(path, Span(1, 1, 1, 1), message)]


def _engine_diagnostic(path: str, span: Span, message: str) -> Diagnostic:
    name, severity, _ = ENGINE_CODES["JAX000"]
    return Diagnostic(code="JAX000", severity=severity, message=message, path=path, span=span)
