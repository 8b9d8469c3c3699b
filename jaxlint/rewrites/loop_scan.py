"""JAX101's rewrite: an accumulation loop over an array → `jax.lax.scan` (SPEC §4, research §5).

Recognised loops, anywhere in a function body (under `if`/`with`/`try`, or inside another
loop): over an array `for v in x`, `reversed(x)`, `zip(x, y)`, `enumerate(x)`; and `range`
loops, whose rows `x[i]` / `x[i - 1]` become scanned slices and whose index, when used
otherwise (`i % 4`, a `.at[i]` carry, a start or step), is carried as a Python-int counter.
The body may update accumulators (they become the carry) and append to lists created empty
just before the loop and used afterwards only as `jnp.array(out)` / `jnp.stack(out[, axis])` /
`len(out)` (they become `ys`). Carry starts are derived in `CarryStart`. Anything else is
refused with the reason; every rewrite is verified with JAX before it is applied.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, TypeGuard, cast

import libcst as cst

from jaxlint.analysis.cst_walk import walk
from jaxlint.analysis.jax_api import STACKERS
from jaxlint.analysis.query import Frame
from jaxlint.analysis.values import Kind
from jaxlint.engine.backend import detected_backend
from jaxlint.engine.edits import Edit, ImportSpec, Refusal, Replacement
from jaxlint.engine.rule import UnitContext
from jaxlint.rewrites.loop_flow import (
    ADDING_METHODS,
    STEP_AUGMENTED,
    STEP_OPERATORS,
    CarryReads,
    LoopFlow,
    UpdateFinder,
    assigned_value,
    bound_by,
    carried_names,
    forbidden,
    leading_offset,
    path_to,
    single_assignment,
    stores,
)
from jaxlint.rewrites.loop_forms import (
    Counter,
    StepModel,
    accelerator_forms,
    vectorized_statements,
)
from jaxlint.rewrites.slot_lists import SlotList, slot_assembly, slot_writes
from jaxlint.rules._codegen import (
    JaxSpelling,
    fresh_name,
    int_literal,
    module_of,
    names_in,
    visited_statement,
)

UNSUPPORTED_SHAPE = (
    "only loops over `range(...)`, an array, `enumerate(x)`, `reversed(x)` and `zip(x, y)` are "
    "rewritten"
)
MAX_TYPE_STEPS = 3  # abstract steps of the body that type the carries (see `_start_casts`)


@dataclass
class _Loop:
    """What the rewrite needs to know about the loop, gathered before generating code."""

    arrays: list[str] = field(default_factory=list)  # arrays scanned over, in order
    # `x[i + c]` rows of range loops, replaced by elements: (array, offset) → element parameter
    rows: list[tuple[str, int]] = field(default_factory=list)
    element_names: dict[tuple[str, int], str] = field(default_factory=dict)
    index: str | None = None  # `i` of range loops (replaced by elements)
    element_target: cst.BaseExpression | None = None  # `v` / `(a, b)`: what each element binds
    counter: _Counter | None = None  # an index carried as a Python-int counter
    xs: str | None = None  # the scanned-over expression, when not the arrays themselves


@dataclass(frozen=True)
class FastForms:
    """Ask `_generate` for the loop without a scan (`loop_forms`): the carries read after the
    loop, and whether forms that win only on accelerators may be chosen."""

    needed_after: frozenset[str]
    accelerator: bool


@dataclass(frozen=True)
class _Counter:
    """`i` of `enumerate` or of `range(start, stop, step)`: carried, weakly typed like an int.

    `length` is the trip count (`len(range(...))`, static at trace time) when nothing is scanned
    over; the body then indexes the arrays with the traced counter as the loop did.
    """

    name: str
    start: str = "0"
    step: int = 1
    length: str | None = None
    steps: str | None = None  # the values as a Python `range` (the loop's, as code)


Appends = dict[str, tuple[cst.SimpleStatementLine, cst.BaseExpression]]
AfterUses = list[tuple[cst.Call, cst.SimpleStatementLine | None]]


@dataclass(frozen=True)
class _Site:
    """Where the loop is: its function, the block holding it, and its body's statements."""

    function: cst.FunctionDef
    path: list[cst.CSTNode]  # from the function's body down to the loop
    block: cst.IndentedBlock
    body: cst.IndentedBlock  # the loop's
    frame: Frame  # the function's (its values are worked out when first asked for)

    @property
    def statements(self) -> list[cst.BaseStatement]:
        return list(self.body.body)


@dataclass(frozen=True)
class _Outputs:
    """What the loop hands on: the lists it appends to or writes by index (stacked outputs),
    and how they are created before it and read after it."""

    flow: LoopFlow
    slots: list[SlotList]
    appends: Appends
    initializers: dict[str, cst.SimpleStatementLine]  # `out = []` of each appended list
    after_uses: AfterUses

    @property
    def lists(self) -> list[str]:
        return list(self.appends) + [slot.name for slot in self.slots]


def scan_edit(loop: cst.For, context: UnitContext) -> Edit | Refusal:
    """The lax.scan rewrite of `loop`, or why it is refused, in four steps: where the loop is,
    what it iterates over, what it writes out, what it carries; then the code."""
    site = _site(loop, context)
    if isinstance(site, Refusal):
        return site
    slots = slot_writes(
        site.statements, loop.target.value if isinstance(loop.target, cst.Name) else None
    )
    if isinstance(slots, Refusal):
        return slots
    slot_statements = {id(slot.statement) for slot in slots}
    # the body as the scan body runs it: each `out[i] = v` becomes a stacked output
    rest = site.body.with_changes(body=[s for s in site.statements if id(s) not in slot_statements])
    reads = [rest, *(slot.value for slot in slots)]
    shape = _loop_shape(loop, reads, context)
    if isinstance(shape, Refusal):
        return shape
    problem = forbidden(rest, context, allow_appends=True)
    if problem:
        return Refusal(
            f"the body has {problem}, which lax.scan cannot express; "
            "consider lax.while_loop or masking"
        )
    outputs = _outputs(loop, site, slots, context)
    if isinstance(outputs, Refusal):
        return outputs
    carries = _carries(loop, site, outputs, shape, reads, context)
    if isinstance(carries, Refusal):
        return carries
    return _scan(loop, site, outputs, shape, carries, context)


def _site(loop: cst.For, context: UnitContext) -> _Site | Refusal:
    """The loop's place, where the rewrite can replace it: a statement of its own in a block of a
    function, with an indented body and no `else`."""
    frame = context.frame
    if frame is None or not isinstance(frame.node, cst.FunctionDef):
        return Refusal("only loops directly inside a function are rewritten")
    if loop.orelse is not None or loop.asynchronous is not None:
        return Refusal("`for ... else` / `async for` loops are not rewritten")
    function = frame.node
    path = path_to(function.body, loop)
    block = path[-2] if len(path) >= 2 else None
    if not isinstance(block, cst.IndentedBlock):
        return Refusal("the loop shares its line with another statement")
    if not isinstance(loop.body, cst.IndentedBlock):
        return Refusal("one-line loop bodies are not rewritten")
    return _Site(function, path, block, loop.body, frame)


