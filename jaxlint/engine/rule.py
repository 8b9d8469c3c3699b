"""A rule: its declaration (code, name, severity, fix kind, a libcst visitor), the context it
visits a unit with (the analysis queries plus where findings go), and the findings it reports."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, ClassVar, Protocol

import libcst as cst
from libcst.metadata import MetadataWrapper

from jaxlint.analysis.host_queries import HostQuery
from jaxlint.analysis.project_view import ProjectView
from jaxlint.analysis.query import Query
from jaxlint.analysis.scope import FunctionInfo, ModuleIndex
from jaxlint.diagnostics import FixKind, Severity, Span
from jaxlint.engine.edits import Edit, Refusal
from jaxlint.engine.requests import RewriteRequest

if TYPE_CHECKING:
    from jaxlint.analysis.unit_summary import UnitSummary


class Rule:
    """Subclass with class attributes and `visit_<Node>` methods; the registry finds it.

    A rule sees every node of the traced-code units the engine hands it, in one batched
    traversal shared with all other rules. It asks `self.context` (a UnitContext, whose queries
    are jaxlint.analysis.query's) whether code is traced and what kind of value an expression
    holds, and calls `self.report`.
    """

    code: ClassVar[str]
    name: ClassVar[str]
    severity: ClassVar[Severity]
    summary: ClassVar[str]
    fix_kind: ClassVar[FixKind | None] = None
    opt_in: ClassVar[bool] = False
    # reported only from an observation run (`--observe CMD`, jaxlint.observe): the rule
    # visits no code
    observed_only: ClassVar[bool] = False
    # what the rule looks for outside traced code, for the engine to find
    # (jaxlint.analysis.host_queries); None for rules of traced code only. Traced code alone
    # reaches libcst unless a rule asks for more: the engine walks the module's `ast` once,
    # asks the query about the nodes of its types, and hands the smallest function or
    # top-level statement around every candidate to libcst too; the unit's summary then lists
    # this rule in `host_candidates`.
    host_query: ClassVar[HostQuery | None] = None
    # the findings depend on which functions of other modules consume PRNG keys
    # (ModuleIndex.key_consumers): a check made before the project index knew them all is
    # redone for this rule alone
    reads_key_consumers: ClassVar[bool] = False

    _declared: ClassVar[list[type[Rule]]] = []

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        if "code" in cls.__dict__:
            for attribute in ("name", "severity", "summary"):
                if attribute not in cls.__dict__:
                    raise TypeError(f"rule {cls.__name__} must declare `{attribute}`")
            Rule._declared.append(cls)

    @classmethod
    def declared(cls) -> list[type[Rule]]:
        return list(cls._declared)

    @classmethod
    def may_apply(cls, unit: UnitSummary) -> bool:
        """Cheap prefilter on the unit's `ast` summary: False means this rule cannot fire there.

        Units this rule (and every other enabled rule) rules out never reach libcst, which is
        what keeps jaxlint fast on large libraries. Override it; the default looks everywhere.
        """
        return True

    @classmethod
    def needs_finished_index(cls, text: str, project: ProjectView) -> bool:
        """Does the rule read, in a module of this text, what only the finished project index
        knows (`ProjectView.async_members`, `looped_methods`: `project` is the finished index's
        view of the module)? Then a check made while the index was being built is made again."""
        return False

    @classmethod
    def visited_node_types(cls) -> frozenset[str]:
        """Names of the libcst node types this rule visits (from its visit_/leave_ methods)."""
        names = set()
        for attribute in dir(cls):
            for prefix in ("visit_", "leave_"):
                if attribute.startswith(prefix) and callable(getattr(cls, attribute)):
                    names.add(attribute[len(prefix) :].split("_")[0])
        return frozenset(names)

    def __init__(self, context: UnitContext) -> None:
        self.context = context

    def report(
        self,
        node: cst.CSTNode,
        message: str,
        *,
        end_node: cst.CSTNode | None = None,
        fix: Edit | Refusal | None = None,
        severity: Severity | None = None,
    ) -> None:
        """Record a finding anchored on `node` (through the end of `end_node` when given).

        `severity` overrides the rule's for this finding (a milder case of the same hazard).
        """
        self.context.report(
            self,
            node,
            message,
            end_node=end_node,
            fix=fix,
            severity=severity,
        )


Answer = Callable[[RewriteRequest, "UnitContext"], "Edit | Refusal | None"]


@cache
def rewrite_answers() -> dict[type[RewriteRequest], Answer]:
    """Each request type → the rewrite answering it: `jaxlint.rewrites.ANSWERS`, found by
    name as the rules are (`registry.all_rules`), for the layer sits above the rules."""
    answers: dict[type[RewriteRequest], Answer] = importlib.import_module(
        "jaxlint.rewrites"
    ).ANSWERS
    return answers


class RuleSettings(Protocol):
    """The configuration rules read (jaxlint.engine.config.Config is one)."""

    # read-only: Config is frozen
    @property
    def tiny_max_ops(self) -> int: ...
    @property
    def target(self) -> str: ...


@dataclass
class Finding:
    """A rule's report before it becomes a Diagnostic: keeps the nodes so a fix can edit them."""

    rule: type[Rule]
    node: cst.CSTNode | None  # None when anchored on a span the index found
    span: Span
    message: str
    function: FunctionInfo | None
    fix: Edit | Refusal | None = None
    header_lines: list[int] = field(default_factory=list)
    fix_region: tuple[int, int] | None = None  # lines the fix's edit touches
    severity: Severity | None = None  # this finding's own severity, when not the rule's

    @property
    def level(self) -> Severity:
        """The severity the diagnostic gets."""
        return self.severity or self.rule.severity

    @property
    def fix_kind(self) -> FixKind | None:
        """The safety of this finding's fix: its edit's own, else the rule's."""
        if isinstance(self.fix, Edit) and self.fix.kind is not None:
            return self.fix.kind
        return self.rule.fix_kind


class UnitContext(Query):
    """The queries of one unit's traversal, with the settings and findings of the run."""

    def __init__(
        self,
        index: ModuleIndex,
        config: RuleSettings,
        path: str,
        wrapper: MetadataWrapper,
        line_offset: int,
        functions: list[FunctionInfo],
    ) -> None:
        super().__init__(index, wrapper, line_offset, functions)
        self.config = config
        self.path = path
        self.findings: list[Finding] = []

    def rewrite(self, request: RewriteRequest) -> Edit | Refusal | None:
        """The rewrites layer's answer to `request`: the edit, or why there is none."""
        return rewrite_answers()[type(request)](request, self)

    def report_span(self, rule: Rule, span: Span, message: str) -> None:
        """Record a finding anchored on a span found by the index (e.g. a `jax.jit(f)` call)."""
        self.findings.append(
            Finding(
                rule=type(rule),
                node=None,
                span=span,
                message=message,
                function=self.function,
                header_lines=[span.line],
            )
        )

    def report(
        self,
        rule: Rule,
        node: cst.CSTNode,
        message: str,
        *,
        end_node: cst.CSTNode | None = None,
        fix: Edit | Refusal | None = None,
        severity: Severity | None = None,
    ) -> None:
        region = None
        replacements = getattr(fix, "replacements", None)
        if replacements:
            spans = [self.span(node) for node in replacements]
            region = (min(s.line for s in spans), max(s.end_line for s in spans))
        header_lines = []
        frame = self.frame
        while frame is not None:
            header_lines += frame.info.header_lines
            frame = frame.parent
        self.findings.append(
            Finding(
                rule=type(rule),
                node=node,
                span=self.span(node, end_node),
                message=message,
                function=self.function,
                fix=fix,
                header_lines=header_lines,
                fix_region=region,
                severity=severity,
            )
        )
