"""JAX301 jit-on-method: `jax.jit` on a method whose `self`/`cls` is not static."""

from __future__ import annotations

import libcst as cst

from jaxlint.analysis.jax_api import FILTERING_JITS, REFERENCE_SEMANTICS_APIS
from jaxlint.analysis.scope import may_be_pytree, pytree_mixin
from jaxlint.analysis.unit_summary import UnitSummary
from jaxlint.engine.requests import MethodToHelper
from jaxlint.engine.rule import Rule


class JitOnMethod(Rule):
    code = "JAX301"
    name = "jit-on-method"
    severity = "error"
    fix_kind = "verified"
    summary = "jit on a method: `self` is not a JAX type and the call fails with TypeError"

    @classmethod
    def may_apply(cls, unit: UnitSummary) -> bool:
        return any(f.class_info is not None for f in unit.jitted)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        info = self.context.function
        if info is None or info.class_info is None or not info.is_method:
            return
        if may_be_pytree(info.class_info):
            return  # a pytree, or registered where jaxlint cannot see: no TypeError to claim
        if pytree_mixin(info.class_info, list(self.context.index.classes.values())):
            return  # a base only pytree classes derive from: `self` is one of them
        receiver = info.positional[0]
        for root in info.roots:
            if root.via != "decorator" or root.api in FILTERING_JITS | REFERENCE_SEMANTICS_APIS:
                continue
            if root.static_params is None or receiver in root.static_params:
                continue  # static self is JAX306's business
            position = info.decorator_position(root)
            class_name = info.class_info.node.name
            kind = "class" if info.is_classmethod else "instance"
            self.report(
                node.decorators[position],
                f"`@{root.api}` on method `{class_name}.{info.name}`: `{receiver}` (a "
                f"`{class_name}` {kind}) is not a JAX type, so every call raises TypeError; "
                "jit a module-level helper that takes the attributes the method reads, or "
                "register the class as a pytree",
                fix=self.context.rewrite(MethodToHelper(node, root)),
            )
