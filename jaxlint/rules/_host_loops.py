"""What a host loop does with each iteration, read on its libcst body: the lists it appends
to, the totals it adds to, the names one iteration hands the next. JAX305 asks these of loops
over the rows of a JAX array (and of Monte Carlo replicates) before calling them per-row work
that `jax.vmap` does in one call."""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from jaxlint.analysis.cst_walk import subtree
from jaxlint.analysis.names import target_names


def straight_line(loop: cst.For) -> bool:
    """A body of simple statements that never leaves the loop early."""
    return all(isinstance(s, cst.SimpleStatementLine) for s in loop.body.body) and not any(
        isinstance(node, (cst.Break, cst.Continue, cst.Return, cst.Yield))
        for node in subtree(loop.body)
    )


def _small_statements(loop: cst.For) -> Iterator[cst.BaseSmallStatement]:
    for statement in loop.body.body:
        yield from getattr(statement, "body", ())


def _append_calls(loop: cst.For) -> Iterator[tuple[str, cst.Call]]:
    """(list, call) for each `name.append(...)` statement of the body's own block."""
    for small in _small_statements(loop):
        call = small.value if isinstance(small, cst.Expr) else None
        if (
            isinstance(call, cst.Call)
            and isinstance(call.func, cst.Attribute)
            and call.func.attr.value == "append"
            and isinstance(call.func.value, cst.Name)
        ):
            yield call.func.value.value, call


def appended_names(loop: cst.For) -> set[str]:
    """The lists a straight-line body appends to and reads nowhere else (each name appears
    only as the receiver of its `append`)."""
    if not straight_line(loop):
        return set()  # a branch or inner loop per row (a path walked while a test holds)
    appends: dict[str, int] = {}
    for name, _ in _append_calls(loop):
        appends[name] = appends.get(name, 0) + 1
    reads = _name_reads(loop.body)
    return {name for name, count in appends.items() if reads.count(name) == count}


def work_parts(loop: cst.For, name: str) -> list[cst.CSTNode]:
    """The values appended to `name` first (what the loop computes per row), then the body's
    other statements."""
    appends = {id(call) for listed, call in _append_calls(loop) if listed == name}
    appended: list[cst.CSTNode] = []
    parts: list[cst.CSTNode] = []
    for small in _small_statements(loop):
        value = small.value if isinstance(small, cst.Expr) else None
        if id(value) in appends:
            appended.extend(a.value for a in value.args)  # type: ignore[union-attr]  # a Call
        else:
            parts.append(small)
    return appended + parts


def item_totals(loop: cst.For) -> set[str]:
    """Containers whose items a straight-line body adds to (`grads["w"] += g / n`) and reads
    nowhere else: one total per item, as `total += e` is for a name."""
    added: set[str] = set()
    targets: set[int] = set()  # the containers' names in the `+=` targets
    for small in _small_statements(loop):
        if not isinstance(small, cst.AugAssign) or not isinstance(small.target, cst.Subscript):
            continue
        base: cst.BaseExpression = small.target
        while isinstance(base, cst.Subscript):
            base = base.value
        if not isinstance(base, cst.Name):
            continue
        if not isinstance(small.operator, (cst.AddAssign, cst.SubtractAssign)):
            return set()
        added.add(base.value)
        targets.add(id(base))
    elsewhere = {
        n.value for n in subtree(loop.body) if isinstance(n, cst.Name) and id(n) not in targets
    }
    return added - elsewhere


def accumulation(loop: cst.For, total: str) -> str | None:
    """How every binding of `total` in the body adds to it: "sum" (`total += e`,
    `total = total + e`) or "scatter" (`total = total.at[i].add(e)`); None otherwise."""
    kinds: set[str] = set()
    for small in _small_statements(loop):
        if isinstance(small, cst.AugAssign):
            if total in {n.value for n in target_names(small.target)}:
                if not isinstance(small.operator, (cst.AddAssign, cst.SubtractAssign)):
                    return None
                kinds.add("sum")
        elif isinstance(small, cst.Assign):
            bound = {n.value for t in small.targets for n in target_names(t.target)}
            if total not in bound:
                continue
            if len(small.targets) != 1 or not isinstance(small.targets[0].target, cst.Name):
                return None
            kinds.add(_added_to(small.value, total) or "other")
    return kinds.pop() if len(kinds) == 1 and "other" not in kinds else None


def _added_to(value: cst.BaseExpression, total: str) -> str | None:
    if (
        isinstance(value, cst.BinaryOperation)
        and isinstance(value.operator, (cst.Add, cst.Subtract))
        and isinstance(value.left, cst.Name)
        and value.left.value == total
        and total not in names_read(value.right)
    ):
        return "sum"
    func = value.func if isinstance(value, cst.Call) else None  # `total.at[i].add(e)`
    if (
        isinstance(func, cst.Attribute)
        and func.attr.value == "add"
        and isinstance(func.value, cst.Subscript)
        and isinstance(func.value.value, cst.Attribute)
        and func.value.value.attr.value == "at"
        and isinstance(func.value.value.value, cst.Name)
        and func.value.value.value.value == total
    ):
        return "scatter"
    return None


def carried_names(loop: cst.For) -> set[str]:
    """Names the body reads before it binds them, and binds: what one iteration hands the
    next."""
    assigned = {
        n.value
        for node in subtree(loop.body)
        if isinstance(node, (cst.AssignTarget, cst.AugAssign))
        for n in target_names(node.target)
    }
    bound: set[str] = set()
    carried: set[str] = set()
    for small in _small_statements(loop):
        targets: set[str] = set()
        if isinstance(small, cst.Assign):
            targets = {n.value for t in small.targets for n in target_names(t.target)}
            read = names_read(small.value)
        elif isinstance(small, cst.AugAssign):
            targets = {n.value for n in target_names(small.target)}
            read = names_read(small.value) | targets
        else:
            read = names_read(small)
        carried |= (read & assigned) - bound
        bound |= targets
    return carried


def names_read(node: cst.CSTNode) -> set[str]:
    """The names a node reads (not the `.loc` of `c.loc`)."""
    return set(_name_reads(node))


def _name_reads(node: cst.CSTNode) -> list[str]:
    """The names a node reads, one entry per occurrence."""
    attributes = {id(n.attr) for n in subtree(node) if isinstance(n, cst.Attribute)}
    return [n.value for n in subtree(node) if isinstance(n, cst.Name) and id(n) not in attributes]


def starts_empty(name: str, before: list[cst.BaseStatement]) -> bool:
    """Is the last binding of `name` before the loop, in its block, `name = []`?"""
    for statement in reversed(before):
        if not isinstance(statement, cst.SimpleStatementLine):
            if any(isinstance(n, cst.Name) and n.value == name for n in subtree(statement)):
                return False  # bound or used in a compound statement: not followed
            continue
        for small in statement.body:
            if isinstance(small, cst.Assign) and any(
                isinstance(t.target, cst.Name) and t.target.value == name for t in small.targets
            ):
                return isinstance(small.value, cst.List) and not small.value.elements
    return False