def _outputs(
    loop: cst.For, site: _Site, slots: list[SlotList], context: UnitContext
) -> _Outputs | Refusal:
    """The lists the loop fills, each created empty before it, never read inside it and only
    stacked after it (`jnp.stack(out)`)."""
    flow = LoopFlow.of(site.function, loop)
    for outer in site.path[:-1]:
        if isinstance(outer, (cst.For, cst.While)):
            # the next iteration of an enclosing loop runs its whole body after this loop
            flow.loaded_after |= names_in(outer)
    appends = _appends(site.statements)
    if isinstance(appends, Refusal):
        return appends
    slot_names = [slot.name for slot in slots]
    both = sorted(set(slot_names) & set(appends))
    if both:
        return Refusal(f"`{both[0]}` is appended to and written by index")
    receivers = [
        statement.body[0].value.func.value  # type: ignore[attr-defined]  # `out.append(v)`
        for statement, _ in appends.values()
    ]
    receivers += [
        slot.statement.body[0].targets[0].target.value  # type: ignore[attr-defined]  # `out[i] = v`
        for slot in slots
    ]
    body_loads = flow.body_loads_except(receivers)
    lists = list(appends) + slot_names
    for name in lists:
        if name in body_loads:
            return Refusal(f"the list `{name}` is read inside the loop")
    initializers = {}
    for name in appends:
        initializer = _list_initializer(site.block, loop, name)
        if initializer is None:
            return Refusal(f"`{name}` is not created as an empty list right before the loop")
        initializers[name] = initializer
    after_uses = _uses_after(site.function, loop, site.block, set(lists), context)
    if isinstance(after_uses, Refusal):
        return after_uses
    return _Outputs(flow, slots, appends, initializers, after_uses)


def _carries(
    loop: cst.For,
    site: _Site,
    outputs: _Outputs,
    shape: _Loop,
    reads: list[cst.CSTNode],
    context: UnitContext,
) -> list[str] | Refusal:
    """The names the loop carries from one iteration to the next, each bound before it to a
    value whose structure a scan carry can keep; the loop's own variables and index must stay
    what the rewrite makes of them (an element, a traced counter)."""
    flow, statements = outputs.flow, site.statements
    loop_variables = bound_by(loop.target)
    reassigned = loop_variables & set().union(*(stores(s) for s in statements))
    if reassigned:
        # its reads (`x[i]`, `out[i] = v`) would no longer be the element or the slot
        return Refusal(f"the loop variable `{sorted(reassigned)[0]}` is reassigned in the loop")
    if loop_variables & flow.loaded_after:
        return Refusal("the loop variable is read after the loop")
    carries = carried_names(statements, flow, set(outputs.lists) | loop_variables)
    for name in carries:
        if name not in flow.bound_before:
            return Refusal(f"`{name}` is first assigned inside the loop; bind it before the loop")
        if site.frame.values.name_kind(name) == Kind.CONTAINER:
            return Refusal(f"`{name}` is a Python container; a scan carry must keep its structure")
    if shape.counter is not None:
        static_use = next(
            filter(None, (static_index_use(n, shape.counter.name, context) for n in reads)), None
        )
        if static_use:
            return Refusal(
                f"the loop index `{shape.counter.name}` is used as a Python int ({static_use}); "
                "a scan carries it as a traced value"
            )
    for array in shape.arrays:
        refusal = unproven_array_refusal(array, "a scan", context)
        if refusal is not None:
            return refusal
    return carries


def _scan(
    loop: cst.For,
    site: _Site,
    outputs: _Outputs,
    shape: _Loop,
    carries: list[str],
    context: UnitContext,
) -> Edit | Refusal:
    """The edit: the loop replaced by the fastest form its dataflow allows, the lists' creation
    and stacking by the scan's outputs."""
    flow, statements, slots, appends = outputs.flow, site.statements, outputs.slots, outputs.appends
    taken = flow.all_names
    body_name = fresh_name("_scan_body", taken)
    spelling = JaxSpelling.of(context)
    names = {id(statement): name for name, (statement, _) in appends.items()}
    assemblies: list[cst.BaseStatement] = []
    for slot in slots:
        rows = fresh_name(f"{slot.name}_rows", taken)
        assembly = slot_assembly(slot, loop, site.block, rows, spelling.numpy, context)
        if isinstance(assembly, Refusal):
            return assembly
        names[id(slot.statement)] = rows
        assemblies.append(_statement(f"{slot.name} = {assembly}"))
    if assemblies and not _guarded(shape):
        # after no iteration a slot list is as created (and its kept slots could overlap)
        assemblies = [
            cst.If(
                test=cst.parse_expression(f"{names[id(slots[0].statement)]}.shape[0]"),
                body=cst.IndentedBlock(body=assemblies),
            )
        ]
    output_positions = {
        position: names[id(statement)]
        for position, statement in enumerate(statements)
        if id(statement) in names
    }
    slot_values = [slot.value for slot in slots]
    starts = {
        name: _carry_start(name, statements, shape, carries, context, slot_values)
        for name in carries
    }
    prepended = _prepends(appends)
    replacements = _list_replacements(outputs, shape, prepended, spelling)
    # the fastest form the loop's dataflow allows; verification accepts or refuses it, and is
    # never asked to choose between forms (SPEC §5)
    generated, form = _generate(
        body_name,
        carries,
        starts,
        output_positions,
        _rewrite_body(statements, shape),
        shape,
        taken,
        loop,
        spelling,
        first_in_block=site.block.body[0] is loop,
        prepended=prepended,
        assemblies=assemblies,
        fast_forms=FastForms(
            frozenset(flow.loaded_after & set(carries)),
            accelerator_forms(context.config.target, detected_backend()),
        ),
    )
    replacements[loop] = cst.FlattenSentinel(generated)
    lists = outputs.lists
    return Edit(
        replacements=replacements,
        description=f"Python loop → {form or 'jax.lax.scan'} ({len(carries)} carr"
        f"{'y' if len(carries) == 1 else 'ies'}, {len(lists)} stacked output"
        f"{'' if len(lists) == 1 else 's'})",
        imports=(ImportSpec("jax"),) if _mentions_jax(generated) else (),
        verify_target=context.verify_target(),
        # an associative scan's equations grow with log N: more than the loop's for a few
        # steps, flat beside its N (rules/JAX101.md, "Which form")
        require_fewer_eqns="associative_scan" not in module_of(generated).code,
        judge_run_time=True,
    )


def _list_replacements(
    outputs: _Outputs, shape: _Loop, prepended: set[str], spelling: JaxSpelling
) -> dict[cst.CSTNode, Replacement]:
    """`out = []` removed and `jnp.stack(out)` replaced by the scan's stacked output, where
    the loop runs at least once (a guarded loop keeps both for the case it does not)."""
    replacements: dict[cst.CSTNode, Replacement] = {}
    if _guarded(shape):
        return replacements
    for initializer in outputs.initializers.values():
        replacements[initializer] = cst.RemovalSentinel.REMOVE
    for call, rebinding in outputs.after_uses:
        listed = _listed(call.args[0].value)
        assert listed is not None  # `_uses_after` found a stacker of a list
        if listed.value not in outputs.appends:
            continue  # a slot list is rebuilt after the scan and stacked as written
        stacked = _stacked(call, prepended, spelling)
        if rebinding is not None and isinstance(stacked, cst.Name):
            replacements[rebinding] = cst.RemovalSentinel.REMOVE  # `ys = ys`
        else:
            replacements[call] = stacked
    return replacements


