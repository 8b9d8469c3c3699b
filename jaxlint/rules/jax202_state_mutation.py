"""JAX202 state-mutation-in-traced: traced code writing to state that outlives the trace.

Writes that store a tracer into state outliving the trace (globals, `self`, arguments, closure
variables, outside containers) are flagged: the tracer escapes the transformation. Writes of
static values are flagged when they accumulate (`self.calls += 1`, `n = n + 1` on a global): they
run once per trace, not once per call, so a counter counts traces. Storing the same static value
on every trace (a flag, a lambda of functions, an object built from static config) is harmless.
"""

from __future__ import annotations

import libcst as cst

from jaxlint.analysis.cst_text import code_of
from jaxlint.analysis.cst_walk import subtree, walk
from jaxlint.analysis.scope import FunctionInfo
from jaxlint.analysis.unit_summary import UnitSummary
from jaxlint.engine.rule import Rule, UnitContext

LIST_MUTATORS = frozenset({"append", "extend", "insert", "appendleft", "extendleft"})
CONTAINER_MUTATORS = frozenset(
    {"update", "add", "setdefault", "pop", "popitem", "discard", "remove", "clear", "put"}
)
INVERSE_OPERATORS: dict[type[cst.BaseAugOp], type[cst.BaseAugOp]] = {
    cst.AddAssign: cst.SubtractAssign,
    cst.SubtractAssign: cst.AddAssign,
}
LEAK = "stores a tracer that escapes the transformation (UnexpectedTracerError when used)"
ONCE = "runs once per trace, not once per call"


class StateMutationInTraced(Rule):
    code = "JAX202"
    name = "state-mutation-in-traced"
    severity = "error"
    summary = "traced code writes to outside state: runs once at trace time, leaks tracers"

    @classmethod
    def may_apply(cls, unit: UnitSummary) -> bool:
        return unit.traced and (
            unit.stores_into
            or bool(unit.node_types & {"Global", "Nonlocal"})
            or bool(unit.methods_called & (LIST_MUTATORS | CONTAINER_MUTATORS))
        )

    def __init__(self, context: UnitContext) -> None:
        super().__init__(context)
        self._statement_calls: set[int] = set()  # calls whose result is thrown away

    def visit_Expr(self, node: cst.Expr) -> None:
        self._statement_calls.add(id(node.value))

    def _function(self) -> FunctionInfo | None:
        function = self.context.function
        if not self.context.traced or function is None or function.reference_semantics:
            return None
        return function

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._check_store(node, target.target, node.value)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._check_store(node, node.target, node.value)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self._check_store(node, node.target, node.value)

    def _check_store(
        self, statement: cst.CSTNode, target: cst.BaseExpression, value: cst.BaseExpression
    ) -> None:
        function = self._function()
        if function is None:
            return
        if isinstance(target, (cst.Tuple, cst.List)):
            values = _paired_values(target, value)
            for element, part in zip(target.elements, values, strict=True):
                self._check_store(statement, element.value, part)
            return
        if isinstance(target, cst.StarredElement):
            self._check_store(statement, target.value, value)
            return
        leaks = self._leaks(value)
        once = not leaks and _accumulates(statement, target) and not self._undone(statement)
        if isinstance(target, cst.Name):
            if target.value not in function.declared_outer:
                return
            owner = self.context.owner(target.value, function)
            # rebinding state outside the trace (a module global, a variable of an untraced
            # enclosing function) runs once per trace; inside, it matters when it leaks a tracer
            crosses = owner == "global" or (
                owner == "closure"
                and not self.context.closure_is_traced(target.value, function)
                and not _introspection_only(function)
            )
            if (crosses and (leaks or once)) or (owner == "closure" and leaks):
                kind = "global" if owner == "global" else "nonlocal"
                self.report(
                    statement,
                    f"assigns {kind} `{target.value}` inside traced {function.describe()}: "
                    f"the write {LEAK if leaks else ONCE}; return the value instead",
                )
            return
        if isinstance(target, cst.Subscript) and not self._is_container_item(target, function):
            return  # item stores into arrays are JAX204's; into refs (Pallas, new_ref) legal
        head_node = _head_name(target)
        if head_node is None:
            return
        head = head_node.value
        owner = self.context.owner(head, function, at=head_node)
        if owner == "argument" and head not in function.static_params:
            # a traced argument is the copy jit unflattened for this trace: writing into it
            # changes nothing outside and leaks nothing (a per-trace cache is a known idiom)
            return
        what = (
            f"sets attribute `{target.attr.value}` of"
            if isinstance(target, cst.Attribute)
            else "stores an item into"
        )
        # accumulating into outside state counts traces; filling a container or setting an
        # attribute with a static value is a deliberate trace-time idiom
        accumulating = ("self", "argument") + (
            () if isinstance(target, cst.Subscript) else ("global",)
        )
        if owner is not None and (leaks or (once and owner in accumulating)):
            self.report(
                statement,
                f"{what} {_describe(owner, head)} inside traced {function.describe()}: "
                f"the write {LEAK if leaks else ONCE}; return the new value instead",
            )

    def _undone(self, statement: cst.CSTNode) -> bool:
        """Is `x += 1` undone by an `x -= 1` in the same function (a `finally`, or after the
        `yield` of a context manager)? The value then holds how deep the trace is nested
        while it runs, and counts nothing once it is over."""
        frame = self.context.frame
        if not isinstance(statement, cst.AugAssign) or frame is None:
            return False
        inverse = INVERSE_OPERATORS.get(type(statement.operator))
        wanted = code_of(statement.target)
        return inverse is not None and any(
            isinstance(node, cst.AugAssign)
            and isinstance(node.operator, inverse)
            and code_of(node.target) == wanted
            for node in subtree(frame.node)
        )

    def visit_Call(self, node: cst.Call) -> None:
        function = self._function()
        if function is None or not isinstance(node.func, cst.Attribute):
            return
        method = node.func.attr.value
        receiver = node.func.value
        if method in LIST_MUTATORS:
            if id(node) not in self._statement_calls:
                return  # its result is used: not a list's (`buffer.insert(state, x)` is functional)
        elif not (
            method in CONTAINER_MUTATORS and self.context.known_container(receiver, function)
        ):
            return
        if not any(self._leaks(a.value) for a in node.args):
            return
        head_node = _head_name(receiver)
        if head_node is None:
            return
        head = head_node.value
        owner = self.context.owner(head, function, at=head_node)
        if owner is None:
            return
        self.report(
            node,
            f"`.{method}()` mutates {_describe(owner, head)} inside traced "
            f"{function.describe()}: it {ONCE} and {LEAK}; return the values instead",
        )

    def _leaks(self, value: cst.BaseExpression) -> bool:
        """Does storing `value` store a tracer? A helper's bare parameter is not claimed: its
        callers may pass a name, a key or a static value (`path.append(name)`)."""
        return self.context.holds_traced(value) and not self.context.assumed_traced(value)

    def _is_container_item(self, target: cst.Subscript, function: FunctionInfo) -> bool:
        """Is the subscripted object a Python container (or an attribute, e.g. `self.cache`)?"""
        base = target.value
        if isinstance(base, cst.Attribute):
            return True
        return self.context.known_container(base, function)


