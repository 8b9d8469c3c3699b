"""JAX101 python-loop-over-array: a loop in traced code whose trip count is an array length."""

from __future__ import annotations

import libcst as cst

from jaxlint.analysis.cst_text import code_of, count_statements
from jaxlint.analysis.cst_walk import subtree, walk
from jaxlint.analysis.jax_api import CONSTANT_CONSTRUCTORS
from jaxlint.analysis.unit_summary import UnitSummary
from jaxlint.analysis.values import Kind
from jaxlint.engine.requests import (
    BoundComprehension,
    LoopToArrays,
    StackedComprehension,
    SumOfComprehension,
)
from jaxlint.engine.rule import Rule, UnitContext
from jaxlint.rules._codegen import names_in
from jaxlint.rules._comprehensions import UNSTACKED, bound_comprehension, stacked_comprehension

ITERATION_WRAPPERS = ("builtins.enumerate", "builtins.reversed", "builtins.zip")


class PythonLoopOverArray(Rule):
    code = "JAX101"
    name = "python-loop-over-array"
    severity = "warning"
    fix_kind = "verified"
    summary = "Python loop over an array in traced code: unrolled once per element"

    def __init__(self, context: UnitContext) -> None:
        super().__init__(context)
        # `jnp.stack([... for v in x])` calls, by the id of their comprehension's `for`
        self._stackers: dict[int, tuple[cst.Call, cst.ListComp]] = {}
        # `name = [... for v in x]` bindings: the name, by the id of the comprehension's `for`
        self._bound: dict[int, tuple[str, cst.ListComp]] = {}
        # what each comprehension `for` computes per element (its element, key/value, conditions)
        self._produced: dict[int, tuple[cst.CSTNode, ...]] = {}

    def visit_ListComp(self, node: cst.ListComp) -> None:
        self._record(node.for_in, node.elt)

    def visit_SetComp(self, node: cst.SetComp) -> None:
        self._record(node.for_in, node.elt)

    def visit_GeneratorExp(self, node: cst.GeneratorExp) -> None:
        self._record(node.for_in, node.elt)

    def visit_DictComp(self, node: cst.DictComp) -> None:
        self._record(node.for_in, node.key, node.value)

    def _record(self, loop: cst.CompFor, *parts: cst.CSTNode) -> None:
        inner: cst.CompFor | None = loop
        while inner is not None:  # nested `for`s and `if`s all run per element
            parts += tuple(inner.ifs) + ((inner.inner_for_in.iter,) if inner.inner_for_in else ())
            self._produced[id(inner)] = parts
            inner = inner.inner_for_in

    @classmethod
    def may_apply(cls, unit: UnitSummary) -> bool:
        return unit.traced and (
            bool(unit.node_types & {"For", "AsyncFor", "comprehension"})
            or "builtins.sum" in unit.called
        )

    def visit_For(self, node: cst.For) -> None:
        if not self.context.traced:
            return
        source = self.array_length_source(node.iter, node)
        if source is None or not self.does_traced_work(node.body, node.target):
            return
        if names_in(node.iter) & self.context.not_arrays_at(node):
            return
        if _index_names_an_axis(node.body, names_in(node.target)):
            return  # `jnp.roll(f[i], 1, axis=i)`: one pass per axis, bounded by the rank
        if self._index_picks_list_items(node.body, names_in(node.target)):
            return  # `bins[i]` of a list of one bin count per column: a loop over the list
        statements = count_statements(node.body)
        self.report(
            node,
            f"Python loop over {source} (length known only at trace time) unrolls its "
            f"{statements}-statement body once per element: the jaxpr and compile time grow "
            "with the array length; use jax.lax.scan / lax.fori_loop or vectorize",
            end_node=node.iter,
            fix=self.context.rewrite(LoopToArrays(node)),
        )

    def visit_CompFor(self, node: cst.CompFor) -> None:
        if not self.context.traced:
            return
        source = self.array_length_source(node.iter, node)
        produced = self._produced.get(id(node), ())
        if (
            source is not None
            and any(self.does_traced_work(part, node.target) for part in produced)
            and not names_in(node.iter) & self.context.not_arrays_at(node)
        ):
            stacker = self._stackers.get(id(node))
            bound = self._bound.get(id(node))
            if stacker is not None:
                fix = self.context.rewrite(StackedComprehension(*stacker))
            elif bound is not None:
                fix = self.context.rewrite(BoundComprehension(*bound))
            else:
                fix = UNSTACKED
            self.report(
                node,
                f"comprehension over {source} (length known only at trace time) is unrolled "
                "once per element; use jax.vmap or an array expression",
                end_node=node.iter,
                fix=fix,
            )

    def visit_Assign(self, node: cst.Assign) -> None:
        bound = bound_comprehension(node) if self.context.traced else None
        if bound is not None:
            self._bound[id(bound[1].for_in)] = bound

    def visit_Call(self, node: cst.Call) -> None:
        if not self.context.traced:
            return
        comprehension = stacked_comprehension(node, self.context)
        if comprehension is not None:  # its `for` is reported (and fixed) by visit_CompFor
            self._stackers[id(comprehension.for_in)] = (node, comprehension)
        if self.context.resolve(node.func) != "builtins.sum":
            return
        summed = node.args[0].value if node.args else None
        if (
            summed is not None
            and self.context.kind(summed) == Kind.ARRAY
            and not self.context.unproven_array(summed)
        ):
            self.report(
                node,
                f"builtin sum over {code_of(node.args[0].value)} adds its rows one by one, "
                "unrolled at trace time; use jnp.sum(..., axis=0)",
                fix=self.context.rewrite(SumOfComprehension(node)),
            )

    def _index_picks_list_items(self, body: cst.CSTNode, index: set[str]) -> bool:
        """Does the body read a Python list or tuple that the code or its caller sized with the
        loop's index (`bins[i]` with `bins = list(bins)` of a parameter)? Then the trip count is
        that list's length as well, one setting per column (kdexpress's histogram: one bin
        count per column of `N, D = data.shape`), not a length that grows with the data."""
        nodes = list(subtree(body))
        written = {  # a list of slots the loop fills (`out[t] = v`) is as long as the array
            code_of(target.value)
            for node in nodes
            if isinstance(node, (cst.AssignTarget, cst.AugAssign))
            and isinstance(target := node.target, cst.Subscript)
        }
        return any(
            isinstance(node, cst.Subscript)
            and len(node.slice) == 1
            and isinstance(node.slice[0].slice, cst.Index)
            and isinstance(node.slice[0].slice.value, cst.Name)
            and node.slice[0].slice.value.value in index
            and code_of(node.value) not in written
            and self.context.given_sequence(node.value)
            for node in nodes
        )

    def does_traced_work(self, body: cst.CSTNode, target: cst.CSTNode | None = None) -> bool:
        """Does the body touch a traced value or call JAX? Else nothing is unrolled into the jaxpr
        (Python integer arithmetic on shapes, building a list of ints). A body that turns the
        element into a Python number (`v.item()`, `int(v)`) runs on concrete values: were they
        traced it would raise, which is another rule's finding."""
        finder = _TracedWork(self.context, names_in(target) if target is not None else set())
        walk(body, finder)
        return finder.found and not finder.concretized

    def array_length_source(
        self, iterable: cst.BaseExpression, loop: cst.For | cst.CompFor | None = None
    ) -> str | None:
        """How the loop's trip count comes from an array, or None when it is static."""
        context = self.context
        if isinstance(iterable, cst.Call):
            callee = context.resolve(iterable.func)
            arguments = [a.value for a in iterable.args if not a.keyword]
            if callee == "builtins.range":
                if any(context.kind(a) == Kind.SHAPE for a in arguments):
                    return f"`{code_of(iterable)}`"
                return None
            if callee == "builtins.zip" and any(
                not context.kind(a).traced and self.array_length_source(a, loop) is None
                for a in arguments
            ):
                return None  # as long as its shortest operand: a static sequence bounds it
            if callee in ITERATION_WRAPPERS:
                for argument in arguments:
                    if self.array_length_source(argument, loop) is not None:
                        return f"`{code_of(iterable)}`"
                return None
        if context.unproven_array(iterable):
            return None  # as often a list of arrays: iterating it is static structure
        if context.fixed_length(iterable):
            return None  # `jnp.array([[0, 1], [1, 0]])`: as many steps as rows written
        kind = context.kind(iterable) if loop is None else context.kind_at(iterable, loop)
        if kind == Kind.ARRAY:
            return f"`{code_of(iterable)}`"
        return None


