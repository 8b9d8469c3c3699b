"""JAX102 traced-bool: Python needs True or False from a value that is a tracer."""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from jaxlint.analysis.cst_text import code_of
from jaxlint.analysis.cst_walk import subtree
from jaxlint.analysis.unit_summary import UnitSummary
from jaxlint.analysis.values import Kind
from jaxlint.engine.edits import Edit, ImportSpec, Refusal
from jaxlint.engine.requests import IfToWhere, TernaryToWhere, WhileToWhileLoop
from jaxlint.engine.rule import Rule, UnitContext
from jaxlint.rules._codegen import JaxSpelling

ERROR = "TracerBoolConversionError"
TRUTH_BUILTINS = frozenset(
    {
        "builtins.bool",
        "builtins.min",
        "builtins.max",
        "builtins.any",
        "builtins.all",
        "builtins.sorted",
    }
)
EXTREMA = {"builtins.max": "maximum", "builtins.min": "minimum"}
ADVICE = {
    "if": "use jnp.where(cond, a, b) for values or lax.cond for computations",
    "elif": "use jnp.where / jnp.select for values or lax.cond / lax.switch for computations",
    "while": "use lax.while_loop(cond_fun, body_fun, init) with the loop state as its carry",
    "assert": "check it outside the jit, or use checkify / jax.debug.callback",
    "conditional expression": "use jnp.where(cond, a, b)",
    "comprehension if": "select with jnp.where, or mask with a static condition",
    "and": "use jnp.logical_and (or `&`) on boolean arrays",
    "or": "use jnp.logical_or (or `|`) on boolean arrays",
    "not": "use jnp.logical_not (or `~`) on boolean arrays",
    "builtins.max": "use jnp.maximum(a, b) (or jnp.max over an array)",
    "builtins.min": "use jnp.minimum(a, b) (or jnp.min over an array)",
    "builtins.any": "use jnp.any",
    "builtins.all": "use jnp.all",
    "builtins.sorted": "use jnp.sort",
    "builtins.bool": "keep it an array (`x != 0`) or make the argument static",
}


