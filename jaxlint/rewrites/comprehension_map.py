"""JAX101's rewrites of expressions: stacked comprehensions → `jax.vmap` (or `lax.map`), builtin
`sum` → `jnp.sum`.

`jnp.stack([f(v) for v in x])` (or `jnp.array` / `jnp.asarray` of the list) computes the rows one
by one and stacks them; `jax.vmap(lambda v: f(v))(x)` computes the same rows all at once (they
are independent), and `lax.map(lambda v: f(v), x)` one by one in a scan, where the element
prints or calls back per row (vmap would do it once, for all rows). A comprehension bound to a
name (`rows = [f(v) for v in x]`) is rewritten the same way when the name is only ever stacked
(`jnp.stack(rows)`, `jnp.array([rows, other])`, `len(rows)`): a stacker treats an array as the
sequence of its rows, so it gives the same array whether it is handed the list or the mapped
rows. Over
`range(len(x))`, the rows `x[i]` are mapped over; any other use of the index (rows of other
arrays, a number) makes it a Python-int counter carried by `lax.scan`, which keeps it weakly
typed (`i * v` keeps `v`'s dtype). `sum(x)` over an array adds its rows to the start value 0:
`jnp.sum(x, axis=0, dtype=jnp.result_type(0, x.dtype))` is that sum, with the dtype Python's
`0 + row + …` gives (int8 rows stay int8, bools count as ints).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import libcst as cst

from jaxlint.analysis.cst_walk import subtree, walk
from jaxlint.analysis.jax_api import STACKERS
from jaxlint.analysis.values import Kind
from jaxlint.engine.edits import Edit, ImportSpec, Refusal
from jaxlint.engine.rule import UnitContext
from jaxlint.rewrites.loop_forms import PER_ROW_EFFECTS
from jaxlint.rewrites.loop_scan import (
    IndexUses,
    ReplaceIndexed,
    leading_length_of,
    static_index_use,
    unproven_array_refusal,
)
from jaxlint.rules._codegen import JaxSpelling, fresh_name, names_in, visited_expression
from jaxlint.rules._comprehensions import UNSTACKED


def map_edit(call: cst.Call, comprehension: cst.ListComp, context: UnitContext) -> Edit | Refusal:
    """`jnp.stack([e for v in x])` → `lax.map(lambda v: e, x)`, or why it is refused."""
    loop = comprehension.for_in
    if loop.inner_for_in is not None or loop.ifs or loop.asynchronous is not None:
        return Refusal("only one `for` without `if` is rewritten to lax.map")
    if not isinstance(loop.target, cst.Name):
        return Refusal("only `for v in x` comprehensions are rewritten to lax.map")
    if not (isinstance(loop.iter, cst.Name) and context.kind(loop.iter) == Kind.ARRAY):
        return Refusal("only comprehensions over an array name are rewritten to lax.map")
    refusal = unproven_array_refusal(loop.iter.value, "lax.map", context)
    if refusal is not None:
        return refusal
    if _has_walrus(comprehension.elt):
        return Refusal("`:=` in the comprehension")
    spelling = JaxSpelling.of(context)
    code = cst.Module(body=[]).code_for_node
    replacement = cst.parse_expression(
        f"{spelling.lax}.map(lambda {loop.target.value}: {code(comprehension.elt)}, "
        f"{loop.iter.value})"
    )
    return _edit(call, replacement, "stacked comprehension → jax.lax.map", spelling, context)


def bound_map_edit(name: str, comprehension: cst.ListComp, context: UnitContext) -> Edit | Refusal:
    """`name = [e for v in x]` → `name = lax.map(lambda v: e, x)` (or over `range(n)`) when
    `name` is only ever stacked, or why it is refused."""
    frame = context.frame
    if frame is None or not isinstance(frame.node, (cst.FunctionDef, cst.Lambda)):
        return UNSTACKED
    uses = _StackedUses(name, comprehension, context)
    walk(frame.node, uses)
    if uses.other_use:
        return UNSTACKED
    loop = comprehension.for_in
    if loop.inner_for_in is not None or loop.ifs or loop.asynchronous is not None:
        return Refusal("only one `for` without `if` is rewritten to lax.map")
    if not isinstance(loop.target, cst.Name):
        return Refusal("only `for v in x` / `for i in range(n)` comprehensions are rewritten")
    if _has_walrus(comprehension.elt):
        return Refusal("`:=` in the comprehension")
    if isinstance(comprehension.elt, (cst.Tuple, cst.List, cst.Dict)):
        # a stacker makes rows of a tuple's parts; lax.map stacks each part on its own
        return Refusal("each element is a tuple, list or dict: lax.map stacks its parts apart")
    spelling = JaxSpelling.of(context)
    code = cst.Module(body=[]).code_for_node
    target, element = loop.target.value, code(comprehension.elt)
    if isinstance(loop.iter, cst.Name) and context.kind(loop.iter) == Kind.ARRAY:
        refusal = unproven_array_refusal(loop.iter.value, "lax.map", context)
        if refusal is not None:
            return refusal
        text = f"{spelling.lax}.map(lambda {target}: {element}, {loop.iter.value})"
    else:
        length = _range_stop(loop.iter, context)
        if length is None:
            return Refusal(
                "only comprehensions over an array name or `range(n)` are rewritten to lax.map"
            )
        static_use = static_index_use(comprehension.elt, target, context)
        if static_use:
            return Refusal(
                f"the index `{target}` is used as a Python int ({static_use}); "
                "lax.map gives it as a traced value"
            )
        rows, counted = _row_arrays(comprehension.elt, target, loop.iter, context)
        body = comprehension.elt
        if rows is not None:
            body = visited_expression(body, ReplaceIndexed(target, {(rows, 0): "_"}))
        traced_read = _indexed_read(body, target)
        if traced_read:
            # under lax.scan the read is traced, and a traced index into an empty axis raises
            # at trace time, where the comprehension over an empty range read nothing
            return Refusal(
                f"`{traced_read}` is indexed by `{target}` beside the rows mapped over; traced, "
                "that read raises on an empty array where the comprehension read nothing "
                "(map over the rows of both, `lax.map(lambda row: …, (x, y))`, when they have "
                "the same length)"
            )
        if rows is not None:
            # `x[i]` of the array the range is as long as: map over its rows, which also works
            # for an empty axis
            text = _rows_map(
                comprehension.elt, target, rows, counted, spelling, names_in(comprehension)
            )
        else:
            text = (
                f"{spelling.scan}(lambda {target}, _: ({target} + 1, {element}), 0, None, "
                f"length={length})[1]"
            )
    return _edit(
        comprehension,
        cst.parse_expression(text),
        "comprehension only ever stacked → jax.lax.map",
        spelling,
        context,
    )


def _range_stop(iterable: cst.BaseExpression, context: UnitContext) -> str | None:
    """`n` of `range(n)` / `range(0, n)`, as code."""
    if not (isinstance(iterable, cst.Call) and context.resolve(iterable.func) == "builtins.range"):
        return None
    arguments = iterable.args
    if any(a.keyword or a.star for a in arguments):
        return None
    first = arguments[0].value if len(arguments) == 2 else None
    if isinstance(first, cst.Integer) and first.evaluated_value == 0:
        arguments = arguments[1:]
    if len(arguments) != 1:
        return None
    return cst.Module(body=[]).code_for_node(arguments[0].value)


def _row_arrays(
    element: cst.BaseExpression,
    index: str,
    iterable: cst.BaseExpression,
    context: UnitContext,
) -> tuple[str | None, bool]:
    """`x` when the range is `range(len(x))` / `range(x.shape[0])` and `element` reads rows
    `x[i]` of it; and whether `i` is used otherwise too."""
    uses = IndexUses(index, context)
    walk(element, uses)
    rows = [array for array, offset in uses.rows if offset == 0]
    stop = iterable.args[-1].value  # type: ignore[attr-defined]  # a `range(...)` call
    length_of = leading_length_of(stop, context)
    if length_of not in rows:
        return None, True
    shifted = len(rows) < len(uses.rows)  # `x[i + 1]`: read with the index, not as a row
    return length_of, uses.other_use or shifted or len(rows) > 1


def _indexed_read(body: cst.BaseExpression, index: str) -> str | None:
    """The first subscript `y[… i …]` in `body` whose index names `index`, as code."""
    for node in _subscripts(body):
        if any(index in names_in(element) for element in node.slice):
            return cst.Module(body=[]).code_for_node(node)
    return None


def _subscripts(node: cst.CSTNode) -> Iterator[cst.Subscript]:
    if isinstance(node, cst.Subscript):
        yield node
    for child in node.children:
        yield from _subscripts(child)


def _rows_map(
    element: cst.BaseExpression,
    index: str,
    array: str,
    counted: bool,
    spelling: JaxSpelling,
    taken: set[str],
) -> str:
    """`lax.map(lambda x_i: …, x)`; with `counted`, `lax.scan(lambda i, x_i: (i + 1, …), 0, x)[1]`,
    the index a Python-int carry for its other uses."""
    parameter = fresh_name(f"{array}_{index}", set(taken))
    body = cst.Module(body=[]).code_for_node(
        visited_expression(element, ReplaceIndexed(index, {(array, 0): parameter}))
    )
    if counted:
        return f"{spelling.scan}(lambda {index}, {parameter}: ({index} + 1, {body}), 0, {array})[1]"
    return f"{spelling.lax}.map(lambda {parameter}: {body}, {array})"


class _StackedUses(cst.CSTVisitor):
    """Does `name` appear anywhere but as its binding, a stacker's list or `len(name)`?"""

    def __init__(self, name: str, comprehension: cst.ListComp, context: UnitContext) -> None:
        super().__init__()
        self.name = name
        self.comprehension = comprehension
        self.context = context
        self.allowed: set[int] = set()
        self.other_use = False

    def visit_Assign(self, node: cst.Assign) -> None:
        if node.value is self.comprehension:
            self.allowed.add(id(node.targets[0].target))

    def visit_Call(self, node: cst.Call) -> None:
        if not node.args or node.args[0].keyword or node.args[0].star:
            return
        first = node.args[0].value
        qualified = self.context.resolve(node.func)
        if qualified == "builtins.len" and len(node.args) == 1:
            self.allowed.add(id(first))
        elif qualified in STACKERS:
            items = (
                [e.value for e in first.elements]
                if isinstance(first, (cst.List, cst.Tuple))
                and not any(isinstance(e, cst.StarredElement) for e in first.elements)
                else [first]
            )
            self.allowed.update(id(item) for item in items)

    def visit_Name(self, node: cst.Name) -> None:
        if node.value == self.name and id(node) not in self.allowed:
            self.other_use = True