CONCRETIZERS = frozenset({"builtins.int", "builtins.float", "builtins.bool", "builtins.complex"})


class _TracedWork(cst.CSTVisitor):
    def __init__(self, context: UnitContext, elements: set[str]) -> None:
        super().__init__()
        self.context = context
        self.elements = elements
        self.found = False
        self.concretized = False

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, cst.Call) and self.elements and self._concretizes(node):
            self.concretized = True
        if not self.found:
            if isinstance(node, cst.Name):
                self.found = self.context.kind(node).traced
            elif isinstance(node, cst.Call):
                callee = self.context.resolve(node.func) or ""
                # a constant constructor counts only through traced arguments (its Names)
                self.found = (
                    callee.startswith("jax.") and callee not in CONSTANT_CONSTRUCTORS
                ) or self.context.helper_does_traced_work(node)
        return not self.concretized

    def _concretizes(self, call: cst.Call) -> bool:
        """`v.item()`, `v.tolist()`, `int(v)`… of a loop element."""
        func = call.func
        if isinstance(func, cst.Attribute) and func.attr.value in ("item", "tolist"):
            return bool(self.elements & names_in(func.value))
        return self.context.resolve(func) in CONCRETIZERS and any(
            self.elements & names_in(a.value) for a in call.args
        )


AXIS_KEYWORDS = frozenset({"axis", "axes", "dim", "dimension"})


def _index_names_an_axis(body: cst.CSTNode, index: set[str]) -> bool:
    """Is the loop's index handed to a call as an axis (`axis=i`)? Then the loop runs once per
    axis of an array, a handful of passes however large the array, and cannot be a
    `lax.scan`: the axis must be a Python int."""
    return any(
        isinstance(node, cst.Arg)
        and node.keyword is not None
        and node.keyword.value in AXIS_KEYWORDS
        and bool(names_in(node.value) & index)
        for node in subtree(body)
    )
