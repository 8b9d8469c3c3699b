"""JAX104 numpy-on-traced: a NumPy function given a tracer (TracerArrayConversionError)."""

from __future__ import annotations

import libcst as cst

from jaxlint.analysis.cst_text import code_of
from jaxlint.analysis.jax_api import NUMPY_ON_TRACERS, NUMPY_WITH_JNP_TWIN
from jaxlint.analysis.unit_summary import UnitSummary
from jaxlint.engine.edits import Edit, Refusal
from jaxlint.engine.rule import Rule
from jaxlint.rules._codegen import jnp_function_edit

ERROR = "TracerArrayConversionError"


class NumpyOnTraced(Rule):
    code = "JAX104"
    name = "numpy-on-traced"
    severity = "error"
    fix_kind = "safe"
    summary = "a NumPy function applied to a traced value: TracerArrayConversionError"

    @classmethod
    def may_apply(cls, unit: UnitSummary) -> bool:
        return any(f.staged for f in unit.functions) and any(
            name.startswith("numpy.") for name in unit.called
        )

    def visit_Call(self, node: cst.Call) -> None:
        context = self.context
        if not context.staged:
            return
        qualified = context.resolve(node.func) or ""
        if not qualified.startswith("numpy.") or qualified in NUMPY_ON_TRACERS:
            return
        traced = next((a.value for a in node.args if self._holds_tracer(a.value)), None)
        if traced is None or context.maybe_unstaged_branch(node):
            return
        function = context.function
        self.report(
            node,
            f"NumPy's `{qualified.removeprefix('numpy.')}` on `{code_of(traced)}`, a traced "
            f"value in {function.describe() if function else 'traced code'}: NumPy converts "
            f"its argument to a NumPy array, and JAX raises {ERROR}; use the jax.numpy function",
            fix=self._fix(node, qualified),
        )

    def _holds_tracer(self, value: cst.BaseExpression) -> bool:
        if isinstance(value, (cst.List, cst.Tuple)):  # np.stack([a, b])
            return any(self.context.certainly_traced(e.value) for e in value.elements)
        return self.context.certainly_traced(value)

    def _fix(self, node: cst.Call, qualified: str) -> Edit | Refusal:
        name = qualified.removeprefix("numpy.")
        if name not in NUMPY_WITH_JNP_TWIN:
            return Refusal(f"jax.numpy has no `{name}` with NumPy's meaning")
        if not self.context.only_staged:
            return Refusal(
                "the function may also run eagerly, where NumPy's result (float64, a NumPy "
                "array) differs from jax.numpy's"
            )
        # the one difference from the eager NumPy call, named (issue: "safe means safe")
        description = (
            f"np.{name} → jnp.{name} (without x64, 32-bit results where NumPy's eager call "
            "gives float64/int64)"
        )
        return jnp_function_edit(self.context, node.func, name, description)
