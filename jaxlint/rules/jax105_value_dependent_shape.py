"""JAX105 value-dependent-shape: an array whose size would depend on traced values."""

from __future__ import annotations

import libcst as cst

from jaxlint.analysis.cst_text import code_of
from jaxlint.analysis.jax_api import BOOLEAN_RESULTS, SIZED_BY_VALUES
from jaxlint.analysis.unit_summary import UnitSummary
from jaxlint.engine.edits import Edit, Refusal
from jaxlint.engine.requests import MaskedReduction
from jaxlint.engine.rule import Rule, UnitContext

MASK_ERROR = "NonConcreteBooleanIndexError"
SIZE_ERROR = "ConcretizationTypeError"
BOOLEAN_OPERATORS = (cst.BitAnd, cst.BitOr, cst.BitXor)
ORDER_COMPARISONS = (
    cst.LessThan,
    cst.LessThanEqual,
    cst.GreaterThan,
    cst.GreaterThanEqual,
    cst.Equal,
    cst.NotEqual,
)

WHERE_REDUCTIONS = frozenset({"sum", "mean", "prod", "any", "all", "std", "var"})
EXTREMA = frozenset({"max", "min", "amax", "amin"})


class ValueDependentShape(Rule):
    code = "JAX105"
    name = "value-dependent-shape"
    severity = "error"
    fix_kind = "verified"
    summary = "boolean-mask indexing or nonzero/unique without size= in traced code"

    def __init__(self, context: UnitContext) -> None:
        super().__init__(context)
        # a reduction of a masked selection (`x[m].sum()`), by the id of its subscript
        self._reduced: dict[int, cst.Call] = {}

    @classmethod
    def may_apply(cls, unit: UnitSummary) -> bool:
        return any(f.staged for f in unit.functions) and bool(
            unit.mask_subscript or unit.called & SIZED_BY_VALUES.keys()
        )

    def visit_Subscript(self, node: cst.Subscript) -> None:
        context = self.context
        if not context.staged or len(node.slice) != 1:
            return
        index = node.slice[0].slice
        if not isinstance(index, cst.Index) or not self._traced_mask(index.value):
            return
        if not (context.certainly_traced(node.value) or _at_of(node.value)):
            return
        where = "`.at[mask]`" if _at_of(node.value) else "boolean-mask indexing"
        reduction = self._reduced.get(id(node))
        self._report(
            node,
            f"{where} with `{code_of(index.value)}`, a traced boolean mask: the result's size "
            f"would depend on the values, and JAX raises {MASK_ERROR}; use "
            "jnp.where(mask, x, fill) (and reduce over it) instead",
            fix=self.context.rewrite(MaskedReduction(reduction, node)) if reduction else None,
        )

    def visit_Call(self, node: cst.Call) -> None:
        context = self.context
        if not context.staged:
            return
        selection = reduced_selection(node, context)
        if selection is not None:  # reported, with the fix, when its subscript is visited
            self._reduced[id(selection)] = node
        qualified = context.resolve(node.func) or ""
        if qualified not in SIZED_BY_VALUES:
            return
        keywords = {a.keyword.value for a in node.args if a.keyword is not None}
        size_keyword = SIZED_BY_VALUES[qualified]
        positional = [a.value for a in node.args if a.keyword is None]
        if size_keyword in keywords or not positional:
            return
        if qualified == "jax.numpy.where" and len(positional) != 1:
            return  # the three-argument where keeps the shape
        if qualified == "jax.numpy.repeat" and not (
            len(positional) > 1 and context.certainly_traced(positional[1])
        ):
            return  # static repeats give a static size
        if not context.certainly_traced(positional[0]):
            return
        name = qualified.removeprefix("jax.numpy.")
        self._report(
            node,
            f"jnp.{name} of `{code_of(positional[0])}` without `{size_keyword}=`: the result's "
            f"size would depend on the values, and JAX raises {SIZE_ERROR}; pass "
            f"`{size_keyword}=` (a static upper bound) and a fill value",
        )

    def _traced_mask(self, index: cst.BaseExpression) -> bool:
        """A traced boolean array: a comparison, `~`/`&`/`|` of one, or a boolean jnp result."""
        context = self.context
        if not context.certainly_traced(index):
            return False
        if isinstance(index, cst.Comparison):
            return all(isinstance(c.operator, ORDER_COMPARISONS) for c in index.comparisons)
        if isinstance(index, cst.UnaryOperation) and isinstance(index.operator, cst.BitInvert):
            return self._traced_mask(index.expression)
        if isinstance(index, cst.BinaryOperation) and isinstance(index.operator, BOOLEAN_OPERATORS):
            return self._traced_mask(index.left) or self._traced_mask(index.right)
        if isinstance(index, cst.Call):
            return (context.resolve(index.func) or "") in BOOLEAN_RESULTS
        if isinstance(index, cst.Name):
            reaching = context.reaching_values(index)
            return bool(reaching) and all(
                kind == "assign"
                and isinstance(value, cst.BaseExpression)
                and self._traced_mask(value)
                for kind, value in reaching
            )
        return False

    def _report(self, node: cst.CSTNode, message: str, fix: Edit | Refusal | None = None) -> None:
        if not self.context.maybe_unstaged_branch(node):
            self.report(node, message, fix=fix)


def _at_of(value: cst.BaseExpression) -> bool:
    """`x.at` (the base of `x.at[mask].set(...)`)."""
    return isinstance(value, cst.Attribute) and value.attr.value == "at"


def reduced_selection(call: cst.Call, context: UnitContext) -> cst.Subscript | None:
    """The subscript `x[m]` that `call` reduces as a whole: `x[m].sum()` or `jnp.sum(x[m])`."""
    name, selection = reduction_of(call, context)
    return selection if name in WHERE_REDUCTIONS | EXTREMA else None


def reduction_of(call: cst.Call, context: UnitContext) -> tuple[str | None, cst.Subscript | None]:
    """(`sum`, `x[m]`) for `x[m].sum()` and `jnp.sum(x[m])` with no other argument."""
    if call.args and not (
        len(call.args) == 1 and call.args[0].keyword is None and not call.args[0].star
    ):
        return None, None
    func = call.func
    if isinstance(func, cst.Attribute) and not call.args:
        if isinstance(func.value, cst.Subscript) and context.resolve(func) is None:
            return func.attr.value, func.value
        return None, None
    qualified = context.resolve(func) or ""
    if qualified.startswith("jax.numpy.") and call.args:
        argument = call.args[0].value
        if isinstance(argument, cst.Subscript):
            return qualified.removeprefix("jax.numpy."), argument
    return None, None
