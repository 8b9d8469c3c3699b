"""The fastest form of a loop the scan rewrite has modelled (rules/JAX101.md, "Which form").

`lax.scan` runs its body once per step, one after another: on an accelerator each step is a
launch, and a scan of 10,000 steps of a sum ran 32× slower than `jnp.cumsum` on a TPU v5e
(bench/results/fix_runtime_tpu.md). Most loops are not sequential at all. This module reads the
scan body's dataflow (straight-line statements only) and, where it allows, writes the loop as
whole-array operations instead:

- no carry (independent iterations): `jax.vmap` of the body over the scanned rows;
- a carry updated once per step from terms no carry reaches (`e`, `a`, `b`, `k` below):
  `c = c + e` / `c += e` / `c -= e` → the final value `c + jnp.sum(E, axis=0)`, the per-step
  values `c + jnp.cumsum(E, axis=0)`; `c = c * e` / `c *= e` → `jnp.prod` / `jnp.cumprod`;
  `c = jnp.maximum(c, e)` (or `minimum`) → `jnp.max` / `lax.cummax`; `c = c.at[k].add(e)` →
  one scatter-add `c.at[K].add(E)`; `c = e` → the last term; `c = a * c + b` (any product with
  `c` one factor, either order of the sum) → the per-step values by `lax.associative_scan` of
  the affine maps `x ↦ a·x + b`, on accelerators only: on CPU a sequential scan beats it
  (bench/results/fix_runtime.md);
- statements reading a carry after its update compute outputs: a second `vmap` over the
  per-step values;
- rows the body reads by the loop counter (`x[t]`, `x[t + 1]`) are read for all steps at once,
  a slice where every index is in bounds (known at trace time), else gathered as the loop reads
  them (`_row_reads`): a gather per read made a GAE fix 2.4× slower than a slice on the TPU.

Everything else keeps the scan: a carry read before its update in the body (its previous
value), an update whose terms read a carry, two updates of one carry, compound statements,
calls made for their effect. The terms are computed once for all steps, so a sum's additions
happen in another order: the results agree within float rounding, which verification allows
(rules/JAX101.md: the tolerance, and the float64 reference for sums of many terms).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal, cast

import libcst as cst

from jaxlint.rewrites.loop_flow import leading_offset, stores
from jaxlint.rules._codegen import JaxSpelling, fresh_name, names_in, visited_statement

ASSOCIATIVE = "lax.associative_scan"
# Forms slower than a sequential scan on CPU (bench/results/fix_runtime.md): an associative
# scan does ~2N work in log N rounds; a scatter-add of N rows took 72 µs where the unrolled
# loop's 100 dynamic-update-slices took 22 µs on the TPU VM's CPU.
_ACCELERATOR_ONLY = frozenset({"affine", "scatter_add"})
# Names whose calls do something per step that `vmap` would do once for all steps (print the
# batch, call back with it): a body that mentions one keeps its scan.
PER_ROW_EFFECTS = frozenset({"print", "debug", "callback", "io_callback", "pure_callback"})
Form = Literal["sum", "prod", "max", "min", "scatter_add", "last", "affine"]


@dataclass(frozen=True)
class Update:
    """How one carry changes per step: `terms` are expression codes no carry reaches (the
    addend or factor; the index and addend of a scatter-add; the new value; the scale and
    shift)."""

    carry: str
    form: Form
    terms: tuple[str, ...]


@dataclass(frozen=True)
class Reduction:
    """A carry combined with each step's term by an associative operation. Code templates, in
    `{c}` (the carry), `{t}` (a term, or the reduced terms), `{E}` (the stacked terms), `{np}`
    and `{lax}` (the module's spellings):

    `term`: the term as the step combines it, in the carry's dtype and shape (`e + 0·c` is `e`
    promoted and broadcast as `c + e` promotes and broadcasts it: a float16 term of a float32
    sum adds in float32, an int8 one of an int8 sum wraps, Python numbers stay weakly typed);
    `whole`: the terms of all steps reduced; `running`: their running reductions; `combine`: the
    carry's start combined with either. `jnp.sum(E, dtype=E.dtype)` keeps the terms' dtype (an
    int8 sum wraps; a bool one is `or`, as `+` of bools is) but makes a Python-number total
    strongly typed; `lax.cumsum` keeps the weak type and refuses bools (such a running sum
    fails verification). (`lax.reduce` of `jnp.add` would keep both, but XLA's CPU backend ran
    it element by element: 150 µs for 300 terms where `jnp.sum` took 15 µs.) A running max is
    an associative scan of `jnp.maximum`: `lax.cummax` refuses bools."""

    combine: str
    term: str
    whole: str
    running: str
    identity: bool  # does the reduction of no steps leave the start (else guard it)?


_REDUCTIONS = {
    "sum": Reduction(
        "{c} + {t}",
        "{t} + {np}.zeros_like({c})",
        "{np}.sum({E}, axis=0, dtype={E}.dtype)",
        "{lax}.cumsum({E}, axis=0)",
        identity=True,
    ),
    "prod": Reduction(
        "{c} * {t}",
        "{t} * {np}.ones_like({c})",
        "{np}.prod({E}, axis=0, dtype={E}.dtype)",
        "{lax}.cumprod({E}, axis=0)",
        identity=True,
    ),
    "max": Reduction(
        "{np}.maximum({c}, {t})",
        "{t} + {np}.zeros_like({c})",
        "{np}.max({E}, axis=0)",
        "{lax}.associative_scan({np}.maximum, {E})",
        identity=False,
    ),
    "min": Reduction(
        "{np}.minimum({c}, {t})",
        "{t} + {np}.zeros_like({c})",
        "{np}.min({E}, axis=0)",
        "{lax}.associative_scan({np}.minimum, {E})",
        identity=False,
    ),
}
_FORM_NAMES = {  # how a fix's description names the form: (all steps, running)
    "sum": ("sum", "running sum"),
    "prod": ("product", "running product"),
    "max": ("max", "running max"),
    "min": ("min", "running min"),
}


@dataclass(frozen=True)
class Counter:
    """The loop index the body reads: its name and the code of all its values, as int32
    (`jnp.arange`) and weakly typed like the loop's Python ints (a cumulative sum of ones:
    slow on CPU, 130 µs for 100 steps on the TPU VM's CPU, where `jnp.arange` takes nothing);
    `steps`: the values as a Python `range`, where the loop's header gives one."""

    name: str
    values: str
    weak_values: str
    steps: str | None = None