def _paired_values(
    target: cst.Tuple | cst.List, value: cst.BaseExpression
) -> list[cst.BaseExpression]:
    """The value each element of an unpacking target gets: `a, b = x, y` pairs them; otherwise
    each is given the whole value (what it holds is somewhere in it)."""
    elements = target.elements
    if (
        isinstance(value, (cst.Tuple, cst.List))
        and len(value.elements) == len(elements)
        and not any(isinstance(e, cst.StarredElement) for e in (*elements, *value.elements))
    ):
        return [e.value for e in value.elements]
    return [value] * len(elements)


INTROSPECTION = frozenset({"jax.eval_shape", "jax.make_jaxpr"})


def _introspection_only(function: FunctionInfo) -> bool:
    """Traced only to look at shapes or the jaxpr: effects at trace time are the point there."""
    return bool(function.reasons) and all(
        r.how == "passed" and r.api in INTROSPECTION for r in function.reasons
    )


def _accumulates(statement: cst.CSTNode, target: cst.BaseExpression) -> bool:
    """Does the write read what it overwrites (`x += 1`, `self.n = self.n + 1`)?"""
    if isinstance(statement, cst.AugAssign):
        return True
    value = getattr(statement, "value", None)
    if value is None:
        return False
    wanted = code_of(target)
    finder = _ReadOf(wanted)
    walk(value, finder)
    return finder.found


class _ReadOf(cst.CSTVisitor):
    def __init__(self, code: str) -> None:
        super().__init__()
        self.code = code
        self.found = False

    def on_visit(self, node: cst.CSTNode) -> bool:
        if (
            isinstance(node, (cst.Name, cst.Attribute, cst.Subscript))
            and code_of(node) == self.code
        ):
            self.found = True
        return not self.found


def _head_name(target: cst.BaseExpression) -> cst.Name | None:
    while isinstance(target, (cst.Attribute, cst.Subscript)):
        target = target.value
    return target if isinstance(target, cst.Name) else None


def _describe(owner: str, name: str | None) -> str:
    return {
        "self": f"`{name}`",
        "argument": f"argument `{name}`",
        "closure": f"closed-over `{name}`",
        "global": f"global `{name}`",
    }[owner]