# -- recognising the loop -------------------------------------------------------------------------


def _loop_shape(loop: cst.For, reads: list[cst.CSTNode], context: UnitContext) -> _Loop | Refusal:
    """What the loop iterates over. `reads`: the parts of the body that read the index (the
    body without its slot writes `out[i] = v`, and their values)."""
    iterable = loop.iter
    shape = _Loop()
    if _is_array_name(iterable, context):
        shape.arrays = [iterable.value]
        shape.element_target = loop.target
        return shape
    if not isinstance(iterable, cst.Call):
        return Refusal(UNSUPPORTED_SHAPE)
    callee = context.resolve(iterable.func)
    arguments = [a.value for a in iterable.args]
    if any(a.star for a in iterable.args) or (
        callee != "builtins.zip" and any(a.keyword for a in iterable.args)
    ):
        return Refusal("loops over calls with keyword or starred arguments are not rewritten")
    if callee == "builtins.enumerate" and len(arguments) == 1:
        array = arguments[0]
        if not _is_array_name(array, context):
            return Refusal("only `enumerate(<array name>)` is rewritten")
        if not (isinstance(loop.target, cst.Tuple) and len(loop.target.elements) == 2):
            return Refusal("enumerate loops must unpack `i, v`")
        counter_target = loop.target.elements[0].value
        if not isinstance(counter_target, cst.Name):
            return Refusal("the enumerate index must be a plain name")
        shape.arrays = [array.value]
        shape.counter = _Counter(counter_target.value)
        shape.element_target = loop.target.elements[1].value
        return shape
    if callee == "builtins.reversed" and len(arguments) == 1:
        inner = arguments[0]
        if isinstance(inner, cst.Call) and context.resolve(inner.func) == "builtins.range":
            return _reversed_range(loop, inner, shape, context)
        if not _is_array_name(inner, context):
            return Refusal("only `reversed(<array name>)` and `reversed(range(...))` are rewritten")
        name = inner.value
        shape.arrays, shape.xs = [name], f"{name}[::-1]"
        shape.element_target = loop.target
        return shape
    if callee == "builtins.zip":
        positional = [a.value for a in iterable.args if not a.keyword]
        names = [a.value for a in positional if _is_array_name(a, context)]
        keywords = {a.keyword.value for a in iterable.args if a.keyword}
        if len(names) != 2 or len(positional) != 2 or keywords - {"strict"}:
            return Refusal("only `zip(x, y)` of two array names is rewritten")
        first, second = names
        shape.arrays = names
        # zip stops at the shorter array; scan needs equal lengths
        shape.xs = f"({first}[: {second}.shape[0]], {second}[: {first}.shape[0]])"
        shape.element_target = loop.target
        return shape
    if callee != "builtins.range":
        return Refusal(UNSUPPORTED_SHAPE)
    if not isinstance(loop.target, cst.Name):
        return Refusal("the loop index must be a plain name")
    index = loop.target.value
    simple = arguments[1:] if len(arguments) == 2 and _is_zero(arguments[0]) else arguments
    length_array = leading_length_of(simple[0], context) if len(simple) == 1 else None
    uses = IndexUses(index, context)
    for node in reads:
        walk(node, uses)
    offsets = {offset for _, offset in uses.rows}
    if length_array is not None and offsets <= {0}:
        # scan over the rows `x[i]` reads; an index also used otherwise (`i % 4`) is carried too
        shape.arrays = [length_array] + [a for a, _ in uses.rows if a != length_array]
        shape.rows = [(a, 0) for a in shape.arrays]
        shape.index = index
        if uses.other_use:
            shape.counter = _Counter(index)
        return shape
    step = 1
    if len(arguments) == 3:
        literal = int_literal(arguments[2])
        if literal is None or literal == 0:
            return Refusal("`range` with a step that is not an integer literal is not rewritten")
        step = literal
    code = cst.Module(body=[]).code_for_node
    start = int_literal(arguments[0]) if len(arguments) >= 2 else 0
    stop = code(arguments[1] if len(arguments) >= 2 else arguments[0])
    if step == 1 and start is not None and uses.rows and min(offsets) + start >= 0:
        # `x[i]`, `x[i - 1]` over range(a, b): scan over the slices x[a + c : b + c], so an
        # empty range scans empty slices
        shape.rows = uses.rows
        shape.arrays = [a for a, _ in uses.rows]
        shape.xs = _tuple_code([_row_slice(a, start + c, stop, c) for a, c in uses.rows])
        shape.index = index
        if uses.other_use:
            shape.counter = _Counter(index, str(start))
        return shape
    # any other index arithmetic, start or step: carry the index and index the arrays with it
    start_code = code(arguments[0]) if len(arguments) >= 2 else "0"
    shape.counter = _Counter(
        index, start_code, step, length=_trip_count(iterable, context), steps=code(iterable)
    )
    shape.rows = []
    return shape


def _reversed_range(
    loop: cst.For, iterable: cst.Call, shape: _Loop, context: UnitContext
) -> _Loop | Refusal:
    """`reversed(range(b))` / `reversed(range(a, b))`: the index counts down from `b - 1`.

    The trip count is the range's length; the body indexes the arrays with the traced counter,
    which JAX clamps at the ends as it clamps the loop's int index."""
    if not isinstance(loop.target, cst.Name):
        return Refusal("the loop index must be a plain name")
    arguments = iterable.args
    if any(a.keyword or a.star for a in arguments) or not 1 <= len(arguments) <= 2:
        return Refusal("only `reversed(range(b))` and `reversed(range(a, b))` are rewritten")
    code = cst.Module(body=[]).code_for_node
    stop = arguments[-1].value
    stop_code = code(stop)
    if not isinstance(stop, (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Integer)):
        stop_code = f"({stop_code})"
    shape.counter = _Counter(
        loop.target.value,
        f"{stop_code} - 1",
        -1,
        length=_trip_count(iterable, context),
        steps=f"{code(iterable)}[::-1]",
    )
    return shape


def _trip_count(iterable: cst.Call, context: UnitContext) -> str:
    """The length of `range(...)`, as code: `n` itself for `range(len(x))` / `range(x.shape[k])`
    (never negative), else `len(range(...))`."""
    code = cst.Module(body=[]).code_for_node
    if len(iterable.args) == 1:
        stop = iterable.args[0].value
        if (
            isinstance(stop, cst.Call) and context.resolve(stop.func) == "builtins.len"
        ) or _is_shape_entry(stop):
            return code(stop)
    return f"len({code(iterable)})"