@dataclass(frozen=True)
class RowRead:
    """`array[i + offset]` in the body: the loop's read of one row per step, which the
    vectorized body receives as `param` (all steps' rows read at once, `_Writer._rows`)."""

    array: str
    offset: int
    param: str


@dataclass(frozen=True)
class StepModel:
    """The scan the loop rewrite would write, as this module needs it.

    `statements`: the body with rows replaced by element names; `outputs`: the position of
    each append or slot write → the name its stacked values get; `element_param` /
    `element_prologue`: what one scanned element binds; `xs`: the scanned-over expression
    (None: nothing is scanned); `counter`: the loop index, when the body reads it;
    `needed_after`: carries read after the loop."""

    statements: list[cst.BaseStatement]
    carries: list[str]
    outputs: dict[int, str]
    element_param: str
    element_prologue: list[cst.BaseStatement]
    xs: str | None
    counter: Counter | None
    needed_after: frozenset[str]


def accelerator_forms(target: str, backend: str) -> bool:
    """Are forms that win only on accelerators chosen? `backend`: the one `auto` stands for."""
    chosen = backend if target == "auto" else target
    return chosen != "cpu"


def vectorized_statements(
    model: StepModel, taken: set[str], spelling: JaxSpelling, accelerator: bool
) -> tuple[list[cst.BaseStatement], str] | None:
    """Statements computing the loop's carries and outputs without a scan, and a description
    of the form; None where the body needs a sequential scan."""
    if any(names_in(s) & PER_ROW_EFFECTS for s in model.statements):
        return None
    weak_counter = model.counter is not None and _counter_as_number(model)
    if weak_counter and not accelerator:
        return None  # its weakly typed values cost a cumulative sum, slow on CPU: the scan
    rows: list[RowRead] = []
    steps = model.counter.steps if model.counter is not None else None
    if steps is not None and not weak_counter:
        model, rows = _row_reads(model, taken)
    updates = _updates(model, spelling)
    if updates is None:
        return None
    if not accelerator and any(u.form in _ACCELERATOR_ONLY for u in updates.values()):
        return None
    return _Writer(model, updates, taken, spelling, weak_counter, (rows, steps)).statements()


