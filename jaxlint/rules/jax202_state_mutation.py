"""JAX202 state-mutation-in-traced: writes to state outside the traced function."""

from __future__ import annotations

import libcst as cst

from jaxlint.rules.base import Rule
from jaxlint.unit_summary import UnitSummary
from jaxlint.values import Kind

LIST_MUTATORS = frozenset({"append", "extend", "insert", "appendleft", "extendleft"})
CONTAINER_MUTATORS = frozenset(
    {"update", "add", "setdefault", "pop", "popitem", "discard", "remove", "clear", "put"}
)


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

    def _applies(self) -> bool:
        function = self.context.function
        return self.context.traced and function is not None and not function.reference_semantics

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._check_store(node, target.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._check_store(node, node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self._check_store(node, node.target)

    def _check_store(
        self, statement: cst.Assign | cst.AugAssign | cst.AnnAssign, target: cst.BaseExpression
    ) -> None:
        if not self._applies() or statement.value is None:
            return
        if not self.context.kind(statement.value).traced:
            return  # storing a static value (a shape, a treedef) at trace time leaks nothing
        if isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._check_store(statement, element.value)
            return
        if isinstance(target, cst.StarredElement):
            self._check_store(statement, target.value)
            return
        frame = self.context.frame
        assert frame is not None
        if isinstance(target, cst.Name):
            if target.value in frame.info.declared_outer:
                owner = self._outer_owner(target)
                if owner is not None:
                    self.report(
                        statement,
                        f"assigns {owner} inside traced {frame.info.describe()}: the write "
                        "happens once, at trace time, and stores a tracer that escapes the "
                        "transformation; return the value instead",
                    )
            return
        if isinstance(target, cst.Attribute):
            owner = self._outer_owner(target.value)
            if owner is not None:
                self.report(
                    statement,
                    f"sets attribute `{target.attr.value}` of {owner} inside traced "
                    f"{frame.info.describe()}: the write happens at trace time and leaks a "
                    "tracer; return the new value instead",
                )
        elif isinstance(target, cst.Subscript):
            base = target.value
            if isinstance(base, cst.Name) and frame.info.params and base.value in frame.info.params:
                return  # item assignment on a parameter is about arrays: JAX204
            if self.context.kind(base) == Kind.ARRAY:
                return
            owner = self._outer_owner(base)
            if owner is not None:
                self.report(
                    statement,
                    f"stores an item into {owner} inside traced {frame.info.describe()}: "
                    "the write happens at trace time and leaks a tracer",
                )

    def visit_Call(self, node: cst.Call) -> None:
        if not self._applies() or not isinstance(node.func, cst.Attribute):
            return
        method = node.func.attr.value
        receiver = node.func.value
        if not any(self.context.kind(a.value).traced for a in node.args):
            return
        if method in LIST_MUTATORS or (
            method in CONTAINER_MUTATORS and self._known_container(receiver)
        ):
            owner = self._outer_owner(receiver)
            if owner is not None:
                frame = self.context.frame
                assert frame is not None
                self.report(
                    node,
                    f"`.{method}()` mutates {owner} inside traced {frame.info.describe()}: it "
                    "runs once, at trace time, and stores tracers that escape; return the "
                    "values instead",
                )

    def _known_container(self, receiver: cst.BaseExpression) -> bool:
        if not isinstance(receiver, cst.Name):
            return False
        frame = self.context.frame
        assert frame is not None
        if frame.values.is_local(receiver.value):
            return frame.values.name_kind(receiver.value) == Kind.CONTAINER
        return self.context.index.module_values.get(receiver.value) == "container"

    def _declared_global(self, name: str) -> bool:
        frame = self.context.frame
        return (
            frame is not None
            and name in frame.info.declared_outer
            and not any(name in f.local_names for f in _enclosing(frame.info))
        )

    def _outer_owner(self, receiver: cst.BaseExpression) -> str | None:
        """Describe the object a write lands in when it lives outside this call, else None."""
        head = receiver
        while isinstance(head, (cst.Attribute, cst.Subscript)):
            head = head.value
        if not isinstance(head, cst.Name):
            return None
        name = head.value
        frame = self.context.frame
        assert frame is not None
        info = frame.info
        if name in (info.vararg, info.kwarg):
            return None  # `*args` / `**kwargs` are fresh objects on every call
        if name in info.params:
            if info.is_method and name == info.positional[0]:
                return f"`{name}`"
            return f"argument `{name}`"
        if name in info.local_names:
            return None  # created in this function
        if frame.values.is_local(name) and not self._declared_global(name):
            owner_frame = frame.parent
            while owner_frame is not None and name not in owner_frame.info.local_names:
                owner_frame = owner_frame.parent
            if owner_frame is not None and owner_frame.traced and not info.own_trace:
                return None  # same trace level: the object lives inside this trace
            return f"closed-over `{name}`"
        if name in self.context.index.imports.aliases:
            return None
        return f"global `{name}`"


def _enclosing(function):
    parent = function.parent
    while parent is not None:
        yield parent
        parent = parent.parent
