"""The data flow of a Python loop a rewrite turns into a `lax` loop (JAX101's scan, JAX102's
while_loop): what its body may hold, which names it carries, which are read after it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import libcst as cst

from jaxlint.analysis.cst_walk import walk
from jaxlint.analysis.jax_api import ELEMENTWISE
from jaxlint.analysis.names import target_names
from jaxlint.rules._codegen import names_in

if TYPE_CHECKING:
    from jaxlint.engine.rule import UnitContext

FORBIDDEN = {
    cst.Break: "`break`",
    cst.Continue: "`continue`",
    cst.Return: "`return`",
    cst.Yield: "`yield`",
    cst.Raise: "`raise`",
    cst.Try: "`try`",
    cst.With: "`with`",
    cst.Global: "`global`",
    cst.Nonlocal: "`nonlocal`",
    cst.Del: "`del`",
    cst.FunctionDef: "a nested `def`",
    cst.ClassDef: "a nested `class`",
    cst.For: "a nested loop",
    cst.While: "a nested loop",
    cst.Await: "`await`",
    cst.NamedExpr: "`:=`",
}


ADDING_METHODS = ("append", "insert")  # list methods a scan turns into stacked outputs


def forbidden(body: cst.IndentedBlock, context: UnitContext, allow_appends: bool) -> str | None:
    """What in the body a `lax` loop body cannot hold, described; None when nothing.

    `allow_appends`: `out.append(v)` / `out.insert(0, v)` is allowed (a scan stacks it as an
    output; the rewrite checks which forms it takes)."""
    finder = _ForbiddenFinder(context, allow_appends)
    walk(body, finder)
    return finder.problem


class _ForbiddenFinder(cst.CSTVisitor):
    def __init__(self, context: UnitContext, allow_appends: bool) -> None:
        super().__init__()
        self.context = context
        self.allow_appends = allow_appends
        self.problem: str | None = None

    def on_visit(self, node: cst.CSTNode) -> bool:
        if self.problem:
            return False
        for kind, description in FORBIDDEN.items():
            if isinstance(node, kind):
                self.problem = description
                return False
        if isinstance(node, (cst.Assign, cst.AugAssign, cst.AnnAssign)):
            targets = (
                [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
            )
            for target in targets:
                if not _simple_target(target):
                    self.problem = "a write to an attribute or item (other state)"
                    return False
        if isinstance(node, cst.Call):
            qualified = self.context.resolve(node.func) or ""
            if qualified == "builtins.print":
                self.problem = "`print` (fix it to jax.debug.print first)"
                return False
        if isinstance(node, cst.Expr) and isinstance(node.value, cst.Call):
            call = node.value
            is_append = (
                self.allow_appends
                and isinstance(call.func, cst.Attribute)
                and call.func.attr.value in ADDING_METHODS
            )
            qualified = self.context.resolve(call.func) or ""
            if not is_append and not qualified.startswith("jax.debug."):
                self.problem = "a call made for its side effects"
                return False
        return True


def _simple_target(target: cst.BaseExpression) -> bool:
    if isinstance(target, cst.Name):
        return True
    if isinstance(target, (cst.Tuple, cst.List)):
        return all(_simple_target(e.value) for e in target.elements)
    if isinstance(target, cst.StarredElement):
        return _simple_target(target.value)
    return False


class LoopFlow(cst.CSTVisitor):
    """Names bound before the loop, read after it, and the body's own reads and writes."""

    def __init__(self, loop: cst.For | cst.While) -> None:
        super().__init__()
        self.loop = loop
        self.state = "before"
        self.bound_before: set[str] = set()
        self.loaded_after: set[str] = set()  # names whose first use after the loop is a read
        self._seen_after: set[str] = set()
        self.all_names: set[str] = set()
        self.body_loads: list[cst.Name] = []
        self._unconditional: set[int] = set()
        self._shadowed: list[tuple[cst.For, set[str]]] = []

    @classmethod
    def of(cls, function: cst.FunctionDef, loop: cst.For | cst.While) -> LoopFlow:
        flow = cls(loop)
        params = function.params
        for param in (*params.posonly_params, *params.params, *params.kwonly_params):
            flow.bound_before.add(param.name.value)
        for star in (params.star_arg, params.star_kwarg):
            if isinstance(star, cst.Param):
                flow.bound_before.add(star.name.value)
        flow._unconditional = {
            id(small)
            for statement in function.body.body
            if isinstance(statement, cst.SimpleStatementLine)
            for small in statement.body
        }
        walk(function.body, flow)
        return flow

    def visit_For(self, node: cst.For) -> None:
        if node is self.loop:
            self.state = "inside"
        elif self.state == "before":
            self.bound_before |= bound_by(node.target)
        elif self.state == "after":
            # Its body reads its own target, but the loop may run zero times: after it, the
            # names hold what they held before.
            self._after_reads(node.iter)
            shadowed = bound_by(node.target) - self._seen_after
            self._seen_after |= shadowed
            self._shadowed.append((node, shadowed))

    def _after_reads(self, node: cst.CSTNode) -> None:
        for name in names_in(node):
            if name not in self._seen_after:
                self._seen_after.add(name)
                self.loaded_after.add(name)

    def visit_Assign(self, node: cst.Assign) -> None:
        # Only an assignment that runs on every path (at the top of the function body, not
        # under an `if`, loop or `try`) kills the loop's value of a name; a read anywhere
        # else keeps it live. Names in a nested `def` count as reads.
        if self.state == "after" and id(node) in self._unconditional:
            self._after_reads(node.value)
            for target in node.targets:
                self._seen_after |= bound_by(target.target)

    def visit_While(self, node: cst.While) -> None:
        if node is self.loop:
            self.state = "inside"

    def leave_While(self, original_node: cst.While) -> None:
        if original_node is self.loop:
            self.state = "after"

    def leave_For(self, original_node: cst.For) -> None:
        if original_node is self.loop:
            self.state = "after"
        elif self._shadowed and self._shadowed[-1][0] is original_node:
            self._seen_after -= self._shadowed.pop()[1]

    def visit_Name(self, node: cst.Name) -> None:
        self.all_names.add(node.value)
        if self.state == "after":
            if node.value not in self._seen_after:
                self._seen_after.add(node.value)
                self.loaded_after.add(node.value)
        elif self.state == "inside":
            self.body_loads.append(node)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        if self.state == "before":
            self.bound_before |= bound_by(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if self.state == "before":
            self.bound_before |= bound_by(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if self.state == "before" and node.value is not None:
            self.bound_before |= bound_by(node.target)

    def body_loads_except(self, receivers: list[cst.CSTNode]) -> set[str]:
        """The names the body reads, apart from the given nodes (the lists it adds to)."""
        skipped = {id(node) for node in receivers}
        return {n.value for n in self.body_loads if id(n) not in skipped}


def path_to(root: cst.CSTNode, target: cst.CSTNode) -> list[cst.CSTNode]:
    """The nodes from `root` down to `target` (both included), or [] when it is not below."""
    stack: list[tuple[cst.CSTNode, list[cst.CSTNode]]] = [(root, [root])]
    while stack:
        node, path = stack.pop()
        if node is target:
            return path
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            continue  # another scope
        stack.extend((child, [*path, child]) for child in node.children)
    return []


def carried_names(
    statements: list[cst.BaseStatement], flow: LoopFlow, excluded: set[str]
) -> list[str]:
    """Names the body assigns that are read before being assigned in an iteration, or later."""
    assigned_anywhere: list[str] = []
    for statement in statements:
        for name in stores(statement):
            if name not in assigned_anywhere and name not in excluded:
                assigned_anywhere.append(name)
    carries: list[str] = []
    definitely: set[str] = set()
    for statement in statements:
        loads = _loads_beforestores(statement)
        for name in loads:
            if name in assigned_anywhere and name not in definitely and name not in carries:
                carries.append(name)
        if isinstance(statement, cst.SimpleStatementLine):
            definitely |= stores(statement)
    for name in assigned_anywhere:
        if name in flow.loaded_after and name not in carries:
            carries.append(name)
    return [name for name in assigned_anywhere if name in carries]


def stores(node: cst.CSTNode) -> set[str]:
    finder = _StoreFinder()
    walk(node, finder)
    return finder.names


class _StoreFinder(cst.CSTVisitor):
    def __init__(self) -> None:
        super().__init__()
        self.names: set[str] = set()

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self.names |= bound_by(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self.names |= bound_by(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self.names |= bound_by(node.target)


def _loads_beforestores(statement: cst.BaseStatement) -> set[str]:
    """Names a statement reads (an augmented assignment reads its target too)."""
    names = names_in(statement)
    if isinstance(statement, cst.SimpleStatementLine):
        plain_targets: set[str] = set()
        for small in statement.body:
            if isinstance(small, cst.Assign):
                for target in small.targets:
                    plain_targets |= bound_by(target.target)
                names_read = names_in(small.value)
                names = (names - plain_targets) | names_read
    return names


def bound_by(target: cst.CSTNode) -> set[str]:
    return {name.value for name in target_names(target)}


# -- how the body reads and updates a carry ------------------------------------------------------

STEP_OPERATORS = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.FloorDivide, cst.Modulo)
STEP_AUGMENTED = (
    cst.AddAssign,
    cst.SubtractAssign,
    cst.MultiplyAssign,
    cst.DivideAssign,
    cst.FloorDivideAssign,
    cst.ModuloAssign,
)
_ELEMENTWISE_OPERATORS = (*STEP_OPERATORS, cst.Power)
CONTRACTIONS = frozenset(
    f"jax.numpy.{name}" for name in ("dot", "matmul", "vdot", "inner", "outer", "tensordot")
)


_DTYPE_FREE_ATTRIBUTES = frozenset({"shape", "ndim", "size"})


class CarryReads(cst.CSTVisitor):
    """Is `name` read anywhere other than as an operand of an elementwise operation (or the
    left operand of `@`, which broadcasts the same way)?

    `rows`: values the rewrite stacks as scan outputs (`out[i] = v`), read like operands."""

    def __init__(self, name: str, context: UnitContext, rows: Sequence[cst.CSTNode] = ()) -> None:
        super().__init__()
        self.name = name
        self.context = context
        self.other_use = False
        self.contracted = False  # an operand of `@` / jnp.dot…: promoted, not broadcast
        self._operands: set[int] = {id(row) for row in rows}
        self._contracted: set[int] = set()

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        if isinstance(node.operator, _ELEMENTWISE_OPERATORS):
            self._operands |= {id(node.left), id(node.right)}
        elif isinstance(node.operator, cst.MatrixMultiply):
            # `h @ W` treats h's leading axes as a batch: h broadcast to more rows gives the
            # same rows, like an elementwise operand. `W @ h` contracts h's first axis.
            self._operands.add(id(node.left))
            self._contracted.add(id(node.right))

    def visit_UnaryOperation(self, node: cst.UnaryOperation) -> None:
        if isinstance(node.operator, (cst.Minus, cst.Plus)):
            self._operands.add(id(node.expression))

    def visit_Call(self, node: cst.Call) -> None:
        qualified = self.context.resolve(node.func)
        positional = {id(a.value) for a in node.args if not a.keyword and not a.star}
        if qualified in ELEMENTWISE:
            self._operands |= positional
        elif qualified == "jax.numpy.matmul" and node.args:
            self._operands.add(id(node.args[0].value))  # as `@`
            self._contracted |= positional - {id(node.args[0].value)}
        elif qualified in CONTRACTIONS:
            self._contracted |= positional
        elif isinstance(node.func, cst.Attribute) and node.func.attr.value in ADDING_METHODS:
            self._operands |= {id(a.value) for a in node.args}  # a stacked output row

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if isinstance(node.operator, STEP_AUGMENTED):
            self._operands.add(id(node.target))

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value in _DTYPE_FREE_ATTRIBUTES:  # `P.shape[0]`: the same in any dtype
            self._operands.add(id(node.value))

    def visit_AssignTarget(self, node: cst.AssignTarget) -> bool:
        return False  # a store, not a read

    def visit_Name(self, node: cst.Name) -> None:
        if node.value != self.name or id(node) in self._operands:
            return
        if id(node) in self._contracted:
            self.contracted = True
        else:
            self.other_use = True


def single_assignment(statement: cst.BaseStatement) -> cst.Assign | None:
    """The `target = value` of a line holding that one statement with one target, else None."""
    if (
        isinstance(statement, cst.SimpleStatementLine)
        and len(statement.body) == 1
        and isinstance(statement.body[0], cst.Assign)
        and len(statement.body[0].targets) == 1
    ):
        return statement.body[0]
    return None


def assigned_value(update: cst.CSTNode) -> cst.BaseExpression | None:
    if isinstance(update, (cst.Assign, cst.AugAssign, cst.AnnAssign)):
        return update.value
    return None


class UpdateFinder(cst.CSTVisitor):
    """Every statement that binds `name`."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name
        self.found: list[cst.CSTNode] = []

    def visit_Assign(self, node: cst.Assign) -> None:
        if any(self.name in bound_by(t.target) for t in node.targets):
            self.found.append(node)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if self.name in bound_by(node.target):
            self.found.append(node)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if self.name in bound_by(node.target):
            self.found.append(node)


def leading_offset(node: cst.Subscript, index: str) -> int | None:
    """c of `x[index + c]` / `x[index - c]` / `x[index]` (0) with a literal c; else None."""
    first = node.slice[0].slice
    if not isinstance(first, cst.Index):
        return None
    value = first.value
    if isinstance(value, cst.Name):
        return 0 if value.value == index else None
    if (
        isinstance(value, cst.BinaryOperation)
        and isinstance(value.left, cst.Name)
        and value.left.value == index
        and isinstance(value.operator, (cst.Add, cst.Subtract))
        and isinstance(value.right, cst.Integer)
    ):
        constant = int(value.right.evaluated_value)
        return constant if isinstance(value.operator, cst.Add) else -constant
    return None