def _row_reads(model: StepModel, taken: set[str]) -> tuple[StepModel, list[RowRead]]:
    """The body's `x[i]`, `x[i + 1]`, `x[i - 1]` reads (`x` a name the body does not bind)
    replaced by parameters, and what they read; the counter is dropped where nothing else
    uses it. Vectorized, an index read per step is a gather of all steps' rows: 60 µs each
    for 10,000 rows on a TPU v5e, where a slice of them is free (four such reads made a GAE
    fix 2.4× slower than the expert's form)."""
    counter = model.counter
    assert counter is not None
    bound = set(model.carries).union(*(stores(s) for s in model.statements))
    replacer = _RowReplacer(counter.name, bound | {counter.name}, taken)
    statements = [visited_statement(s, replacer) for s in model.statements]
    if not replacer.rows:
        return model, []
    read = [  # what the body reads: an output's value, not the slot it is written to
        _output_of(s) if p in model.outputs else s for p, s in enumerate(statements)
    ]
    still_counted = any(counter.name in names_in(node) for node in read)
    return (
        replace(model, statements=statements, counter=counter if still_counted else None),
        list(replacer.rows.values()),
    )


class _RowReplacer(cst.CSTTransformer):
    def __init__(self, index: str, excluded: set[str], taken: set[str]) -> None:
        super().__init__()
        self.index = index
        self.excluded = excluded
        self.taken = taken
        self.rows: dict[tuple[str, int], RowRead] = {}
        self.targets = 0  # inside an assignment's target: a store, not a read

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self.targets += 1

    def leave_AssignTarget(
        self, original_node: cst.AssignTarget, updated_node: cst.AssignTarget
    ) -> cst.AssignTarget:
        self.targets -= 1
        return updated_node

    def leave_Subscript(
        self, original_node: cst.Subscript, updated_node: cst.Subscript
    ) -> cst.BaseExpression:
        array = updated_node.value
        if self.targets or not isinstance(array, cst.Name) or array.value in self.excluded:
            return updated_node
        if len(updated_node.slice) != 1 or not isinstance(updated_node.slice[0].slice, cst.Index):
            return updated_node
        offset = leading_offset(updated_node, self.index)
        if offset is None:
            offset = _commuted_offset(updated_node.slice[0].slice.value, self.index)
        if offset is None:
            return updated_node
        key = (array.value, offset)
        if key not in self.rows:
            suffix = {0: "", 1: "_next", -1: "_prev"}.get(offset)
            if suffix is None:
                suffix = f"_{'plus' if offset > 0 else 'minus'}_{abs(offset)}"
            param = fresh_name(f"{array.value}_{self.index}{suffix}", self.taken)
            self.rows[key] = RowRead(array.value, offset, param)
        return cst.Name(self.rows[key].param)


def _commuted_offset(index: cst.BaseExpression, counter: str) -> int | None:
    """c of `c + i` (`loop_flow.leading_offset` reads `i`, `i + c`, `i - c`)."""
    if (
        isinstance(index, cst.BinaryOperation)
        and isinstance(index.operator, cst.Add)
        and isinstance(index.left, cst.Integer)
        and _is(index.right, counter)
    ):
        return int(index.left.evaluated_value)
    return None


def _counter_as_number(model: StepModel) -> bool:
    """Does the body use the loop counter other than inside an index (`x[t]`, `.at[i % 4]`) or
    as `fold_in`'s data? There its type does not matter; elsewhere it must be weak."""
    assert model.counter is not None  # (asked only of a model with a counter)
    finder = _NumberUses(model.counter.name)
    for statement in model.statements:
        statement.visit(finder)
    return finder.found


