"""JAX305 loop-instead-of-vmap: host code that calls JAX once per row and stacks the results."""

from __future__ import annotations

import ast

import libcst as cst

from jaxlint.analysis.cst_text import code_of
from jaxlint.analysis.jax_api import JIT_APIS
from jaxlint.analysis.names import dotted_ast
from jaxlint.analysis.scope import ModuleIndex
from jaxlint.analysis.unit_summary import UnitSummary
from jaxlint.analysis.values import Kind
from jaxlint.engine.edits import Edit, ImportSpec, Refusal
from jaxlint.engine.rule import Rule
from jaxlint.rules._codegen import JaxSpelling
from jaxlint.rules.jax101_map_rewrite import STACKERS, stacked_comprehension

STACKER_NAMES = frozenset(q.rsplit(".", 1)[1] for q in STACKERS)
WORK_PREFIXES = ("jax.numpy.", "jax.lax.", "jax.nn.", "jax.scipy.", "jax.random.")


class LoopInsteadOfVmap(Rule):
    code = "JAX305"
    name = "loop-instead-of-vmap"
    severity = "info"
    fix_kind = "verified"
    summary = "host code calls JAX once per row and stacks: jax.vmap does it in one call"
    host_node_types = (ast.Call,)

    @classmethod
    def host_text(cls, text: str, index: ModuleIndex, lines: range) -> bool:
        return " for " in text and any(f"{name}([" in text for name in STACKER_NAMES)

    @classmethod
    def host_candidate(cls, node: ast.AST, statement: ast.stmt, index: ModuleIndex) -> bool:
        func = node.func  # type: ignore[attr-defined]
        args = node.args  # type: ignore[attr-defined]
        return (
            len(args) == 1
            and isinstance(args[0], ast.ListComp)
            and index.imports.resolve(dotted_ast(func)) in STACKERS
        )

    @classmethod
    def may_apply(cls, unit: UnitSummary) -> bool:
        return cls.code in unit.host_candidates

    def visit_Call(self, node: cst.Call) -> None:
        context = self.context
        if context.traced or context.function is None:
            return  # traced code: a comprehension over an array is JAX101's
        comprehension = stacked_comprehension(node, context)
        if comprehension is None:
            return
        loop = comprehension.for_in
        rows = loop.iter
        if not isinstance(rows, cst.Name) or context.kind_at(rows, rows) != Kind.ARRAY:
            return
        if context.unproven_array(rows):
            return
        callee = self._jax_call(comprehension.elt)
        if callee is None:
            return
        self.report(
            node,
            f"this calls `{callee}` once per row of `{rows.value}` from Python — one dispatch "
            f"(or one trace) per row — and stacks the rows; `jax.vmap` computes them in one "
            f"call: `jax.vmap(lambda {code_of(loop.target)}: {code_of(comprehension.elt)})"
            f"({rows.value})`",
            fix=self._fix(node, comprehension),
        )

    def _jax_call(self, elt: cst.BaseExpression) -> str | None:
        """The JAX work the element expression calls (a jitted function, a `jnp` op), if any."""
        index = self.context.index
        stack: list[cst.CSTNode] = [elt]
        while stack:
            current = stack.pop()
            if isinstance(current, cst.Call):
                qualified = self.context.resolve(current.func) or ""
                if qualified.startswith(WORK_PREFIXES):
                    return code_of(current.func)
                func = current.func
                if isinstance(func, cst.Attribute) and self.context.kind(func.value) == Kind.ARRAY:
                    return code_of(func)  # `r.mean()` of a row
                if isinstance(current.func, cst.Name):
                    name = current.func.value
                    info = index.module_defs.get(name)
                    jitted = info is not None and any(r.api in JIT_APIS for r in info.roots)
                    if jitted or name in index.aliases:
                        return name
            if not isinstance(current, (cst.Lambda, cst.FunctionDef)):
                stack.extend(current.children)
        return None

    def _fix(self, call: cst.Call, comprehension: cst.ListComp) -> Edit | Refusal:
        loop = comprehension.for_in
        if loop.inner_for_in is not None or loop.ifs or loop.asynchronous is not None:
            return Refusal("only one `for` without `if` becomes jax.vmap")
        if not isinstance(loop.target, cst.Name):
            return Refusal("only `for v in x` becomes jax.vmap (unpack inside the function)")
        if any(isinstance(n, cst.NamedExpr) for n in _nodes(comprehension.elt)):
            return Refusal("`:=` in the comprehension")
        spelling = JaxSpelling.of(self.context)
        source = cst.Module(body=[]).code_for_node  # the whole text (code_of shortens)
        replacement = cst.parse_expression(
            f"{spelling.jax}.vmap(lambda {loop.target.value}: ({source(comprehension.elt)}))"
            f"({source(loop.iter)})"
        )
        return Edit(
            replacements={call: replacement},
            description="stacked per-row calls → jax.vmap (one batched call)",
            imports=(ImportSpec("jax"),) if spelling.jax == "jax" else (),
            verify_target=self.context.verify_target(),
        )


def _nodes(node: cst.CSTNode) -> list[cst.CSTNode]:
    found, stack = [], [node]
    while stack:
        current = stack.pop()
        found.append(current)
        stack.extend(current.children)
    return found
