"""JAX502 prng-key-in-loop: a PRNG key that is the same on every iteration of a loop."""

from __future__ import annotations

import ast

import libcst as cst

from jaxlint.analysis.prng import KeyFinding, anchored_calls, findings_by_call
from jaxlint.analysis.scope import ModuleIndex
from jaxlint.analysis.unit_summary import UnitSummary
from jaxlint.engine.edits import Edit, Refusal
from jaxlint.engine.rule import Rule, UnitContext
from jaxlint.rules._prng_edits import key_argument, random_module


class PrngKeyInLoop(Rule):
    code = "JAX502"
    name = "prng-key-in-loop"
    severity = "warning"
    fix_kind = "suggestion"
    summary = "a PRNG key unchanged across loop iterations: every iteration draws the same numbers"
    host_node_types = (ast.Call,)

    @classmethod
    def host_text(cls, text: str, index: ModuleIndex) -> bool:
        return bool(anchored_calls(index, cls.code))

    @classmethod
    def host_candidate(cls, node: ast.AST, statement: ast.stmt, index: ModuleIndex) -> bool:
        return id(node) in anchored_calls(index, cls.code)

    @classmethod
    def may_apply(cls, unit: UnitSummary) -> bool:
        return cls.code in unit.host_candidates

    def __init__(self, context: UnitContext) -> None:
        super().__init__(context)
        self.findings = findings_by_call(context.index, self.code)

    def visit_Call(self, node: cst.Call) -> None:
        if not self.findings:
            return
        finding = self.findings.get(self.context.span(node.func))
        if finding is not None:
            self.report(node, finding.message, fix=self._fix(node, finding))

    def _fix(self, call: cst.Call, finding: KeyFinding) -> Edit | Refusal:
        if finding.key is None:
            return Refusal(
                "make the key once before the loop and fold in the loop index: where the seed "
                "comes from is yours to choose"
            )
        if finding.fold_in_index is None:
            return Refusal(
                "the loop has no integer index that is distinct on every iteration (or an "
                "outer loop repeats it): split the key inside the loop by hand"
            )
        if finding.consumers != 1:
            return Refusal(
                f"the key has {finding.consumers} consumers per iteration: split it inside the "
                "loop by hand"
            )
        key = key_argument(self.context, call, finding.key)
        if not isinstance(key, (cst.Name, cst.Attribute)):
            return Refusal("the key is not a plain argument of this call: fold it by hand")
        random, imports = random_module(self.context, call)
        folded = cst.parse_expression(
            f"{random}.fold_in({cst.Module([]).code_for_node(key)}, {finding.fold_in_index})"
        )
        return Edit(
            replacements={key: folded},
            description=f"fold the loop index `{finding.fold_in_index}` into the key",
            imports=imports,
        )
