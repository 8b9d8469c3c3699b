"""JAX201 print-in-traced: `print` in traced code runs once, at trace time, and shows tracers."""

from __future__ import annotations

from dataclasses import replace

import libcst as cst

from jaxlint.analysis.cst_walk import OwnScopeVisitor, walk
from jaxlint.analysis.jax_api import SHAPE_PROJECTIONS
from jaxlint.analysis.query import Frame
from jaxlint.analysis.unit_summary import UnitSummary
from jaxlint.analysis.values import Kind
from jaxlint.engine import suppression
from jaxlint.engine.edits import Edit, Refusal
from jaxlint.engine.requests import PrintToDebugPrint, ValueQueries
from jaxlint.engine.rule import Finding, Rule, UnitContext
from jaxlint.rules._printed_text import STATIC_ONLY, makes_text

STATIC_METADATA = frozenset({"shape", "dtype", "ndim", "size", "weak_type", "sharding"})
# Attributes of an array that are Python values fixed at trace time.
STATIC_PROJECTIONS = STATIC_METADATA | {"aval", "nbytes", "itemsize"}
NOT_VALUES = (cst.Lambda, cst.FunctionDef, cst.ClassDef)
DISPLAYS = (cst.List, cst.Tuple, cst.Set, cst.Dict)  # judged by what they hold
SHAPE_CALLS = frozenset({*SHAPE_PROJECTIONS, "jax.numpy.ndim", "numpy.ndim", "numpy.size"})


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

    def visit_Call(self, node: cst.Call) -> None:
        context = self.context
        if not context.traced or context.resolve(node.func) != "builtins.print":
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


class PrintedValues:
    """What a print's arguments are made of, as the print rewrites ask (`ValueQueries`): which
    hold tracers, which are text made at trace time. Shared by JAX201 and JAX206."""

    def __init__(self, context: UnitContext) -> None:
        self.context = context
        self._binding_cache: dict[int, tuple[Frame, dict[str, list[cst.BaseExpression]]]] = {}

    def queries(self) -> ValueQueries:
        context = self.context
        return ValueQueries(
            traced=context.holds_traced,
            array=lambda e: context.kind(e) == Kind.ARRAY,
            parameter=lambda e: (
                isinstance(e, cst.Name)
                and context.function is not None
                and e.value in context.function.params
            ),
            mentions_traced=self.mentions_traced,
            builtin=self.builtin,
            text=self.holds_text,
        )

    def builtin(self, func: cst.BaseExpression) -> str | None:
        """`str` when `func` is the builtin `str` (not a local or imported `str`)."""
        qualified = self.context.resolve(func)
        if qualified is not None and qualified.startswith("builtins."):
            return qualified[len("builtins.") :]
        return None

    def mentions_traced(self, expression: cst.BaseExpression) -> bool:
        """May the value, or its text, come from a traced value (`x`, `str(x)`, `msg = f"{x}"`)?

        Static projections of arrays (`x.shape`, `x.dtype`, `len(x)`) do not count. A local name
        counts when any value bound to it does; a container may hold arrays.
        """
        return self._mentions(expression, set())

    def holds_text(self, expression: cst.BaseExpression) -> bool:
        """Might this hold a str made in the function from values (`"%s" % x`, `msg = str(x)`)?"""
        return self._text(expression, set())

    def _mentions(self, expression: cst.CSTNode, seen: set[str]) -> bool:
        context = self.context
        if isinstance(expression, NOT_VALUES):
            return isinstance(expression, cst.Lambda) and self._mentions(expression.body, seen)
        if isinstance(expression, cst.BaseExpression):
            attribute = expression.attr.value if isinstance(expression, cst.Attribute) else ""
            if attribute in STATIC_PROJECTIONS:
                return False  # `.shape` / `.dtype` / `.ndim` of anything (`tc[0].shape`): static
            if context.holds_traced(expression):
                return True
            if isinstance(expression, cst.Name):
                bound = self._bound(expression.value, seen)
                if bound:  # a local list is what was put into it (`shape += [n, m // k]`)
                    return any(self._mentions(v, seen) for v in bound)
            if context.kind(expression) == Kind.CONTAINER and not isinstance(expression, DISPLAYS):
                return True  # a list or tuple that may hold arrays
            if isinstance(expression, cst.Attribute):
                return self._mentions(expression.value, seen)
            if isinstance(expression, cst.Call) and context.resolve(expression.func) in SHAPE_CALLS:
                return False  # `jnp.shape(x)`: static, whatever it is called on
            if (
                isinstance(expression, cst.Call)
                and self.builtin(expression.func) == "len"
                and len(expression.args) == 1
                and context.kind(expression.args[0].value).traced
            ):
                return False
        return any(self._mentions(child, seen) for child in _value_children(expression))

    def _text(self, expression: cst.CSTNode, seen: set[str]) -> bool:
        if isinstance(expression, cst.BaseExpression) and makes_text(expression, self.builtin):
            return True
        if isinstance(expression, cst.Name):
            return any(self._text(v, seen) for v in self._bound(expression.value, seen))
        if isinstance(expression, NOT_VALUES):
            return False
        return any(self._text(child, seen) for child in _value_children(expression))

    def _bound(self, name: str, seen: set[str]) -> list[cst.BaseExpression]:
        """Values bound to `name` in the function that binds it (once per query)."""
        if name in seen:
            return []
        seen.add(name)
        frame = self.context.frame
        while frame is not None:
            bindings = self._bindings(frame)
            if name in bindings or name in frame.info.local_names:
                return bindings.get(name, [])
            frame = frame.parent
        return []  # a module-level name: fixed at trace time

    def _bindings(self, frame: Frame) -> dict[str, list[cst.BaseExpression]]:
        """Name → the values bound to it in the frame's function (nested scopes excluded)."""
        cache = self._binding_cache
        cached = cache.get(id(frame))
        if cached is None or cached[0] is not frame:
            collector = _BindingCollector()
            walk(frame.node.body, collector)
            cached = cache[id(frame)] = (frame, collector.bindings)
        return cached[1]


def _value_children(node: cst.CSTNode) -> list[cst.CSTNode]:
    """Children that are values: not `a.attr`'s `attr`, nor `f(k=v)`'s `k`."""
    if isinstance(node, cst.Attribute):
        return [node.value]
    if isinstance(node, cst.Arg):
        return [node.value]
    return list(node.children)


class _BindingCollector(OwnScopeVisitor):
    def __init__(self) -> None:
        self.bindings: dict[str, list[cst.BaseExpression]] = {}

    def _bind(self, target: cst.CSTNode, value: cst.BaseExpression) -> None:
        if isinstance(target, cst.Name):
            self.bindings.setdefault(target.value, []).append(value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._bind(element.value, value)
        elif isinstance(target, cst.StarredElement):
            self._bind(target.value, value)

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._bind(target.target, node.value)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self._bind(node.target, node.value)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._bind(node.target, node.value)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._bind(node.target, node.value)

    def visit_For(self, node: cst.For) -> None:
        self._bind(node.target, node.iter)

    def visit_WithItem(self, node: cst.WithItem) -> None:
        if node.asname is not None:
            self._bind(node.asname.name, node.item)


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
