"""JAX303 tiny-jit: `jax.jit` on a one-expression elementwise function (opt-in)."""

from __future__ import annotations

import libcst as cst

from jaxlint.analysis.jax_api import ELEMENTWISE, JIT_APIS
from jaxlint.analysis.unit_summary import UnitSummary
from jaxlint.diagnostics import Span
from jaxlint.engine.rule import Rule
from jaxlint.rules._codegen import is_docstring

ARITHMETIC = (
    cst.Add,
    cst.Subtract,
    cst.Multiply,
    cst.Divide,
    cst.FloorDivide,
    cst.Modulo,
    cst.Power,
    cst.BitAnd,
    cst.BitOr,
    cst.BitXor,
    cst.LeftShift,
    cst.RightShift,
)


class TinyJit(Rule):
    code = "JAX303"
    name = "tiny-jit"
    severity = "info"
    fix_kind = "suggestion"
    opt_in = True
    summary = "jit on a tiny elementwise function: compile cost with nothing to fuse"

    @classmethod
    def may_apply(cls, unit: UnitSummary) -> bool:
        return bool(unit.jitted)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        body = node.body.body
        if isinstance(node.body, cst.IndentedBlock):
            statements = [s for s in body if not is_docstring(s)]
        else:
            statements = list(body)
        if len(statements) != 1:
            return
        statement = statements[0]
        if isinstance(statement, cst.SimpleStatementLine):
            if len(statement.body) != 1:
                return
            statement = statement.body[0]
        if isinstance(statement, cst.Return) and statement.value is not None:
            self._check(statement.value)

    def visit_Lambda(self, node: cst.Lambda) -> None:
        self._check(node.body)

    def _check(self, expression: cst.BaseExpression) -> None:
        info = self.context.function
        if info is None or any(r.by_call for r in info.reasons):
            return  # jitted code called from other traced code is inlined: no extra compile
        module_level = info.parent is None and info.class_info is None
        if not module_level and not self.context.index.called_on_host(info):
            # a closure handed to other code (a callback, a solver's building block) or a
            # method: who calls it, eagerly or inside their own jit, is not in sight
            return
        roots = [r for r in info.roots if r.api in JIT_APIS]
        if not roots:
            return
        if self._pair_of_parameters(expression):
            return  # `a + b` alone: of two pytrees it is a user `__add__`, not one operation
        operations = self.count_operations(expression)
        limit = self.context.config.tiny_max_ops
        if not operations or operations > limit:
            return  # 0: the identity, a jit or pmap whose job is placement (`out_shardings`)
        for root in roots:
            span = self.context.index.span_of(root.node)
            if root.via == "decorator":  # anchor on the whole decorator, `@` included
                span = Span(span.line, span.column - 1, span.end_line, span.end_column)
            self.context.report_span(
                self,
                span,
                f"`{root.api}` on {info.describe()}, a single elementwise expression of "
                f"{operations} operation{'s' if operations != 1 else ''} (limit {limit}): each "
                "new input shape costs ~50 ms of compile for a kernel XLA cannot fuse with "
                "anything; jit the caller that does the real work instead",
            )

    def count_operations(self, expression: cst.BaseExpression) -> int | None:
        """Elementwise operations in an expression, or None when it is not purely elementwise."""
        if isinstance(
            expression, (cst.Name, cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString)
        ):
            return 0
        if isinstance(expression, cst.Attribute):
            return 0 if self.context.resolve(expression) is not None else None
        if isinstance(expression, cst.BinaryOperation):
            if not isinstance(expression.operator, ARITHMETIC):
                return None  # `@` is a contraction, not elementwise
            return _add(
                1, self.count_operations(expression.left), self.count_operations(expression.right)
            )
        if isinstance(expression, cst.UnaryOperation):
            if isinstance(expression.operator, cst.Not):
                return None
            return _add(1, self.count_operations(expression.expression))
        if isinstance(expression, cst.Comparison):
            parts = [self.count_operations(expression.left)]
            parts += [self.count_operations(c.comparator) for c in expression.comparisons]
            return _add(len(expression.comparisons), *parts)
        if isinstance(expression, cst.Call):
            if self.context.resolve(expression.func) not in ELEMENTWISE:
                return None
            if any(a.keyword is not None or a.star for a in expression.args):
                return None
            return _add(1, *(self.count_operations(a.value) for a in expression.args))
        return None

    def _pair_of_parameters(self, expression: cst.BaseExpression) -> bool:
        info = self.context.function
        return (
            isinstance(expression, cst.BinaryOperation)
            and info is not None
            and all(
                isinstance(side, cst.Name)
                and side.value in info.params
                and side.value not in info.static_params  # a static one is a Python number
                for side in (expression.left, expression.right)
            )
        )


def _add(*parts: int | None) -> int | None:
    known = [p for p in parts if p is not None]
    return None if len(known) != len(parts) else sum(known)