class _NumberUses(cst.CSTVisitor):
    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name
        self.depth = 0  # inside an index or fold_in's arguments
        self.found = False

    def visit_SubscriptElement(self, node: cst.SubscriptElement) -> None:
        self.depth += 1

    def leave_SubscriptElement(self, original_node: cst.SubscriptElement) -> None:
        self.depth -= 1

    def visit_Call(self, node: cst.Call) -> None:
        self.depth += _is_fold_in(node)

    def leave_Call(self, original_node: cst.Call) -> None:
        self.depth -= _is_fold_in(original_node)

    def visit_Name(self, node: cst.Name) -> None:
        if node.value == self.name and not self.depth:
            self.found = True


def _is_fold_in(call: cst.Call) -> bool:
    func = call.func
    name = func.attr.value if isinstance(func, cst.Attribute) else getattr(func, "value", "")
    return name == "fold_in"


def _updates(model: StepModel, spelling: JaxSpelling) -> dict[str, Update] | None:
    """Each carry's update, where every statement is simple and the dataflow allows."""
    carries = set(model.carries)
    pending = set(carries)  # carries whose update has not run yet in this step
    after_update: set[str] = set()  # names holding values computed from updated carries
    updates: dict[str, Update] = {}
    for position, statement in enumerate(model.statements):
        small = _single(statement)
        if small is None:
            return None
        if position in model.outputs:
            if names_in(_output_value(small)) & pending:
                return None  # an output of the carry's previous value
            continue
        if not isinstance(small, (cst.Assign, cst.AugAssign)):
            return None  # `pass`, a call made for its effect, a `del`, …
        targets = stores(statement)
        reads = names_in(small.value)
        updated = targets & carries
        if updated:
            if len(targets) != 1:
                return None
            (carry,) = updated
            if carry not in pending:
                return None  # updated twice in one step
            update = _update(small, carry, spelling)
            blocked = pending | after_update
            if update is None or any(names_in(_expr(t)) & blocked for t in update.terms):
                return None
            updates[carry] = update
            pending.discard(carry)
            after_update.add(carry)
            continue
        if reads & pending:
            return None
        if reads & after_update:
            after_update |= targets
        else:
            after_update -= targets
    if pending:
        return None
    for carry, update in updates.items():
        if update.form == "scatter_add" and _reads_after_update(model, carry):
            return None  # one scatter-add gives the final value only
    return updates


def _single(statement: cst.BaseStatement) -> cst.BaseSmallStatement | None:
    if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1:
        return statement.body[0]
    return None


def _output_value(small: cst.BaseSmallStatement) -> cst.BaseExpression:
    """The value of `out.append(v)` / `out.insert(0, v)` / `out[i] = v`."""
    if isinstance(small, cst.Assign):
        return small.value
    # else `out.append(v)` / `out.insert(0, v)`, as the scan rewrite checked: a call's statement
    return cast(cst.Call, cast(cst.Expr, small).value).args[-1].value


def _output_of(statement: cst.BaseStatement) -> cst.BaseExpression:
    """`_output_value` of an output's statement: a line of that one statement."""
    small = _single(statement)
    assert small is not None  # the scan rewrite found an append or a slot write there
    return _output_value(small)


def _code(node: cst.CSTNode) -> str:
    return cst.Module(body=[]).code_for_node(node)


def _expr(code: str) -> cst.BaseExpression:
    return cst.parse_expression(code)


def _is(node: cst.BaseExpression, name: str) -> bool:
    return isinstance(node, cst.Name) and node.value == name and not node.lpar


def _update(small: cst.Assign | cst.AugAssign, carry: str, spelling: JaxSpelling) -> Update | None:
    if isinstance(small, cst.AugAssign):
        if not isinstance(small.target, cst.Name):
            return None
        if isinstance(small.operator, cst.AddAssign):
            return Update(carry, "sum", (_code(small.value),))
        if isinstance(small.operator, cst.SubtractAssign):
            return Update(carry, "sum", (_negated(small.value),))
        if isinstance(small.operator, cst.MultiplyAssign):
            return Update(carry, "prod", (_code(small.value),))
        return None
    if len(small.targets) != 1 or not isinstance(small.targets[0].target, cst.Name):
        return None
    value = small.value
    if carry not in names_in(value):
        return Update(carry, "last", (_code(value),))
    for recognise in (_scatter_add, _extreme):
        update = recognise(value, carry, spelling)
        if update is not None:
            return update
    factor = _scale_of(value, carry)
    if factor is not None:
        return Update(carry, "prod", (factor,))
    if not isinstance(value, cst.BinaryOperation) or value.lpar:
        return None
    left, right = value.left, value.right
    if isinstance(value.operator, cst.Add):
        if _is(left, carry):
            return Update(carry, "sum", (_code(right),))
        if _is(right, carry):
            return Update(carry, "sum", (_code(left),))
        for scaled, shift in ((left, right), (right, left)):
            scale = _scale_of(scaled, carry)
            if scale is not None:
                return Update(carry, "affine", (scale, _code(shift)))
        return None
    if isinstance(value.operator, cst.Subtract):
        if _is(left, carry):
            return Update(carry, "sum", (_negated(right),))
        scale = _scale_of(left, carry)
        if scale is not None:
            return Update(carry, "affine", (scale, _negated(right)))
    return None