def _is_shape_entry(node: cst.BaseExpression) -> bool:
    """Is `node` `x.shape[k]`?"""
    return (
        isinstance(node, cst.Subscript)
        and isinstance(node.value, cst.Attribute)
        and node.value.attr.value == "shape"
    )


def _row_slice(array: str, low: int, stop: str, offset: int) -> str:
    high = stop if not offset else f"{stop} {'+' if offset > 0 else '-'} {abs(offset)}"
    return f"{array}[{low} : {high}]" if low else f"{array}[: {high}]"


def unproven_array_refusal(name: str, form: str, context: UnitContext) -> Refusal | None:
    """Why `name` cannot be mapped or scanned over when it is an array only by assumption
    (`UnitContext.unproven_array`): a list or tuple of arrays is as likely, its elements may
    differ in shape, and `form` needs one array (stacking it fails, or changes the result)."""
    if not context.unproven_array(cst.Name(name)):
        return None
    return Refusal(
        f"`{name}` may be a list or tuple of arrays, whose elements can differ in shape "
        "(nothing shows it is one array: an annotation, `.shape`, a `jnp` call on it, a "
        f"caller passing one); {form} needs one array: annotate it `jax.Array` or convert it "
        "with `jnp.asarray` first"
    )


def _is_array_name(node: cst.BaseExpression, context: UnitContext) -> TypeGuard[cst.Name]:
    return isinstance(node, cst.Name) and context.kind(node) == Kind.ARRAY


def static_index_use(body: cst.CSTNode, index: str, context: UnitContext) -> str | None:
    """Where a carried index would need to be a Python int, or None.

    A traced counter works in arithmetic, in an index `x[i]` / `.at[i]` and in JAX functions;
    not as a slice bound, in a Python builtin (`range`, `int`, `len`) or passed to other code.
    """
    finder = _StaticIndexUse(index, context)
    walk(body, finder)
    return finder.found


class _StaticIndexUse(cst.CSTVisitor):
    def __init__(self, index: str, context: UnitContext) -> None:
        super().__init__()
        self.index = index
        self.context = context
        self.found: str | None = None

    def visit_Slice(self, node: cst.Slice) -> bool:
        if self.index in names_in(node):
            self.found = "a slice bound"
        return False

    def visit_Call(self, node: cst.Call) -> None:
        if self.found or not any(self._passed(a.value) for a in node.args):
            return
        qualified = self.context.resolve(node.func) or ""
        at_update = isinstance(node.func, cst.Attribute) and isinstance(
            node.func.value, cst.Subscript
        )  # `x.at[i].set(v)`
        if not (qualified.startswith("jax.") or at_update):
            self.found = f"an argument of `{cst.Module(body=[]).code_for_node(node.func)}`"

    def _passed(self, argument: cst.CSTNode) -> bool:
        """Does the index reach the callee itself, not only as an array's index (`f(x[i])`
        passes the row, which a scan hands over as its element)?"""
        if isinstance(argument, cst.Subscript) and _is_array_name(argument.value, self.context):
            return False  # the index inside (`x[i]`, `x[i + 1]`) is checked by visit_Subscript
        if isinstance(argument, cst.Name):
            return argument.value == self.index
        return any(self._passed(child) for child in argument.children)

    def visit_Subscript(self, node: cst.Subscript) -> None:
        base = node.value
        if (
            not self.found
            and isinstance(base, cst.Name)
            and self.context.kind(base) != Kind.ARRAY
            and self.index in names_in(node.slice[0])
        ):
            self.found = f"an index into `{base.value}`, not an array"


def _is_zero(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Integer) and node.evaluated_value == 0


def leading_length_of(node: cst.BaseExpression, context: UnitContext) -> str | None:
    """`len(x)` or `x.shape[0]` with `x` an array name → "x"."""
    if (
        isinstance(node, cst.Call)
        and context.resolve(node.func) == "builtins.len"
        and len(node.args) == 1
    ):
        array = node.args[0].value
    elif (
        isinstance(node, cst.Subscript)
        and isinstance(node.value, cst.Attribute)
        and node.value.attr.value == "shape"
        and len(node.slice) == 1
        and isinstance(node.slice[0].slice, cst.Index)
        and _is_zero(node.slice[0].slice.value)
    ):
        array = node.value.value
    else:
        return None
    if isinstance(array, cst.Name) and context.kind(array) == Kind.ARRAY:
        return array.value
    return None


class IndexUses(cst.CSTVisitor):
    """Where the loop index appears: only as the leading index of array names is allowed."""

    def __init__(self, index: str, context: UnitContext) -> None:
        super().__init__()
        self.index = index
        self.context = context
        self.rows: list[tuple[str, int]] = []  # (array, c) of each `array[i + c]`
        self.other_use = False

    def visit_Subscript(self, node: cst.Subscript) -> bool:
        offset = leading_offset(node, self.index)
        if (
            offset is not None
            and isinstance(node.value, cst.Name)
            and self.context.kind(node.value) == Kind.ARRAY
        ):
            if (node.value.value, offset) not in self.rows:
                self.rows.append((node.value.value, offset))
            for element in node.slice[1:]:
                walk(element, self)
            return False
        return True

    def visit_Name(self, node: cst.Name) -> None:
        if node.value == self.index:
            self.other_use = True


def _leading_index_name(node: cst.Subscript) -> str | None:
    first = node.slice[0].slice
    if isinstance(first, cst.Index) and isinstance(first.value, cst.Name):
        return first.value.value
    return None


# -- data flow ------------------------------------------------------------------------------------


def _appends(
    statements: list[cst.BaseStatement],
) -> dict[str, tuple[cst.SimpleStatementLine, cst.BaseExpression]] | Refusal:
    """Top-level `out.append(e)` / `out.insert(0, e)` statements: list name → (statement,
    the expression added)."""
    found: dict[str, tuple[cst.SimpleStatementLine, cst.BaseExpression]] = {}
    for statement in statements:
        if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
            continue
        expression = statement.body[0]
        if not isinstance(expression, cst.Expr) or not isinstance(expression.value, cst.Call):
            continue
        call = expression.value
        method = _adding_method(call)
        if method is None:
            continue
        assert isinstance(call.func, cst.Attribute)  # `_adding_method` found a method
        receiver = call.func.value
        if not isinstance(receiver, cst.Name) or not _adds_one_value(call, method):
            return Refusal(
                "only `name.append(value)` and `name.insert(0, value)` statements are turned "
                "into scan outputs"
            )
        if receiver.value in found:
            return Refusal(f"`{receiver.value}` is added to more than once per iteration")
        found[receiver.value] = (statement, call.args[-1].value)
    top_level = {id(statement) for statement, _ in found.values()}
    nested = _NestedAppends()
    for statement in statements:
        if id(statement) not in top_level:
            walk(statement, nested)
    if nested.found:
        return Refusal(
            "a list is appended to conditionally (use jnp.where masks and fixed-size outputs)"
        )
    return found


def _adding_method(call: cst.Call) -> str | None:
    """`append` / `insert` of a `name.append(...)` / `name.insert(...)` call, else None."""
    if isinstance(call.func, cst.Attribute) and call.func.attr.value in ADDING_METHODS:
        return call.func.attr.value
    return None


