"""JAX201 print-in-traced: `print` in traced code runs once, at trace time, and shows tracers."""

from __future__ import annotations

from dataclasses import replace

import libcst as cst

from jaxlint.analysis.cst_walk import walk
from jaxlint.analysis.query import Frame
from jaxlint.analysis.unit_summary import UnitSummary
from jaxlint.engine import suppression
from jaxlint.engine.edits import Edit, Refusal
from jaxlint.engine.requests import PrintToDebugPrint
from jaxlint.engine.rule import Finding, Rule, UnitContext
from jaxlint.rules._printed_text import STATIC_ONLY
from jaxlint.rules._printed_values import STATIC_METADATA, PrintedValues


class PrintInTraced(Rule):
    code = "JAX201"
    name = "print-in-traced"
    severity = "warning"
    fix_kind = "verified"
    summary = "print in traced code runs once at trace time; use jax.debug.print"

    def __init__(self, context: UnitContext) -> None:
        super().__init__(context)
        self._fixed: list[Finding] = []  # findings with a rewrite, to join per function
        self._refused: set[str | None] = set()  # verify targets holding a refused traced print
        self._failing = 0  # open `except` handlers that end by raising: a trace that failed

    @classmethod
    def may_apply(cls, unit: UnitSummary) -> bool:
        return unit.traced and "builtins.print" in unit.called

    def leave_Module(self, original_node: cst.Module) -> None:
        """One edit for every print of a function: verification compares all the function
        prints, so one print rewritten beside another that still prints a tracer never passes
        (and every print rewritten together does). Where one of them is refused, each keeps its
        own edit, as a partial rewrite cannot pass; so does one a noqa silences."""
        lines = self.context.index.lines
        for finding in self._fixed:
            # a print silenced by a noqa keeps its text: the shared edit must not rewrite it
            if suppression.is_suppressed(self.code, finding.span.line, lines, finding.header_lines):
                self._refused.add(_edit(finding).verify_target)
        by_target: dict[str | None, list[Finding]] = {}
        for finding in self._fixed:
            target = _edit(finding).verify_target
            if target not in self._refused:
                by_target.setdefault(target, []).append(finding)
        for target, findings in by_target.items():
            if len(findings) < 2:
                continue
            lead, *others = findings
            edits = [_edit(f) for f in findings]
            replacements = {n: r for e in edits for n, r in e.replacements.items()}
            imports = tuple(dict.fromkeys(i for e in edits for i in e.imports))
            lead.fix = replace(
                edits[0],  # lead's
                replacements=replacements,
                imports=imports,
                description=f"{len(findings)} prints of `{target}` → jax.debug.print (prints "
                "on every call, with values; verified together)",
            )
            lead.fix_region = (
                min(f.fix_region[0] for f in findings if f.fix_region),
                max(f.fix_region[1] for f in findings if f.fix_region),
            )
            for finding in others:
                finding.fix = Refusal(
                    f"one fix rewrites every print of `{target}`: the one on line {lead.span.line}"
                )
                finding.fix_region = None

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        self._failing += _raises_at_end(node.body)

    def leave_ExceptHandler(self, original_node: cst.ExceptHandler) -> None:
        self._failing -= _raises_at_end(original_node.body)

    def visit_Call(self, node: cst.Call) -> None:
        context = self.context
        if not context.traced or context.resolve(node.func) != "builtins.print":
            return
        if self._failing:
            # `except TypeError as e: print(f"kind={kind}:", e); raise`: context for an error
            # that ends the trace (nothing is compiled), printed once, as it should be
            return
        if context.in_concrete_branch(node):
            return  # under `if not isinstance(x, jax.core.Tracer):`: the non-traced path
        printed = PrintedValues(context)
        traced = [a for a in node.args if printed.mentions_traced(a.value)]
        if not traced and any(self.prints_metadata(a.value) for a in node.args):
            return  # `print(x.shape)`: static facts, deliberately printed at trace time
        where = context.function.describe() if context.function else "this function"
        plural = "s" if len(traced) > 1 else ""
        if traced and not context.abstract:
            message = (
                f"print in {where}, traced by autodiff, prints {len(traced)} tracer "
                f"argument{plural} instead of values; use jax.debug.print"
            )
        elif traced:
            message = (
                f"print in traced {where} runs once, at trace time, and prints {len(traced)} "
                f"tracer argument{plural} instead of values; use jax.debug.print"
            )
        else:
            # no tracer is shown: often a deliberate compile marker, so advice, not a warning
            message = (
                f"print of static values only in traced {where} runs once per trace, not once "
                "per call (a compile marker?); use jax.debug.print to print on every call"
            )
        if traced:
            request = PrintToDebugPrint(
                node,
                context.verify_target(),
                printed.queries(),
                ordered=self.runs_with_other_prints(node),
            )
            fix = context.rewrite(request)
        else:
            fix = Refusal(STATIC_ONLY)
        self.report(node, message, fix=fix, severity=None if traced else "info")
        if isinstance(fix, Edit) and fix.verify_target:
            self._fixed.append(context.findings[-1])
        elif traced:
            self._refused.add(context.verify_target())

    def prints_metadata(self, expression: cst.BaseExpression) -> bool:
        """`x.shape`, `x.dtype`…, alone or inside an f-string."""
        if isinstance(expression, cst.FormattedString):
            return any(
                self.prints_metadata(part.expression)
                for part in expression.parts
                if isinstance(part, cst.FormattedStringExpression)
            )
        # whatever it is read from (`map_data = tc[0]` of a traced tuple): metadata is static
        return isinstance(expression, cst.Attribute) and expression.attr.value in STATIC_METADATA

    # -- what the rewrite asks ------------------------------------------------------------------

    def runs_with_other_prints(self, call: cst.Call) -> bool:
        """May the compiled program run other prints beside this one (whose order XLA picks)?

        Yes in a loop (unrolled), beside another print of the outermost traced function, and in
        a helper traced because traced code calls it (perhaps more than once).
        """
        root = self.context.frame
        if root is None:
            return False
        while root.parent is not None:
            root = root.parent
        if root.info.callers:
            return True
        cache: dict[int, tuple[Frame, _PrintCounter]] = self.__dict__.setdefault(
            "_print_counts", {}
        )
        cached = cache.get(id(root))
        if cached is None or cached[0] is not root:
            counter = _PrintCounter()
            walk(root.node, counter)
            cached = cache[id(root)] = (root, counter)
        counter = cached[1]
        return counter.count > 1 or call in counter.in_loops


def _edit(finding: Finding) -> Edit:
    """The edit of a finding of `PrintInTraced._fixed`."""
    assert isinstance(finding.fix, Edit)  # (only findings with an edit are kept there)
    return finding.fix


LOOPS = (cst.For, cst.While, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)


class _PrintCounter(cst.CSTVisitor):
    """Calls spelled `print(...)` or `<...>.debug.print(...)`, and those inside a loop."""

    def __init__(self) -> None:
        self.count = 0
        self.in_loops: set[cst.Call] = set()
        self._depth = 0

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, LOOPS):
            self._depth += 1
        if isinstance(node, cst.Call):
            func = node.func
            named = isinstance(func, cst.Name) and func.value == "print"
            if named or isinstance(func, cst.Attribute) and func.attr.value == "print":
                self.count += 1
                if self._depth:
                    self.in_loops.add(node)
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        if isinstance(original_node, LOOPS):
            self._depth -= 1


def _raises_at_end(body: cst.BaseSuite) -> bool:
    """Does the block end with a `raise` statement?"""
    if not isinstance(body, cst.IndentedBlock) or not body.body:
        return False
    last = body.body[-1]
    return isinstance(last, cst.SimpleStatementLine) and isinstance(last.body[-1], cst.Raise)
