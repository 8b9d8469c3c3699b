"""What JAX501 and JAX502 share: reporting the key analysis's findings on the calls libcst
visits, finding a key argument, and spelling `jax.random` in their fixes."""

from __future__ import annotations

from typing import ClassVar

import libcst as cst

from jaxlint.analysis.prng import KeyFinding, findings_by_call, key_span
from jaxlint.analysis.unit_summary import UnitSummary
from jaxlint.diagnostics import Span
from jaxlint.engine.edits import Edit, ImportSpec, Refusal
from jaxlint.engine.rule import Rule, UnitContext


class KeyFindingRule(Rule):
    """A rule reporting the findings `jaxlint.analysis.prng` made for its code, wherever they
    are (host code included): only their units reach libcst (a subclass declares
    `host_query = prng_anchor_calls(code)`)."""

    code: ClassVar[str]
    reads_key_consumers = True

    @classmethod
    def may_apply(cls, unit: UnitSummary) -> bool:
        return cls.code in unit.host_candidates

    def __init__(self, context: UnitContext) -> None:
        super().__init__(context)
        self.findings = findings_by_call(context.index, self.code)

    def visit_Call(self, node: cst.Call) -> None:
        if not self.findings:
            return
        span = self.context.span(node.func)
        self.seen_call(node, span)
        finding = self.findings.get(span)
        if finding is not None:
            self.report(node, finding.message, fix=self.fix(node, finding))

    def seen_call(self, node: cst.Call, span: Span) -> None:
        """Every call of a unit with findings, in order (JAX501 notes its first consumers)."""

    def fix(self, call: cst.Call, finding: KeyFinding) -> Edit | Refusal:
        raise NotImplementedError


def key_argument(
    context: UnitContext, call: cst.Call, finding: KeyFinding, *, first: bool = False
) -> cst.BaseExpression | None:
    """The libcst node of the argument of `call` the key analysis found the finding's key at
    (`first`: the key of its earlier consumer, which `call` then is)."""
    span = key_span(context.index, finding, first=first)
    for argument in call.args:
        found = context.span(argument.value)
        if (found.line, found.column) == (span.line, span.column):
            return argument.value
    return None


def random_module(context: UnitContext, call: cst.Call) -> tuple[str, tuple[ImportSpec, ...]]:
    """`jr` where the consumer is `jr.normal(...)`; else `jax.random` (importing jax)."""
    func = call.func
    if isinstance(func, cst.Attribute) and (context.resolve(func) or "").startswith("jax.random."):
        return cst.Module([]).code_for_node(func.value), ()
    return "jax.random", (ImportSpec("jax"),)