def _adds_one_value(call: cst.Call, method: str) -> bool:
    """`append(v)`, or `insert(0, v)`: a prepend, which lists the values in reverse order."""
    if any(a.keyword or a.star for a in call.args):
        return False
    if method == "append":
        return len(call.args) == 1
    return len(call.args) == 2 and int_literal(call.args[0].value) == 0


def _prepends(
    statements: dict[str, tuple[cst.SimpleStatementLine, cst.BaseExpression]],
) -> set[str]:
    """The lists of `_appends`' result that are added to with `insert(0, v)`."""
    found = set()
    for name, (statement, _) in statements.items():
        call = statement.body[0].value  # type: ignore[attr-defined]  # an append's Expr
        if _adding_method(call) == "insert":
            found.add(name)
    return found


class _NestedAppends(cst.CSTVisitor):
    """Finds `.append(...)` / `.insert(...)` calls below the top level of the body (conditional
    appends)."""

    def __init__(self) -> None:
        super().__init__()
        self.found = False

    def visit_Call(self, node: cst.Call) -> None:
        self.found |= _adding_method(node) is not None


def _list_initializer(
    block: cst.IndentedBlock, loop: cst.For, name: str
) -> cst.SimpleStatementLine | None:
    """The `name = []` statement before the loop, with nothing else touching `name` in between."""
    statements = list(block.body)
    position = next(i for i, s in enumerate(statements) if s is loop)
    for statement in reversed(statements[:position]):
        if name not in names_in(statement):
            continue
        assign = single_assignment(statement)
        if (
            assign is not None
            and isinstance(assign.targets[0].target, cst.Name)
            and assign.targets[0].target.value == name
            and isinstance(assign.value, cst.List)
            and not assign.value.elements
        ):
            assert isinstance(statement, cst.SimpleStatementLine)  # single_assignment found one
            return statement
        return None
    return None


def _uses_after(
    function: cst.FunctionDef,
    loop: cst.For,
    block: cst.IndentedBlock,
    lists: set[str],
    context: UnitContext,
) -> list[tuple[cst.Call, cst.SimpleStatementLine | None]] | Refusal:
    """The `jnp.stack(out)`-style calls after the loop, each with the statement it is in when
    that rebinds `out` to it; any other use of `out` is refused."""
    finder = _AfterUses(loop, block, lists, context)
    walk(function.body, finder)
    if finder.problem:
        return Refusal(finder.problem)
    return [(call, finder.rebindings.get(id(call))) for call in finder.calls]


class _AfterUses(cst.CSTVisitor):
    def __init__(
        self, loop: cst.For, block: cst.IndentedBlock, lists: set[str], context: UnitContext
    ) -> None:
        super().__init__()
        self.loop = loop
        self.block = block
        self.lists = lists
        self.context = context
        self.after = False
        self.calls: list[cst.Call] = []
        self.covered: set[int] = set()
        self.problem: str | None = None
        self._rebound: str | None = None
        self.rebindings: dict[int, cst.SimpleStatementLine] = {}  # by the id of their call

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        # `out = jnp.stack(out)` in the loop's own block: from there on `out` is not the list
        if not self.after or not any(node is s for s in self.block.body) or len(node.body) != 1:
            return
        assign = node.body[0]
        if not (
            isinstance(assign, cst.Assign)
            and len(assign.targets) == 1
            and isinstance(assign.targets[0].target, cst.Name)
            and assign.targets[0].target.value in self.lists
            and isinstance(assign.value, cst.Call)
            and assign.value.args
        ):
            return
        listed = _listed(assign.value.args[0].value)
        if listed is not None and listed.value == assign.targets[0].target.value:
            self.covered.add(id(assign.targets[0].target))  # the stacker call is checked below
            self._rebound = listed.value
            self.rebindings[id(assign.value)] = node

    def leave_SimpleStatementLine(self, original_node: cst.SimpleStatementLine) -> None:
        if self._rebound is not None:
            self.lists = self.lists - {self._rebound}
            self._rebound = None

    def visit_For(self, node: cst.For) -> bool:
        return node is not self.loop

    def leave_For(self, original_node: cst.For) -> None:
        if original_node is self.loop:
            self.after = True

    def visit_Call(self, node: cst.Call) -> None:
        if not self.after or not node.args or node.args[0].keyword or node.args[0].star:
            return
        listed = _listed(node.args[0].value)
        if listed is None or listed.value not in self.lists:
            return
        qualified = self.context.resolve(node.func) or ""
        if len(node.args) == 1 and qualified in STACKERS or _stack_axis(node, qualified):
            self.calls.append(node)
            self.covered.add(id(listed))
        elif qualified == "builtins.len" and len(node.args) == 1:
            self.covered.add(id(listed))

    def visit_Name(self, node: cst.Name) -> None:
        if self.after and node.value in self.lists and id(node) not in self.covered:
            self.problem = (
                f"`{node.value}` is used after the loop other than in jnp.stack/jnp.array/len"
            )


def _stack_axis(call: cst.Call, qualified: str) -> int | None:
    """k of `jnp.stack(out, axis=k)` / `jnp.stack(out, k)` with a literal k, else None."""
    if qualified != "jax.numpy.stack" or len(call.args) != 2:
        return None
    axis = call.args[1]
    if axis.star or (axis.keyword is not None and axis.keyword.value != "axis"):
        return None
    return int_literal(axis.value)


def _listed(node: cst.BaseExpression) -> cst.Name | None:
    """`out` of `out` or `out[::-1]` (a stacker's or `len`'s argument)."""
    if isinstance(node, cst.Name):
        return node
    if _is_reversal(node) and isinstance(node.value, cst.Name):
        return node.value
    return None


def _is_reversal(node: cst.BaseExpression) -> TypeGuard[cst.Subscript]:
    """Is `node` `something[::-1]`?"""
    if not (isinstance(node, cst.Subscript) and len(node.slice) == 1):
        return False
    part = node.slice[0].slice
    return (
        isinstance(part, cst.Slice)
        and part.lower is None
        and part.upper is None
        and part.step is not None
        and int_literal(part.step) == -1
    )


def _stacked(call: cst.Call, reversed_lists: set[str], spelling: JaxSpelling) -> cst.BaseExpression:
    """What replaces `jnp.stack(out, …)`: scan's stacked `out` (the iterations in order),
    reversed when the list holds them the other way (`out[::-1]`, or filled by `insert(0, v)`,
    but not both), its new axis moved if asked."""
    listed = call.args[0].value
    listed_name = _listed(listed)
    assert listed_name is not None  # `_uses_after` found a stacker of a list
    name = listed_name.value
    stacked = f"{name}[::-1]" if _is_reversal(listed) != (name in reversed_lists) else name
    axis = _stack_axis(call, "jax.numpy.stack")
    if not axis:
        return cst.parse_expression(stacked)
    return cst.parse_expression(f"{spelling.numpy}.moveaxis({stacked}, 0, {axis})")


# -- code generation ------------------------------------------------------------------------------