_MULTIPLICATIVE = (
    cst.Multiply,
    cst.Divide,
    cst.FloorDivide,
    cst.Modulo,
    cst.MatrixMultiply,
    cst.Power,
)
_BINDS_TIGHTER = {  # operators an operand of `+` / `*` may have without parentheses
    cst.Add: (cst.Add, cst.Subtract, *_MULTIPLICATIVE),
    cst.Multiply: _MULTIPLICATIVE,
}


def _operand(code: str, operator: type[cst.BaseBinaryOp]) -> str:
    """`code` as the left operand of `operator`, parenthesized where it binds more loosely
    (`a > b`, `x if c else y`, `a + b` before `*`)."""
    node = _expr(code)
    atom = isinstance(
        node, (cst.Name, cst.Attribute, cst.Subscript, cst.Call, cst.Integer, cst.Float)
    ) or bool(getattr(node, "lpar", ()))
    if atom or isinstance(node, cst.UnaryOperation):
        return code
    if isinstance(node, cst.BinaryOperation) and isinstance(
        node.operator, _BINDS_TIGHTER[operator]
    ):
        return code
    return f"({code})"


def _negated(node: cst.BaseExpression) -> str:
    atom = isinstance(node, (cst.Name, cst.Attribute, cst.Subscript, cst.Call)) or node.lpar
    return f"-{_code(node)}" if atom else f"-({_code(node)})"


def _scale_of(node: cst.BaseExpression, carry: str) -> str | None:
    """`a` of a product `a * c`, `c * a`, `p * c * q` (elementwise, so the order of the factors
    is free): the product of the other factors; None when `c` is not exactly one factor."""
    factors: list[cst.BaseExpression] = []
    pending = [node]
    while pending:
        part = pending.pop()
        if (
            isinstance(part, cst.BinaryOperation)
            and isinstance(part.operator, cst.Multiply)
            and not part.lpar
        ):
            pending += [part.right, part.left]
        else:
            factors.append(part)
    matches = [f for f in factors if _is(f, carry)]
    if len(matches) != 1 or len(factors) < 2:
        return None
    return " * ".join(_code(f) for f in factors if f is not matches[0])


def _extreme(value: cst.BaseExpression, carry: str, spelling: JaxSpelling) -> Update | None:
    """`jnp.maximum(c, e)` / `jnp.minimum(e, c)`."""
    if not (isinstance(value, cst.Call) and len(value.args) == 2):
        return None
    if any(arg.keyword or arg.star for arg in value.args):
        return None
    forms: dict[str, Form] = {
        f"{spelling.numpy}.maximum": "max",
        f"{spelling.numpy}.minimum": "min",
    }
    form = forms.get(_code(value.func))
    first, second = (arg.value for arg in value.args)
    if form is None or _is(first, carry) == _is(second, carry):
        return None
    return Update(carry, form, (_code(second if _is(first, carry) else first),))