def sum_edit(call: cst.Call, context: UnitContext) -> Edit | Refusal:
    """`sum(x)` of an array name → `jnp.sum(x, axis=0, dtype=jnp.result_type(0, x.dtype))`."""
    if len(call.args) != 1 or call.args[0].keyword or call.args[0].star:
        return Refusal("only `sum(x)` with one argument is rewritten")
    array = call.args[0].value
    if not isinstance(array, cst.Name):
        return Refusal("only `sum(<array name>)` is rewritten")
    refusal = unproven_array_refusal(array.value, "jnp.sum", context)
    if refusal is not None:
        return refusal
    spelling = JaxSpelling.of(context)
    numpy, name = spelling.numpy, array.value
    replacement = cst.parse_expression(
        f"{numpy}.sum({name}, axis=0, dtype={numpy}.result_type(0, {name}.dtype))"
    )
    return _edit(call, replacement, "builtin sum → jnp.sum(axis=0)", spelling, context)


def _edit(
    call: cst.BaseExpression,
    replacement: cst.BaseExpression,
    description: str,
    spelling: JaxSpelling,
    context: UnitContext,
) -> Edit:
    """The edit; a `lax.map` is written as one `jax.vmap`: the rows are independent, and
    computed at once they ran up to 47× faster on a TPU (rules/JAX101.md, "Which form")."""
    mentions_jax = spelling.lax.startswith("jax.") or spelling.numpy.startswith("jax.")
    mapped = Edit(
        replacements={call: replacement},
        description=description,
        imports=(ImportSpec("jax"),) if mentions_jax and spelling.jax == "jax" else (),
        verify_target=context.verify_target(),
        require_fewer_eqns=True,
        judge_run_time=True,
    )
    vmapped = _as_vmap(replacement, spelling)
    if vmapped is None:
        return mapped
    return replace(
        mapped,
        replacements={call: vmapped},
        description=description.replace("jax.lax.map", "jax.vmap"),
        imports=(ImportSpec("jax"),) if spelling.jax == "jax" else (),
    )