class ReplaceIndexed(cst.CSTTransformer):
    """`x[i]` → `x_i`, `x[i, j]` → `x_i[j]`."""

    def __init__(self, index: str, element_names: dict[tuple[str, int], str]) -> None:
        super().__init__()
        self.index = index
        self.element_names = element_names

    def leave_Subscript(
        self, original_node: cst.Subscript, updated_node: cst.Subscript
    ) -> cst.BaseExpression:
        offset = leading_offset(updated_node, self.index)
        if offset is None or not isinstance(updated_node.value, cst.Name):
            return updated_node
        element = self.element_names.get((updated_node.value.value, offset))
        if element is None:
            return updated_node
        rest = list(updated_node.slice[1:])
        if not rest:
            return cst.Name(element)
        rest[-1] = rest[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        return updated_node.with_changes(value=cst.Name(element), slice=rest)


def _rewrite_body(statements: list[cst.BaseStatement], shape: _Loop) -> list[cst.BaseStatement]:
    if shape.index is not None:
        taken: set[str] = set()
        for statement in statements:
            taken |= names_in(statement)
        for array, offset in shape.rows:
            suffix = f"_{'next' if offset > 0 else 'prev'}{abs(offset) if abs(offset) > 1 else ''}"
            base = f"{array}_{shape.index}{suffix if offset else ''}"
            shape.element_names[array, offset] = fresh_name(base, taken)
            taken.add(shape.element_names[array, offset])
        replacer = ReplaceIndexed(shape.index, shape.element_names)
        statements = [visited_statement(s, replacer) for s in statements]
    return statements


def _statement(text: str) -> cst.BaseStatement:
    return cst.parse_statement(text)


@dataclass
class _BodyParameters:
    """The scan body's two parameters, and the statements that unpack them into the loop's
    names (the carries, then the elements)."""

    carried: list[str]  # the counter (a loop index carried as a Python int) and the carries
    carry: str
    element: str
    unpack_carry: list[cst.BaseStatement]
    unpack_elements: list[cst.BaseStatement]


def _body_parameters(shape: _Loop, carries: list[str], taken: set[str]) -> _BodyParameters:
    # a loop index is a carried Python-int counter: weakly typed like the loop's int, so
    # `i * v` keeps v's dtype (an int32 `arange` would promote float16 data to float32)
    index = shape.counter.name if shape.counter else None
    carried = ([index] if index else []) + carries
    unpack_carry: list[cst.BaseStatement] = []
    if not carried:
        carry_param = fresh_name("carry", taken)
    elif len(carried) == 1:
        carry_param = carried[0]
    else:
        carry_param = fresh_name("carry", taken)
        unpack_carry.append(_statement(f"{', '.join(carried)} = {carry_param}"))
    unpack_elements: list[cst.BaseStatement] = []
    if shape.index is not None:
        names = [shape.element_names[row] for row in shape.rows]
        if len(names) == 1:
            element_param = names[0]
        else:
            element_param = fresh_name("elements", taken)
            unpack_elements.append(_statement(f"{', '.join(names)} = {element_param}"))
    elif shape.element_target is None:
        element_param = "_"  # nothing scanned over: the body indexes with the counter
    else:
        target = shape.element_target
        if isinstance(target, cst.Name):
            element_param = target.value
        else:
            element_param = fresh_name("element", taken)
            target_code = cst.Module(body=[]).code_for_node(target)
            unpack_elements.append(_statement(f"{target_code} = {element_param}"))
    return _BodyParameters(carried, carry_param, element_param, unpack_carry, unpack_elements)


def _generate(
    body_name: str,
    carries: list[str],
    starts: dict[str, CarryStart],
    outputs: dict[int, str],
    statements: list[cst.BaseStatement],
    shape: _Loop,
    taken: set[str],
    loop: cst.For,
    spelling: JaxSpelling,
    first_in_block: bool,
    prepended: set[str],
    assemblies: list[cst.BaseStatement],
    fast_forms: FastForms,
) -> tuple[list[cst.BaseStatement], str | None]:
    """The loop without a scan where its dataflow allows (`_fast_form`), and the form's name;
    else the scan body's definition and the statements running it, and None.
    `outputs`: the positions of the body's appends and slot writes, with the name scan stacks
    each value into; `assemblies`: statements rebuilding slot lists from their stacked rows."""
    taken = set(taken)
    parameters = _body_parameters(shape, carries, taken)
    xs = _xs_code(shape)
    fast = _fast_form(
        shape,
        carries,
        outputs,
        statements,
        parameters.element,
        parameters.unpack_elements,
        xs,
        fast_forms,
        taken,
        spelling,
        loop,
        first_in_block,
        prepended,
        assemblies,
    )
    if fast is not None:
        return fast
    definition = _scan_body(body_name, parameters, outputs, statements, shape, taken, loop)
    definition = definition.with_changes(leading_lines=_loop_leading_lines(loop, first_in_block))
    counter, carried = shape.counter, parameters.carried
    index = counter.name if counter else None
    start = counter.start if counter else ""
    init = _tuple_code([start if n == index else n for n in carried] or ["None"])
    casts = _start_casts(body_name, carried, starts, shape, xs, init, taken, spelling)
    ignored = fresh_name("_", taken) if index else ""
    carry_target = _tuple_code(
        [ignored if n == index else n for n in carried] or ["_"], parenthesize=len(carried) > 1
    )
    lists = list(outputs.values())
    ys_target = _tuple_code(lists, parenthesize=len(lists) > 1) if lists else "_"
    length = f", length={counter.length}" if counter and counter.length else ""
    call = _statement(
        f"{carry_target}, {ys_target} = {spelling.scan}({body_name}, {init}, {xs}{length})"
    )
    after_def = _guard(shape, [*casts, call, *_after_loop(shape, outputs, prepended, assemblies)])
    after_def[0] = after_def[0].with_changes(leading_lines=[cst.EmptyLine(indent=False)])
    return [definition, *after_def], None


def _scan_body(
    body_name: str,
    parameters: _BodyParameters,
    outputs: dict[int, str],
    statements: list[cst.BaseStatement],
    shape: _Loop,
    taken: set[str],
    loop: cst.For,
) -> cst.FunctionDef:
    """`def body(carry, x): ...; return carry, ys`: the loop's statements, each append or slot
    write turned into a `ys` output; its value is copied to a temporary only when a later
    statement of the body rebinds a name it reads."""
    ys: list[str] = []
    body: list[cst.BaseStatement] = [*parameters.unpack_carry, *parameters.unpack_elements]
    comments: list[cst.EmptyLine] = []  # above outputs returned directly: kept above `return`
    for position, statement in enumerate(statements):
        if position not in outputs:
            body.append(statement)
            continue
        name = outputs[position]
        assert isinstance(statement, cst.SimpleStatementLine)  # an append or a slot write
        added = statement.body[0]
        # `out.append(v)` / `out.insert(0, v)` / `out[i] = v`, rows already replaced
        value = (
            added.value
            if isinstance(added, cst.Assign)
            # else an append or an insert: an expression statement of a call
            else cast(cst.Call, cast(cst.Expr, added).value).args[-1].value
        )
        value_code = cst.Module(body=[]).code_for_node(value)
        rebound_later = set().union(*(stores(s) for s in statements[position + 1 :]))
        if not (names_in(value) & rebound_later):
            ys.append(value_code)
            if any(line.comment for line in statement.leading_lines):
                comments += statement.leading_lines
        else:
            temporary = fresh_name(f"{name}_item", taken)
            body.append(
                _statement(f"{temporary} = {value_code}").with_changes(
                    leading_lines=statement.leading_lines
                )
            )
            ys.append(temporary)
    counter = shape.counter
    index = counter.name if counter else None
    step = f"{index} + {counter.step}" if counter and counter.step > 0 else ""
    step = step or (f"{index} - {-counter.step}" if counter else "")
    carry_out = _tuple_code([step if n == index else n for n in parameters.carried] or ["None"])
    ys_out = _tuple_code(ys) if ys else "None"
    body.append(_statement(f"return {carry_out}, {ys_out}").with_changes(leading_lines=comments))
    assert isinstance(loop.body, cst.IndentedBlock)  # scan_edit refused one-line bodies
    return cst.FunctionDef(
        name=cst.Name(body_name),
        params=cst.Parameters(
            params=[cst.Param(cst.Name(parameters.carry)), cst.Param(cst.Name(parameters.element))]
        ),
        body=cst.IndentedBlock(body=body, header=loop.body.header),  # the `for` line's comment
    )


def _loop_leading_lines(loop: cst.For, first_in_block: bool) -> list[cst.EmptyLine]:
    """The loop's leading lines for the first generated statement, a blank line added."""
    leading = list(loop.leading_lines)
    if not first_in_block and not (leading and not leading[0].comment):
        leading.insert(0, cst.EmptyLine(indent=False))
    return leading


def _after_loop(
    shape: _Loop,
    outputs: dict[int, str],
    prepended: set[str],
    assemblies: list[cst.BaseStatement],
) -> list[cst.BaseStatement]:
    """What follows the scan: prepended lists put in order (inside the guard), slot lists."""
    reversals = [
        _statement(f"{name} = {name}[::-1]")
        for name in outputs.values()
        if _guarded(shape) and name in prepended
    ]
    return [*reversals, *assemblies]


def _guard(shape: _Loop, statements: list[cst.BaseStatement]) -> list[cst.BaseStatement]:
    length = shape.counter.length if shape.counter is not None else None
    if length is None:  # not `_guarded(shape)`
        return statements
    return [
        cst.If(
            test=cst.parse_expression(length),
            body=cst.IndentedBlock(body=statements),
        )
    ]


def _fast_form(
    shape: _Loop,
    carries: list[str],
    outputs: dict[int, str],
    statements: list[cst.BaseStatement],
    element_param: str,
    element_prologue: list[cst.BaseStatement],
    xs: str,
    fast_forms: FastForms,
    taken: set[str],
    spelling: JaxSpelling,
    loop: cst.For,
    first_in_block: bool,
    prepended: set[str],
    assemblies: list[cst.BaseStatement],
) -> tuple[list[cst.BaseStatement], str] | None:
    """The loop without a scan where its dataflow allows (`loop_forms`), and its form."""
    counter = None
    if shape.counter is not None:
        length = shape.counter.length
        if length is None and shape.xs is None and shape.arrays:
            length = f"{shape.arrays[0]}.shape[0]"
        if length is None:
            return None
        start, step = shape.counter.start, shape.counter.step
        steps: tuple[str, ...] = (
            f"{spelling.numpy}.arange({length})",
            # 0, 1, …, n - 1 typed as the loop's Python ints are, weakly (`jnp.arange` is
            # int32: `gamma ** t * r` would be float32 for bfloat16 `r`); vmap keeps it weak
            f"({spelling.lax}.cumsum({spelling.numpy}.broadcast_to(1, ({length},))) - 1)",
        )
        if abs(step) != 1:
            steps = tuple(f"{abs(step)} * {values}" for values in steps)
        if start != "0" or step < 0:
            steps = tuple(f"{start} {'+' if step > 0 else '-'} {values}" for values in steps)
        int_values, weak_values = steps
        counter = Counter(shape.counter.name, int_values, weak_values, steps=shape.counter.steps)
    model = StepModel(
        statements=statements,
        carries=carries,
        outputs=outputs,
        element_param=element_param,
        element_prologue=element_prologue,
        xs=None if xs == "None" else xs,
        counter=counter,
        needed_after=fast_forms.needed_after,
    )
    written = vectorized_statements(model, set(taken), spelling, fast_forms.accelerator)
    if written is None or not written[0]:
        return None  # (nothing to write: the loop computes nothing read after it)
    fast, form = written
    first = next((i for i, s in enumerate(fast) if isinstance(s, cst.FunctionDef)), None)
    if first is not None:  # keeps the `for` line's comment, as the scan body does
        definition = fast[first]
        assert isinstance(definition, cst.FunctionDef)  # (found so above)
        assert isinstance(loop.body, cst.IndentedBlock)  # scan_edit refused one-line bodies
        fast[first] = definition.with_changes(
            body=definition.body.with_changes(header=loop.body.header)
        )
    placed = _guard(shape, [*fast, *_after_loop(shape, outputs, prepended, assemblies)])
    placed[0] = placed[0].with_changes(leading_lines=_loop_leading_lines(loop, first_in_block))
    return placed, form


def _guarded(shape: _Loop) -> bool:
    """Does the scan run only when the trip count is not 0 (`if len(x): … lax.scan(…)`)?

    So when the body reads arrays with the traced counter: JAX raises at trace time on a traced
    index into an empty axis, and a scan traces its body even for no iteration, where the loop
    read nothing. The trip count is static at trace time. With the guard the lists are kept as
    created and the stackers after the loop as written: for no iteration the carries and the
    empty lists are what the loop left; otherwise the lists are scan's stacked arrays, which
    `jnp.stack` / `jnp.array` / `len` treat as the sequences of their rows."""
    return shape.counter is not None and shape.counter.length is not None


def _mentions_jax(statements: list[cst.BaseStatement]) -> bool:
    """Does generated code refer to the name `jax` (so `import jax` is needed, not an alias)?"""
    return "jax" in names_in(module_of(statements))


def _tuple_code(items: list[str], parenthesize: bool = True) -> str:
    if len(items) == 1:
        return items[0]
    joined = ", ".join(items)
    return f"({joined})" if parenthesize else joined


def _start_casts(
    body_name: str,
    carried: list[str],
    starts: dict[str, CarryStart],
    shape: _Loop,
    xs: str,
    init: str,
    taken: set[str],
    spelling: JaxSpelling,
) -> list[cst.BaseStatement]:
    """Statements giving each carry the type its first update gives it (see `_carry_start`)."""
    numpy = spelling.numpy
    statements = [
        _statement(
            f"{name} = {numpy}.zeros({start.array}.shape[1:], "
            f"{numpy}.result_type({name}, {start.array}.dtype)) + {name}"
        )
        for name, start in starts.items()
        if start.how == "element"
    ]
    stepped = [name for name, start in starts.items() if start.how.startswith("one_step")]
    if not stepped:
        return statements
    structs = _tuple_code(
        [f"{spelling.jax}.ShapeDtypeStruct({a}.shape[1:], {a}.dtype)" for a in shape.arrays]
        or ["None"]
    )
    types = fresh_name(f"{stepped[0]}_type" if len(carried) == 1 else "carry_types", taken)
    statements.append(
        _statement(f"{types} = {spelling.jax}.eval_shape({body_name}, {init}, {structs})[0]")
    )
    # One carry's type can reach another a step later (`pos = pos + vel` after `vel` became a
    # row): with n carries whose type may change, the types settle within n steps.
    for _ in range(min(len(stepped), MAX_TYPE_STEPS) - 1):
        statements.append(
            _statement(f"{types} = {spelling.jax}.eval_shape({body_name}, {types}, {structs})[0]")
        )
    for name in stepped:
        like = types if len(carried) == 1 else f"{types}[{carried.index(name)}]"
        if starts[name].how == "one_step":
            cast = f"{numpy}.broadcast_to({numpy}.asarray({name}, {like}.dtype), {like}.shape)"
        else:  # widen only: a narrower type would change the start value
            widest = f"{numpy}.promote_types({numpy}.result_type({name}), {like}.dtype)"
            cast = f"{numpy}.asarray({name}, {widest})"
        statements.append(_statement(f"{name} = {cast}"))
    return statements


def _xs_code(shape: _Loop) -> str:
    if shape.xs is not None:
        return shape.xs
    if not shape.arrays:
        return "None"
    # the loop runs len(first) times and only reads the others' first rows: scan needs equal
    # lengths, so the other arrays are cut to the loop's length
    first, *others = shape.arrays
    return _tuple_code([first, *(f"{other}[: {first}.shape[0]]" for other in others)])


# -- carry starts ---------------------------------------------------------------------------------

_STEP_FUNCTIONS = frozenset(
    f"jax.numpy.{name}"
    for name in (
        "add",
        "subtract",
        "multiply",
        "divide",
        "true_divide",
        "maximum",
        "minimum",
        "fmax",
        "fmin",
        "logaddexp",
    )
)


@dataclass(frozen=True)
class CarryStart:
    """How a carry enters scan.

    `as_written`: unchanged. Exact when the carry's type does not change in the loop; when it
    does, scan raises its carry-type error and verification refuses the rewrite.
    `element` / `one_step`: cast to the type the first iteration gives it. Only for a carry the
    body reads solely as an operand of elementwise operations (`+ - * / // % **`, unary `-`,
    `jnp.tanh`, `jnp.maximum`…): JAX converts operands to the common dtype and broadcasts them
    before such an operation, so casting the start value first computes the same values (up to
    integer wrap-around in the first iteration). The type is `result_type(c, x.dtype)` over
    `x.shape[1:]` when every update is `c ⊕= x[i]` (`element`), else what one abstract step of
    the body returns (`one_step`: `jax.eval_shape` on the element's ShapeDtypeStruct, which also
    works for an empty axis).
    The left operand of `@` counts as elementwise: `h @ W` treats h's leading axes as a batch,
    so an RNN state `h` of shape (H,) broadcast to the (B, H) its first step makes (batched
    rows) gives the same rows.
    `one_step_dtype`: the carry is also a contracted operand (`W @ h`, `jnp.dot`), which
    promotes but does not broadcast: only the dtype is cast, never narrowed; a change of shape
    still makes scan raise.
    """

    how: Literal["as_written", "element", "one_step", "one_step_dtype"]
    array: str = ""


def _carry_start(
    name: str,
    statements: list[cst.BaseStatement],
    shape: _Loop,
    carries: list[str],
    context: UnitContext,
    rows: list[cst.BaseExpression],
) -> CarryStart:
    updates = UpdateFinder(name)
    reads = CarryReads(name, context, rows)
    for statement in statements:
        walk(statement, updates)
        walk(statement, reads)
    if not updates.found or reads.other_use:
        return CarryStart("as_written")
    if reads.contracted:
        return CarryStart("one_step_dtype")
    steps = [_step_operand(update, name, context) for update in updates.found]
    elements = {_element_array(step, shape) if step is not None else None for step in steps}
    known = [element for element in elements if element is not None]
    if len(elements) == 1 and known:  # one element array, for every update
        return CarryStart("element", known[0])
    moving = (set(carries) - {name}) | _element_names(shape)
    values = [assigned_value(update) for update in updates.found]
    if any(v is None or names_in(v) & moving or context.holds_traced(v) for v in values):
        return CarryStart("one_step")
    return CarryStart("as_written")  # static steps (`k = k + 1`): the type cannot change


def _step_operand(
    update: cst.CSTNode, name: str, context: UnitContext
) -> cst.BaseExpression | None:
    """`e` of `c ⊕= e`, `c = c ⊕ e`, `c = e ⊕ c` or `c = jnp.maximum(c, e)`; else None."""
    if isinstance(update, cst.AugAssign):
        if isinstance(update.target, cst.Name) and isinstance(update.operator, STEP_AUGMENTED):
            return _without(update.value, name)
        return None
    if not (
        isinstance(update, cst.Assign)
        and len(update.targets) == 1
        and isinstance(update.targets[0].target, cst.Name)
    ):
        return None
    value = update.value
    if isinstance(value, cst.BinaryOperation) and isinstance(value.operator, STEP_OPERATORS):
        pair = (value.left, value.right)
    elif (
        isinstance(value, cst.Call)
        and context.resolve(value.func) in _STEP_FUNCTIONS
        and len(value.args) == 2
        and not any(a.keyword or a.star for a in value.args)
    ):
        pair = (value.args[0].value, value.args[1].value)
    else:
        return None
    for this, other in (pair, pair[::-1]):
        if isinstance(this, cst.Name) and this.value == name:
            return _without(other, name)
    return None


def _without(expression: cst.BaseExpression, name: str) -> cst.BaseExpression | None:
    return None if name in names_in(expression) else expression


def _element_array(step: cst.BaseExpression, shape: _Loop) -> str | None:
    """The array whose element `step` is exactly (`x[i]`, or `v` of `for v in x`), if any."""
    if shape.index is not None:
        if (
            isinstance(step, cst.Subscript)
            and isinstance(step.value, cst.Name)
            and step.value.value in shape.arrays
            and len(step.slice) == 1
            and _leading_index_name(step) == shape.index
        ):
            return step.value.value
        return None
    target = shape.element_target
    if (
        len(shape.arrays) == 1
        and isinstance(target, cst.Name)
        and isinstance(step, cst.Name)
        and step.value == target.value
    ):
        return shape.arrays[0]
    return None


def _element_names(shape: _Loop) -> set[str]:
    """Names that hold (parts of) the current element, or the loop index, inside the body."""
    names = {shape.counter.name} if shape.counter else set()
    if shape.index is not None:
        names.add(shape.index)
    if shape.element_target is not None:
        names |= bound_by(shape.element_target)
    return names
