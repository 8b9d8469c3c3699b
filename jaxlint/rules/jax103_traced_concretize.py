"""JAX103 traced-concretize: Python (or a shape) needs a concrete number and gets a tracer."""

from __future__ import annotations

import libcst as cst

from jaxlint.analysis.cst_text import code_of
from jaxlint.analysis.jax_api import SHAPED
from jaxlint.analysis.unit_summary import UnitSummary
from jaxlint.analysis.values import Kind
from jaxlint.engine.requests import StaticArgname
from jaxlint.engine.rule import Rule

CONCRETIZATION = "ConcretizationTypeError"
INTEGER_CONVERSION = "TracerIntegerConversionError"
SHAPE_ERROR = "TypeError (shapes must be concrete)"
SLICE_ERROR = "IndexError (slice entries must be static integers)"

CONVERTERS = {
    "builtins.int": CONCRETIZATION,
    "builtins.float": CONCRETIZATION,
    "builtins.complex": CONCRETIZATION,
    "builtins.range": INTEGER_CONVERSION,
    "operator.index": INTEGER_CONVERSION,
}
CONCRETE_METHODS = {"item": CONCRETIZATION, "tolist": CONCRETIZATION}
SHAPED_METHODS = frozenset({"reshape", "broadcast_to"})
AXIS_ERROR = f"{CONCRETIZATION} (or {INTEGER_CONVERSION}, depending on the function)"
FIELD_ADVICE = (
    "a field of a pytree dataclass is a leaf, traced under jax.jit: declare `{field}` static "
    "(`struct.field(pytree_node=False)`, `eqx.field(static=True)`) or keep it an array"
)
STATIC_KEYWORDS = {"axis": AXIS_ERROR, "length": CONCRETIZATION, "num": CONCRETIZATION}
ADVICE = (
    "make the value static (static_argnames, or compute it from shapes), or keep it an array "
    "(x.astype(...), lax.dynamic_slice, jnp.where)"
)


class TracedConcretize(Rule):
    code = "JAX103"
    name = "traced-concretize"
    severity = "error"
    fix_kind = "verified"
    summary = "a traced value where a concrete number is needed: int(), .item(), shapes, slices"

    @classmethod
    def may_apply(cls, unit: UnitSummary) -> bool:
        if not any(f.staged for f in unit.functions):
            return False
        return bool(
            unit.dynamic_subscript
            or unit.called & (CONVERTERS.keys() | SHAPED.keys())
            or any(name.startswith("math.") for name in unit.called)
            or unit.methods_called & (CONCRETE_METHODS.keys() | SHAPED_METHODS)
            or (
                unit.keywords & STATIC_KEYWORDS.keys()
                and any(name.startswith(("jax.numpy.", "jax.lax.")) for name in unit.called)
            )
        )

    def visit_Call(self, node: cst.Call) -> None:
        context = self.context
        if not context.staged:
            return
        qualified = context.resolve(node.func)
        positional = [a.value for a in node.args if a.keyword is None and not a.star]
        if qualified in CONVERTERS or (qualified or "").startswith("math."):
            error = CONVERTERS.get(qualified or "", CONCRETIZATION)
            for value in positional:
                if context.certainly_traced(value):
                    self._report(node, value, f"{code_of(node.func)}()", error)
                    return
            return
        if isinstance(node.func, cst.Attribute) and qualified is None:
            method = node.func.attr.value
            if method in CONCRETE_METHODS and context.certainly_traced(node.func.value):
                self._report(node, node.func.value, f".{method}()", CONCRETE_METHODS[method])
                return
            if method in SHAPED_METHODS and context.certainly_traced(node.func.value):
                for value in positional:
                    culprit = self._traced_shape(value)
                    if culprit is not None:
                        self._report(node, culprit, f"the shape of .{method}()", SHAPE_ERROR)
                        return
        if qualified in SHAPED:
            position, keyword = SHAPED[qualified]
            shape = positional[position] if len(positional) > position else None
            for argument in node.args:
                if argument.keyword is not None and argument.keyword.value == keyword:
                    shape = argument.value
            culprit = self._traced_shape(shape) if shape is not None else None
            if culprit is not None:
                self._report(node, culprit, f"the shape of {code_of(node.func)}()", SHAPE_ERROR)
                return
        if qualified is not None and qualified.startswith(("jax.numpy.", "jax.lax.")):
            for argument in node.args:
                keyword = argument.keyword.value if argument.keyword is not None else ""
                if keyword in STATIC_KEYWORDS and context.certainly_traced(argument.value):
                    self._report(
                        node,
                        argument.value,
                        f"`{keyword}=` of {code_of(node.func)}()",
                        STATIC_KEYWORDS[keyword],
                    )
                    return

    def visit_Subscript(self, node: cst.Subscript) -> None:
        context = self.context
        if not context.staged:
            return
        for element in node.slice:
            index = element.slice
            if isinstance(index, cst.Slice):
                for bound in (index.lower, index.upper, index.step):
                    if bound is not None and context.certainly_traced(bound):
                        self._report(node, bound, "a slice bound", SLICE_ERROR)
                        return
            elif (
                isinstance(index, cst.Index)
                and (
                    context.kind(node.value) == Kind.CONTAINER
                    or context.python_sequence(node.value)
                )
                and not context.kind(node.value).traced
                and context.certainly_traced(index.value)
            ):
                self._report(node, index.value, "an index into a Python list", INTEGER_CONVERSION)
                return

    def _traced_shape(self, shape: cst.BaseExpression) -> cst.BaseExpression | None:
        """The traced part of a shape argument (`n` of `(n, 3)`), or None."""
        parts = (
            [e.value for e in shape.elements]
            if isinstance(shape, (cst.Tuple, cst.List))
            else [shape]
        )
        return next((p for p in parts if self.context.certainly_traced(p)), None)

    def _report(
        self, node: cst.CSTNode, culprit: cst.BaseExpression, where: str, error: str
    ) -> None:
        if self.context.maybe_unstaged_branch(node):
            return
        function = self.context.function
        fix = None
        params = traced_params(culprit, function.params) if function is not None else []
        if len(params) == 1:  # `n`, `n - x.shape[0]`: that parameter made static
            fix = self.context.rewrite(StaticArgname(params[0]))
        advice = ADVICE
        if (
            isinstance(culprit, cst.Attribute)
            and isinstance(culprit.value, cst.Name)
            and function is not None
            and culprit.attr.value in function.leaf_fields.get(culprit.value.value, ())
        ):
            advice = FIELD_ADVICE.format(field=culprit.attr.value)
        self.report(
            node,
            f"{where} needs a concrete value, but `{code_of(culprit)}` is traced in "
            f"{function.describe() if function else 'traced code'}: JAX raises {error}; {advice}",
            fix=fix,
        )


def traced_params(culprit: cst.BaseExpression, params: tuple[str, ...]) -> list[str]:
    """The parameters a traced expression reads other than through an attribute (`n` of
    `n - x.shape[0]`): a static projection is no tracer, and a field (`cfg.n_steps`) is made
    static in its class (`struct.field(pytree_node=False)`), not by making the whole argument
    static, which a pytree holding arrays cannot be (jit hashes static arguments)."""
    found: set[str] = set()
    stack: list[cst.CSTNode] = [culprit]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Attribute):
            continue
        if isinstance(node, cst.Name) and node.value in params:
            found.add(node.value)
        stack.extend(node.children)
    return sorted(found)