def _scatter_add(value: cst.BaseExpression, carry: str, spelling: JaxSpelling) -> Update | None:
    """`c.at[k].add(e)`."""
    if not (
        isinstance(value, cst.Call)
        and len(value.args) == 1
        and not value.args[0].keyword
        and not value.args[0].star
        and isinstance(value.func, cst.Attribute)
        and value.func.attr.value == "add"
        and isinstance(value.func.value, cst.Subscript)
    ):
        return None
    subscript = value.func.value
    at = subscript.value
    if not (isinstance(at, cst.Attribute) and at.attr.value == "at" and _is(at.value, carry)):
        return None
    if len(subscript.slice) != 1 or not isinstance(subscript.slice[0].slice, cst.Index):
        return None
    index = subscript.slice[0].slice.value
    return Update(carry, "scatter_add", (_code(index), _code(value.args[0].value)))


def _reads_after_update(model: StepModel, carry: str) -> bool:
    """Does a statement after the carry's update, or an output, read it?"""
    seen_update = False
    for position, statement in enumerate(model.statements):
        small = _single(statement)
        if small is None:
            continue
        if position in model.outputs:
            if carry in names_in(_output_value(small)):
                return True
            continue
        if carry in stores(statement):
            seen_update = True
        elif seen_update and carry in names_in(statement):
            return True
    return False


