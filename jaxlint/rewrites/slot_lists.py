"""JAX101's per-step outputs written into a preallocated list (a part of the scan rewrite).

    out = [None] * n            # or `[v] * n`, `n * [v]`, `[v for _ in range(n)]`
    out[-1] = last              # slots the loop does not write, filled before it
    for t in range(n - 2, -1, -1):
        ...
        out[t] = value          # once per iteration, at the loop index
    return jnp.stack(out)

Each `out[t] = value` becomes one of scan's stacked outputs (`out_rows`, row k the value of
iteration k). The loop writes the slots of a contiguous run of the list — all of it, all but the
last or all but the first — so the list after the loop is those rows in slot order with the
slots it did not write on either side: `out = jnp.concatenate([jnp.stack(out[:1]), out_rows])`.
`jnp.stack` / `jnp.array` of the list then stack the same values with the same dtype promotion,
and raise where the list still held a `None`, as the original's stacking does. The list is
rebuilt only when the loop ran at least once (then the kept slots are exactly the ones it did
not write); its creation, the slots filled before the loop and every use after it stay as
written.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from jaxlint.engine.edits import Refusal
from jaxlint.engine.rule import UnitContext
from jaxlint.rewrites.loop_flow import single_assignment, stores
from jaxlint.rules._codegen import int_literal, names_in

_CODE = cst.Module(body=[]).code_for_node


@dataclass(frozen=True)
class SlotList:
    """A list the loop writes one slot of per iteration, at the loop index."""

    name: str
    statement: cst.SimpleStatementLine  # `out[t] = value`, at the top of the loop body
    value: cst.BaseExpression


def slot_writes(statements: list[cst.BaseStatement], index: str | None) -> list[SlotList] | Refusal:
    """The top-level `out[index] = value` statements of a loop body, one per list."""
    found: dict[str, SlotList] = {}
    if index is None:
        return []
    for statement in statements:
        assign = single_assignment(statement)
        if assign is None:
            continue
        target = assign.targets[0].target
        if not (
            isinstance(target, cst.Subscript)
            and isinstance(target.value, cst.Name)
            and len(target.slice) == 1
            and isinstance(target.slice[0].slice, cst.Index)
            and isinstance(target.slice[0].slice.value, cst.Name)
            and target.slice[0].slice.value.value == index
        ):
            continue
        name = target.value.value
        if name in found:
            return Refusal(f"`{name}[{index}]` is written more than once per iteration")
        assert isinstance(statement, cst.SimpleStatementLine)  # single_assignment found one
        found[name] = SlotList(name, statement, assign.value)
    return list(found.values())


def slot_assembly(
    slots: SlotList,
    loop: cst.For,
    block: cst.IndentedBlock,
    rows: str,
    numpy: str,
    context: UnitContext,
) -> str | Refusal:
    """Code for the list after the loop, built from `rows` (scan's stacked values, in iteration
    order), or why it cannot be."""
    length = _list_length(slots.name, loop, block, context)
    if isinstance(length, Refusal):
        return length
    cover = _covered_slots(loop.iter, context)
    if cover is None:
        return Refusal(
            f"`{slots.name}[i] = …` is rewritten in loops over `range(...)` and "
            "`reversed(range(...))` only"
        )
    (low, high), backwards = cover
    ordered = f"{rows}[::-1]" if backwards else rows
    size, offset = _bound(length)
    starts: dict[Bound, bool] = {(None, 0): False, (None, 1): True}
    before = starts.get(low)
    after = {(size, offset): False, (size, offset - 1): True}.get(high)
    if before is None or after is None:
        return Refusal(
            f"the loop writes `{slots.name}` from slot `{_show(low)}` to `{_show(high)}`, "
            f"not all of its {_CODE(length)} slots or all but the first or last"
        )
    if not before and not after:
        return ordered
    parts = [f"{numpy}.stack({slots.name}[:1])"] if before else []
    parts.append(ordered)
    parts += [f"{numpy}.stack({slots.name}[-1:])"] if after else []
    return f"{numpy}.concatenate([{', '.join(parts)}])"


def _list_length(
    name: str, loop: cst.For, block: cst.IndentedBlock, context: UnitContext
) -> cst.BaseExpression | Refusal:
    """n of `name = [None] * n` before the loop in its block, with only constant-slot writes
    `name[k] = v` to the list in between and nothing rebinding what n reads."""
    statements = list(block.body)
    position = next(i for i, s in enumerate(statements) if s is loop)
    rebound: set[str] = set()
    for statement in reversed(statements[:position]):
        if name in names_in(statement):
            length = _created_length(statement, name, context)
            if length is not None:
                if names_in(length) & rebound:
                    return Refusal(f"the length of `{name}` is reassigned before the loop")
                return length
            if not _fills_constant_slot(statement, name):
                return Refusal(
                    f"`{name}` is not created as `[None] * n` before the loop, with only "
                    "slots filled in between"
                )
        rebound |= stores(statement)
    return Refusal(f"`{name}` is not created as `[None] * n` in the loop's block")


def _created_length(
    statement: cst.BaseStatement, name: str, context: UnitContext
) -> cst.BaseExpression | None:
    assign = single_assignment(statement)
    if not (
        assign is not None
        and isinstance(assign.targets[0].target, cst.Name)
        and assign.targets[0].target.value == name
    ):
        return None
    value = assign.value
    if isinstance(value, cst.BinaryOperation) and isinstance(value.operator, cst.Multiply):
        for one, count in ((value.left, value.right), (value.right, value.left)):
            if (
                isinstance(one, cst.List)
                and len(one.elements) == 1
                and not isinstance(one.elements[0], cst.StarredElement)
            ):
                return count
    if (
        isinstance(value, cst.ListComp)
        and value.for_in.inner_for_in is None
        and not value.for_in.ifs
        and isinstance(value.for_in.iter, cst.Call)
        and context.resolve(value.for_in.iter.func) == "builtins.range"
        and len(value.for_in.iter.args) == 1
    ):
        return value.for_in.iter.args[0].value
    return None


def _fills_constant_slot(statement: cst.BaseStatement, name: str) -> bool:
    """Is `statement` `name[k] = v` with an integer literal k and `name` not in v?"""
    assign = single_assignment(statement)
    if assign is None:
        return False
    target = assign.targets[0].target
    return (
        isinstance(target, cst.Subscript)
        and isinstance(target.value, cst.Name)
        and target.value.value == name
        and len(target.slice) == 1
        and isinstance(target.slice[0].slice, cst.Index)
        and int_literal(target.slice[0].slice.value) is not None
        and name not in names_in(assign.value)
    )


Bound = tuple[str | None, int]  # (code of a base expression or None, constant offset)


def _covered_slots(
    iterable: cst.BaseExpression, context: UnitContext
) -> tuple[tuple[Bound, Bound], bool] | None:
    """The slots `[low, high)` a loop over `range(...)` / `reversed(range(...))` visits, and
    whether it visits them from the top down."""
    backwards = False
    if (
        isinstance(iterable, cst.Call)
        and context.resolve(iterable.func) == "builtins.reversed"
        and len(iterable.args) == 1
    ):
        iterable, backwards = iterable.args[0].value, True
    if not (isinstance(iterable, cst.Call) and context.resolve(iterable.func) == "builtins.range"):
        return None
    arguments = iterable.args
    if any(a.keyword or a.star for a in arguments) or not 1 <= len(arguments) <= 3:
        return None
    bounds = [_bound(a.value) for a in arguments]
    if len(bounds) == 1:
        bounds.insert(0, (None, 0))
    step = int_literal(arguments[2].value) if len(arguments) == 3 else 1
    if step == 1:
        return (bounds[0], bounds[1]), backwards
    if step == -1 and not backwards:
        (start, start_offset), (stop, stop_offset) = bounds[0], bounds[1]
        return ((stop, stop_offset + 1), (start, start_offset + 1)), True
    return None


def _bound(node: cst.BaseExpression) -> Bound:
    """`n - 2` → ("n", -2); `-1` → (None, -1); `len(x)` → ("len(x)", 0)."""
    literal = int_literal(node)
    if literal is not None:
        return None, literal
    if (
        isinstance(node, cst.BinaryOperation)
        and isinstance(node.operator, (cst.Add, cst.Subtract))
        and isinstance(node.right, cst.Integer)
    ):
        offset = int(node.right.evaluated_value)
        base, inner = _bound(node.left)
        return base, inner + (offset if isinstance(node.operator, cst.Add) else -offset)
    return "".join(_CODE(node).split()), 0


def _show(bound: Bound) -> str:
    base, offset = bound
    if base is None:
        return str(offset)
    return base if offset == 0 else f"{base} {'+' if offset > 0 else '-'} {abs(offset)}"