def _as_vmap(mapped: cst.BaseExpression, spelling: JaxSpelling) -> cst.BaseExpression | None:
    """`jax.vmap(f)(xs)` for `lax.map(f, xs)`."""
    if not (
        isinstance(mapped, cst.Call)
        and cst.Module(body=[]).code_for_node(mapped.func) == f"{spelling.lax}.map"
        and len(mapped.args) == 2
        and not any(arg.keyword or arg.star for arg in mapped.args)
    ):
        return None
    function, xs = (arg.value for arg in mapped.args)
    if names_in(function) & PER_ROW_EFFECTS:
        return None  # a print or callback per row: vmap would make it one, of all rows
    return cst.Call(
        func=cst.Call(func=cst.parse_expression(f"{spelling.jax}.vmap"), args=[cst.Arg(function)]),
        args=[cst.Arg(xs)],
    )


def _has_walrus(node: cst.CSTNode) -> bool:
    finder = _WalrusFinder()
    walk(node, finder)
    return finder.found


class _WalrusFinder(cst.CSTVisitor):
    def __init__(self) -> None:
        super().__init__()
        self.found = False

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self.found = True


def vmap_edit(call: cst.Call, comprehension: cst.ListComp, context: UnitContext) -> Edit | Refusal:
    """JAX305's rewrite: `jnp.stack([f(v) for v in x])` → `jax.vmap(lambda v: f(v))(x)`."""
    loop = comprehension.for_in
    if loop.inner_for_in is not None or loop.ifs or loop.asynchronous is not None:
        return Refusal("only one `for` without `if` becomes jax.vmap")
    if not isinstance(loop.target, cst.Name):
        return Refusal("only `for v in x` becomes jax.vmap (unpack inside the function)")
    if any(isinstance(n, cst.NamedExpr) for n in subtree(comprehension.elt)):
        return Refusal("`:=` in the comprehension")
    spelling = JaxSpelling.of(context)
    source = cst.Module(body=[]).code_for_node  # the whole text (code_of shortens)
    iterable = source(loop.iter)
    vmapped = (
        f"{spelling.jax}.vmap(lambda {loop.target.value}: ({source(comprehension.elt)}))"
        f"({iterable})"
    )
    # no rows: the stacker of an empty list (`jnp.array([])` is float32 (0,) whatever a row
    # is; `jnp.stack([])` raises), as the comprehension gives it; the row count is static
    empty = call.with_changes(args=[call.args[0].with_changes(value=cst.List([])), *call.args[1:]])
    replacement = cst.parse_expression(f"({vmapped} if len({iterable}) else {source(empty)})")
    return Edit(
        replacements={call: replacement},
        description="stacked per-row calls → jax.vmap (one batched call)",
        imports=(ImportSpec("jax"),) if spelling.jax == "jax" else (),
        verify_target=context.verify_target(),
        judge_run_time=True,
    )