class _Writer:
    """The generated statements for one modelled loop."""

    def __init__(
        self,
        model: StepModel,
        updates: dict[str, Update],
        taken: set[str],
        spelling: JaxSpelling,
        weak_counter: bool,
        rows: tuple[list[RowRead], str | None],
    ) -> None:
        self.model = model
        self.weak_counter = weak_counter
        self.rows, self.steps = rows  # the rows read by index, and the loop's `range`
        self.rows_function = ""  # the name of `_rows`' definition, once written
        self.updates = updates
        self.taken = taken
        self.spelling = spelling
        self.out: list[cst.BaseStatement] = []
        self.forms: list[str] = []
        self.steps_names: dict[str, str] = {}  # carry → the output its per-step values are

    def statements(self) -> tuple[list[cst.BaseStatement], str]:
        model = self.model
        steps: dict[str, str] = {}  # carry → the name of its per-step values
        values = self._output_values()
        if all(isinstance(v, cst.Name) and v.value in self.updates for v in values.values()):
            # outputs that are the carries themselves: their per-step values take the list's name
            for name, value in values.items():
                carry = value.value  # type: ignore[attr-defined]  # a Name (tested above)
                self.steps_names.setdefault(carry, name)
        if self.rows:
            self._rows()
        if self.updates:
            terms = self._terms()
            for carry, update in self.updates.items():
                steps_name = self._carry(carry, update, terms[carry])
                if steps_name is not None:
                    steps[carry] = steps_name
        if model.outputs:
            self._outputs(steps)
        if not self.forms:
            self.forms.append("vmap")
        description = " + ".join(dict.fromkeys(self.forms))
        return self.out, description

    # -- the rows the body reads by index -------------------------------------------------------

    def _rows(self) -> None:
        """Define `_rows(x, offset)`: all steps' `x[i + offset]` at once."""
        steps = fresh_name("_steps", self.taken)
        self.rows_function = fresh_name("_rows", self.taken)
        self._emit(f"{steps} = {self.steps}")
        self.out.append(
            cst.parse_statement(
                f"def {self.rows_function}(x, offset):\n"
                "    # the loop's reads x[t + offset], all steps' at once: a slice where all\n"
                "    # are in bounds, else gathered as the loop reads them (clamped, negative\n"
                "    # from the end)\n"
                f"    low, high = min({steps}) + offset, max({steps}) + offset\n"
                "    if 0 <= low and high < x.shape[0]:\n"
                f"        rows = x[low : high + 1 : abs({steps}.step)]\n"
                f"        return rows if {steps}.step > 0 else rows[::-1]\n"
                f"    return x[{self.spelling.numpy}.asarray({steps}) + offset]\n"
            ).with_changes(leading_lines=[cst.EmptyLine(indent=False)])
        )

    # -- per-step terms of the updates, one vmap for all carries --------------------------------

    def _terms(self) -> dict[str, list[str]]:
        """Names of each update's stacked terms."""
        np_ = self.spelling.numpy
        returned: list[str] = []
        named: dict[str, list[str]] = {}
        body = self._independent_statements()
        for carry, update in self.updates.items():
            terms = update.terms
            if update.form == "affine":
                # the scale and shift in the carry's shape and dtype: a·c + b's, as the step
                # computes it (associative_scan combines them as arrays of one type)
                scale, shift, dtype = (
                    fresh_name(f"{carry}_{part}", self.taken) for part in ("a", "b", "dtype")
                )
                body += [
                    cst.parse_statement(f"{scale}, {shift} = {terms[0]}, {terms[1]}"),
                    cst.parse_statement(f"{dtype} = {np_}.result_type({scale}, {shift}, {carry})"),
                ]
                returned.append(
                    f"[term.astype({dtype}) for term in "
                    f"{np_}.broadcast_arrays({scale}, {shift}, {carry})[:2]]"
                )
                parts: tuple[str, ...] = ("scale", "shift")
            elif update.form == "scatter_add":
                # the addend in the shape of the rows it adds to, as `.at[k].add` broadcasts it
                index, addend = terms
                shaped = f"{np_}.broadcast_to({addend}, {np_}.shape({carry}[{index}]))"
                returned.append(f"({index}, {shaped})")
                parts = ("index", "terms")
            elif update.form in _REDUCTIONS:
                term = _REDUCTIONS[update.form].term
                operand = _operand(terms[0], cst.Multiply if update.form == "prod" else cst.Add)
                returned.append(term.format(t=operand, c=carry, np=np_))
                parts = ("terms",)
            else:
                returned.append(terms[0])
                parts = ("terms",)
            named[carry] = [fresh_name(f"{carry}_{part}", self.taken) for part in parts]
        # (a vmap even where the term is the element itself: it raises, as the loop does, on
        # a 0-d array or a Python number, which `jnp.cumsum(x, axis=0)` accepts)
        name = fresh_name("_step_terms", self.taken)
        self._define(name, body, _tuple(returned))
        self._emit(f"{_targets(named)} = {self._vmapped(name)}")
        return named

    def _independent_statements(self) -> list[cst.BaseStatement]:
        """The body's statements that no updated carry reaches (the terms are computed from
        them); an update and what follows from it are left out."""
        kept, after_update = [], set(self.updates)
        for position, statement in enumerate(self.model.statements):
            if position in self.model.outputs:
                continue
            targets = stores(statement)
            if targets & set(self.updates):
                continue
            if names_in(statement) & after_update:
                after_update |= targets
                continue
            after_update -= targets
            kept.append(statement)
        return kept

    # -- one carry's final and per-step values --------------------------------------------------

    def _carry(self, carry: str, update: Update, terms: list[str]) -> str | None:
        model, spelling = self.model, self.spelling
        per_step = _reads_after_update(model, carry)
        final = carry in model.needed_after
        if update.form == "scatter_add":
            self.forms.append("one scatter-add")
            self._emit(f"{carry} = {carry}.at[{terms[0]}].add({terms[1]})")
            return None
        reduction = _REDUCTIONS.get(update.form)
        if reduction is not None and not per_step:
            self.forms.append(_FORM_NAMES[update.form][0])
            if final:
                whole = self._spelled(reduction.whole, E=terms[0])
                combined = self._spelled(reduction.combine, c=carry, t=whole)
                if not reduction.identity:  # a max of no steps does not exist: the start stays
                    combined = f"{combined} if {terms[0]}.shape[0] else {carry}"
                self._emit(f"{carry} = {combined}")
            return None
        if update.form == "last":
            steps = terms[0]  # each step's value is its term
        else:
            steps = self.steps_names.get(carry) or fresh_name(f"{carry}_steps", self.taken)
        if reduction is not None:
            self.forms.append(_FORM_NAMES[update.form][1])
            running = self._spelled(reduction.running, E=terms[0])
            self._emit(f"{steps} = {self._spelled(reduction.combine, c=carry, t=running)}")
        elif update.form == "affine":
            self.forms.append(ASSOCIATIVE)
            compose = fresh_name("_compose", self.taken)
            self.out.append(
                cst.parse_statement(
                    f"def {compose}(earlier, later):\n"
                    "    # x ↦ a·x + b after x ↦ a'·x + b': x ↦ a·a'·x + (a·b' + b)\n"
                    "    return later[0] * earlier[0], later[0] * earlier[1] + later[1]\n"
                ).with_changes(leading_lines=[cst.EmptyLine(indent=False)])
            )
            scale, shift = terms
            self._emit(
                f"{scale}, {shift} = {spelling.lax}.associative_scan({compose}, ({scale}, {shift}))"
            )
            self._emit(f"{steps} = {scale} * {carry} + {shift}")
        if final:
            self._emit(f"{carry} = {steps}[-1] if {steps}.shape[0] else {carry}")
        return steps if per_step else None

    # -- outputs ---------------------------------------------------------------------------------

    def _outputs(self, steps: dict[str, str]) -> None:
        model = self.model
        values = self._output_values()
        names = list(values)
        if all(isinstance(v, cst.Name) and v.value in steps for v in values.values()):
            for name, value in values.items():
                step_name = steps[value.value]  # type: ignore[attr-defined]  # a Name (tested)
                if name != step_name:
                    self._emit(f"{name} = {step_name}")
            return
        body: list[cst.BaseStatement] = []
        returned: list[str] = []
        for position, statement in enumerate(model.statements):
            targets = stores(statement)
            if position not in model.outputs:
                if not targets & set(self.updates):  # the carry is the step's value
                    body.append(statement)
                continue
            value = _output_of(statement)
            rebound_later = set().union(*(stores(s) for s in model.statements[position + 1 :]))
            if names_in(value) & rebound_later:
                temporary = fresh_name(f"{model.outputs[position]}_item", self.taken)
                body.append(cst.parse_statement(f"{temporary} = {_code(value)}"))
                returned.append(temporary)
            else:
                returned.append(_code(value))
        carried = [c for c in self.updates if c in steps]
        name = fresh_name("_step_outputs", self.taken)
        self._define(name, body, _tuple(returned), leading=carried)
        self._emit(
            f"{_tuple(names, parenthesize=False)} = "
            f"{self._vmapped(name, leading=[steps[c] for c in carried])}"
        )

    def _output_values(self) -> dict[str, cst.BaseExpression]:
        """Each output's name → the value the body appends (in the body's order)."""
        model = self.model
        return {model.outputs[p]: _output_of(model.statements[p]) for p in sorted(model.outputs)}

    # -- code ------------------------------------------------------------------------------------

    def _define(
        self,
        name: str,
        body: list[cst.BaseStatement],
        returned: str,
        leading: list[str] | None = None,
    ) -> None:
        model = self.model
        params = list(leading or [])
        if model.counter is not None:
            params.append(model.counter.name)
        params += [row.param for row in self.rows]
        if model.xs is not None:
            params.append(model.element_param)
        lines = [*model.element_prologue, *body, cst.parse_statement(f"return {returned}")]
        self.out.append(
            cst.FunctionDef(
                name=cst.Name(name),
                params=cst.Parameters(params=[cst.Param(cst.Name(p)) for p in params]),
                body=cst.IndentedBlock(body=lines),
                leading_lines=[cst.EmptyLine(indent=False)] if self.out else [],
            )
        )

    def _vmapped(self, name: str, leading: list[str] | None = None) -> str:
        model = self.model
        args = list(leading or [])
        if model.counter is not None:
            counter = model.counter
            args.append(counter.weak_values if self.weak_counter else counter.values)
        args += [f"{self.rows_function}({row.array}, {row.offset})" for row in self.rows]
        if model.xs is not None:
            args.append(model.xs)
        return f"{self.spelling.jax}.vmap({name})({', '.join(args)})"

    def _spelled(self, template: str, **parts: str) -> str:
        return template.format(np=self.spelling.numpy, lax=self.spelling.lax, **parts)

    def _emit(self, text: str) -> None:
        statement = cst.parse_statement(text)
        if self.out and isinstance(self.out[-1], cst.FunctionDef):
            statement = statement.with_changes(leading_lines=[cst.EmptyLine(indent=False)])
        self.out.append(statement)


def _tuple(items: list[str], parenthesize: bool = True) -> str:
    if len(items) == 1:
        return items[0]
    return f"({', '.join(items)})" if parenthesize else ", ".join(items)


def _targets(named: dict[str, list[str]]) -> str:
    if len(named) == 1:
        return ", ".join(*named.values())
    parts = [names[0] if len(names) == 1 else f"({', '.join(names)})" for names in named.values()]
    return ", ".join(parts)