class TracedBool(Rule):
    code = "JAX102"
    name = "traced-bool"
    severity = "error"
    fix_kind = "safe"
    summary = "Python branch or bool on a traced value: TracerBoolConversionError under jit"

    def __init__(self, context: UnitContext) -> None:
        super().__init__(context)
        self._covered: set[int] = set()  # bool operations inside a test already reported
        self._after_raise: set[int] = set()  # `elif`s after a reported test: tracing stops there

    @classmethod
    def may_apply(cls, unit: UnitSummary) -> bool:
        return any(f.staged or f.batched_params for f in unit.functions) and bool(
            unit.truth_tests or unit.called & TRUTH_BUILTINS
        )

    @property
    def _traced_here(self) -> bool:
        """Staged code, or a vmapped function (a branch on a batch tracer raises too)."""
        return self.context.staged or self.context.batched

    def visit_If(self, node: cst.If) -> None:
        if id(node) in self._after_raise:
            reported = True  # an `elif` after a test that raises while tracing: never reached
        else:
            reported = self._test(node.test, "if", lambda: self.context.rewrite(IfToWhere(node)))
        if reported and isinstance(node.orelse, cst.If):
            self._after_raise.add(id(node.orelse))

    def visit_While(self, node: cst.While) -> None:
        self._test(node.test, "while", lambda: self.context.rewrite(WhileToWhileLoop(node)))

    def visit_Assert(self, node: cst.Assert) -> None:
        self._test(node.test, "assert")

    def visit_CompIf(self, node: cst.CompIf) -> None:
        self._test(node.test, "comprehension if")

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self._test(
            node.test, "conditional expression", lambda: self.context.rewrite(TernaryToWhere(node))
        )

    def visit_BooleanOperation(self, node: cst.BooleanOperation) -> None:
        if id(node) in self._covered or not self._traced_here:
            return
        # `a and b` as a value converts `a` only; `b` is returned as it is
        if self._tracer(node.left, truth=True):
            keyword = "and" if isinstance(node.operator, cst.And) else "or"
            self._report(node, node.left, keyword)

    def visit_UnaryOperation(self, node: cst.UnaryOperation) -> None:
        if id(node) in self._covered or not isinstance(node.operator, cst.Not):
            return
        if self._traced_here and self._tracer(node.expression, truth=True):
            self._report(node, node.expression, "not")

    def visit_Call(self, node: cst.Call) -> None:
        if not self._traced_here:
            return
        builtin = self.context.resolve(node.func)
        if builtin not in TRUTH_BUILTINS or not node.args:
            return
        values = [a.value for a in node.args if a.keyword is None]
        if builtin in ("builtins.min", "builtins.max") and len(values) >= 2:
            traced = [v for v in values if self.context.certainly_traced(v)]
        else:  # one argument: its truth value, or its elements compared or tested
            traced = values[:1] if values and self.context.certainly_traced(values[0]) else []
        if traced:
            self._report(node, traced[0], builtin, fix=self._extremum_fix(node, builtin))

    def _extremum_fix(self, node: cst.Call, builtin: str) -> Edit | Refusal | None:
        """`max(a, b)` → `jnp.where(b > a, b, a)`, `min(a, b)` → `jnp.where(b < a, b, a)`.

        Python's `max(a, b)` is `b` if `b > a` else `a`: `a` on ties and whenever a NaN makes
        the comparison false. `jnp.maximum` returns NaN for a NaN on either side, so it is not
        what the code computes; the `where` form is, except that operands of two dtypes come
        back in their common one (one traced value has one dtype)."""
        if builtin not in EXTREMA:
            return None
        if len(node.args) != 2 or any(a.keyword is not None or a.star for a in node.args):
            return Refusal("only two-argument max/min are rewritten")
        if not self.context.only_staged:
            return Refusal(
                "the function may also run eagerly, where max/min return one of their "
                "arguments (a Python number) and jnp.where an array"
            )
        first, second = (a.value for a in node.args)
        if not (_repeatable(first) and _repeatable(second)):
            return Refusal(
                "an operand calls a function, and the exact form `jnp.where(b > a, b, a)` "
                "would call it twice: bind it to a name first"
            )
        source = cst.Module(body=[]).code_for_node  # the whole text (code_of shortens)
        a, b = source(first), source(second)
        numpy = JaxSpelling.of(self.context).numpy
        comparison = ">" if builtin == "builtins.max" else "<"
        short = builtin.removeprefix("builtins.")
        # Python returns the winning operand as it is, so its shape and dtype depend on which
        # wins (`max(x, 0.0)` of an int32 `x` is int32 or a float; of a 3-element `x` it
        # raises); one traced value has one shape and dtype, and `where` broadcasts and
        # promotes. Only the caller knows the operands are alike: a suggestion.
        return Edit(
            replacements={
                node: cst.parse_expression(f"{numpy}.where({b} {comparison} {a}, {b}, {a})")
            },
            description=(
                f"{short}(a, b) → jnp.where(b {comparison} a, b, a): Python's {short}, which "
                "keeps `a` on ties and NaN, for operands of one shape and dtype (others come "
                "back broadcast and promoted, not as the winner is)"
            ),
            imports=(ImportSpec("jax"),) if numpy == "jax.numpy" else (),
            kind="suggestion",
        )

    def _test(
        self,
        test: cst.BaseExpression,
        keyword: str,
        fix: Callable[[], Edit | Refusal | None] | None = None,
    ) -> bool:
        """Report the test if Python asks a tracer for its truth there; was it reported?"""
        if not self._traced_here:
            return False
        culprit = self._culprit(test)
        if culprit is None:
            return False
        self._cover(test)
        return self._report(test, culprit, keyword, fix=fix() if fix is not None else None)

    def _culprit(self, test: cst.BaseExpression) -> cst.BaseExpression | None:
        """The part of a test whose truth value Python asks for and that is a tracer."""
        if isinstance(test, cst.BooleanOperation):
            return self._culprit(test.left) or self._culprit(test.right)
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            return self._culprit(test.expression)
        return test if self._tracer(test, truth=True) else None

    def _tracer(self, value: cst.BaseExpression, truth: bool) -> bool:
        context = self.context
        if truth and isinstance(value, cst.UnaryOperation) and isinstance(value.operator, cst.Not):
            return self._tracer(value.expression, truth=True)  # `not xs or …`: the truth of xs
        if not context.certainly_traced(value):
            return False
        if truth and isinstance(value, (cst.Name, cst.Attribute)):
            # a bare parameter may be a tuple or dict of arrays, whose truth is its length
            return context.kind(value) == Kind.ARRAY and not context.unproven_array(value)
        return True

    def _cover(self, test: cst.BaseExpression) -> None:
        for node in subtree(test):
            self._covered.add(id(node))

    def _report(
        self,
        node: cst.CSTNode,
        culprit: cst.BaseExpression,
        where: str,
        fix: Edit | Refusal | None = None,
    ) -> bool:
        if self.context.maybe_unstaged_branch(node):
            return False
        described = where.removeprefix("builtins.")
        described = f"`{described}()`" if where.startswith("builtins.") else f"`{described}`"
        if where == "conditional expression":
            described = "a conditional expression"
        elif where == "comprehension if":
            described = "a comprehension's `if`"
        function = self.context.function
        self.report(
            node,
            f"{described} on `{code_of(culprit)}`, a traced value in "
            f"{function.describe() if function else 'traced code'}: Python needs True or False "
            f"while JAX traces, and raises {ERROR}; {ADVICE[where]}",
            fix=fix,
        )
        return True


def _repeatable(operand: cst.BaseExpression) -> bool:
    """Can the operand be written twice and mean the same: names, attributes, constants,
    subscripts and operators, no call (which may draw, print or count) and no `:=`."""
    return not any(isinstance(node, _NOT_REPEATABLE) for node in subtree(operand))


_NOT_REPEATABLE = (cst.Call, cst.NamedExpr, cst.Await, cst.Yield, cst.Lambda)
