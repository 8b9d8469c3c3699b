"""JAX102's rewrite of a `while` on a traced test: `jax.lax.while_loop`, verified.

`while err > tol: x = step(x); err = …` asks Python, before every iteration, for the truth of
a tracer. `lax.while_loop(cond, body, carry)` evaluates the test in the computation instead:
`cond` is the test over the loop state, `body` the loop's statements returning the new state.
It is the same loop when

- the state (the carry) is every name the body assigns that the test reads, that the body reads
  before assigning it, or that is read after the loop, each bound before the loop;
- the body holds only assignments to local names and pure expressions: no `break`, `continue`,
  `return`, nested loop, attribute or item write, `print` or call made for its side effects;
- every carry keeps its shape from one iteration to the next (`lax.while_loop` raises
  otherwise, and verification refuses the rewrite). Its dtype may widen: a Python number at
  the start takes the type the body gives it (JAX promotes weakly typed starts), and a carry
  the body reads only as an operand of elementwise operations or contractions (`w - lr * g`,
  `X @ w`) starts cast to the dtype one abstract step of the body gives it (`jax.eval_shape`)
  — those operations convert it to that dtype anyway, so the values are the same (int32
  weights updated with a float step become float32 in the first iteration either way);
- `and` / `or` / `not` in the test join array expressions, which `jnp.logical_and` / `or` /
  `not` evaluate whole where Python short-circuits.

Offered only in functions that run staged only (a jit decorator, a lax body): eagerly, a Python
number the loop counts would come back as an array. The eager original under the jitted
rewrite is what verification compares.
"""

from __future__ import annotations

import libcst as cst

from jaxlint.analysis.cst_walk import walk
from jaxlint.analysis.values import Kind
from jaxlint.engine.edits import Edit, ImportSpec, Refusal
from jaxlint.engine.rule import UnitContext
from jaxlint.rewrites.loop_flow import (
    CarryReads,
    LoopFlow,
    UpdateFinder,
    assigned_value,
    carried_names,
    forbidden,
    path_to,
    stores,
)
from jaxlint.rewrites.where import branch_problem
from jaxlint.rules._codegen import JaxSpelling, fresh_name, module_of, names_in

LOGICAL = {cst.And: "logical_and", cst.Or: "logical_or"}
MAX_TYPE_STEPS = 3  # abstract steps of the body that type the carries (see `_widened`)


def while_loop_edit(loop: cst.While, context: UnitContext) -> Edit | Refusal:
    """The lax.while_loop rewrite of `loop`, or why it is refused."""
    frame = context.frame
    if frame is None or not isinstance(frame.node, cst.FunctionDef):
        return Refusal("only loops directly inside a function are rewritten")
    if loop.orelse is not None:
        return Refusal("`while ... else` loops are not rewritten")
    if not context.only_staged:
        return Refusal(
            "the function may also run eagerly, where the loop's Python numbers stay numbers "
            "and lax.while_loop returns arrays"
        )
    function = frame.node
    path = path_to(function.body, loop)
    if len(path) < 2 or not isinstance(path[-2], cst.IndentedBlock):
        return Refusal("the loop shares its line with another statement")
    if not isinstance(loop.body, cst.IndentedBlock):
        return Refusal("one-line loop bodies are not rewritten")
    problem = forbidden(loop.body, context, allow_appends=False)
    if problem:
        return Refusal(f"the body has {problem}, which lax.while_loop cannot express")
    test = _logical_test(loop.test, context)
    if isinstance(test, Refusal):
        return test

    flow = LoopFlow.of(function, loop)
    for outer in path[:-1]:
        if isinstance(outer, (cst.For, cst.While)):
            flow.loaded_after |= names_in(outer)  # the enclosing loop's next iteration reads
    statements = list(loop.body.body)
    assigned = set().union(*(stores(s) for s in statements))
    tested = names_in(loop.test) & assigned
    if not tested:
        return Refusal("the body assigns nothing the test reads: the loop runs never or forever")
    carries = carried_names(statements, flow, set())
    carries += sorted(tested - set(carries))
    for name in carries:
        if name not in flow.bound_before:
            return Refusal(f"`{name}` is first assigned inside the loop; bind it before the loop")
        if frame.values.name_kind(name) == Kind.CONTAINER:
            return Refusal(f"`{name}` is a Python container; a loop carry must keep its structure")

    spelling = JaxSpelling.of(context)
    widened = _widened(carries, statements, loop.test, context)
    generated = _generate(loop, test, carries, widened, flow.all_names, spelling)
    return Edit(
        replacements={loop: cst.FlattenSentinel(generated)},
        description=f"while on a traced test → {spelling.lax}.while_loop ({len(carries)} carr"
        f"{'y' if len(carries) == 1 else 'ies'})",
        imports=(ImportSpec("jax"),) if "jax" in names_in(module_of(generated)) else (),
        verify_target=context.verify_target(),
        kind="verified",
    )


def _logical_test(test: cst.BaseExpression, context: UnitContext) -> str | Refusal:
    """The test as code for `cond`: `and`/`or`/`not` as jnp.logical_* over array expressions."""
    spelling = JaxSpelling.of(context)
    if isinstance(test, cst.BooleanOperation):
        left = _logical_test(test.left, context)
        right = _logical_test(test.right, context)
        if isinstance(left, Refusal):
            return left
        if isinstance(right, Refusal):
            return right
        problem = branch_problem((test.left, test.right), context)
        if problem:
            return Refusal(f"the test's `and`/`or` would be evaluated whole: {problem}")
        return f"{spelling.numpy}.{LOGICAL[type(test.operator)]}({left}, {right})"
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = _logical_test(test.expression, context)
        return inner if isinstance(inner, Refusal) else f"{spelling.numpy}.logical_not({inner})"
    return cst.Module(body=[]).code_for_node(test)  # the whole text (code_of shortens)


def _widened(
    carries: list[str],
    statements: list[cst.BaseStatement],
    test: cst.BaseExpression,
    context: UnitContext,
) -> list[str]:
    """The carries whose start is cast to the dtype the body gives them (module docstring):
    read only as operands of promoting operations, updated from other carries or traced values."""
    found = []
    for name in carries:
        updates = UpdateFinder(name)
        reads = CarryReads(name, context)
        for statement in statements:
            walk(statement, updates)
            walk(statement, reads)
        walk(test, reads)
        if not updates.found or reads.other_use:
            continue
        moving = set(carries) - {name}
        values = [assigned_value(update) for update in updates.found]
        if any(v is None or names_in(v) & moving or context.holds_traced(v) for v in values):
            found.append(name)
    return found


def _generate(
    loop: cst.While,
    test: str,
    carries: list[str],
    widened: list[str],
    taken_names: set[str],
    spelling: JaxSpelling,
) -> list[cst.BaseStatement]:
    taken = set(taken_names)
    cond_name = fresh_name("_while_cond", taken)
    body_name = fresh_name("_while_body", taken)
    state = ", ".join(carries)
    single = len(carries) == 1
    param = carries[0] if single else fresh_name("carry", taken)
    unpack = [] if single else [cst.parse_statement(f"{state} = {param}\n")]
    result = carries[0] if single else f"({state})"

    assert isinstance(loop.body, cst.IndentedBlock)  # while_loop_edit refused one-line bodies
    leading = list(loop.leading_lines)
    cond = cst.FunctionDef(
        name=cst.Name(cond_name),
        params=cst.Parameters(params=[cst.Param(cst.Name(param))]),
        body=cst.IndentedBlock(body=[*unpack, cst.parse_statement(f"return {test}\n")]),
        leading_lines=leading or [cst.EmptyLine(indent=False)],
    )
    body = cst.FunctionDef(
        name=cst.Name(body_name),
        params=cst.Parameters(params=[cst.Param(cst.Name(param))]),
        body=cst.IndentedBlock(
            body=[*unpack, *loop.body.body, cst.parse_statement(f"return {result}\n")],
            header=loop.body.header,  # keeps the `while` line's comment
        ),
        leading_lines=[cst.EmptyLine(indent=False)],
    )
    after = _casts(body_name, carries, widened, result, taken, spelling)
    after.append(
        cst.parse_statement(
            f"{state} = {spelling.lax}.while_loop({cond_name}, {body_name}, {result})\n"
        )
    )
    after[0] = after[0].with_changes(leading_lines=[cst.EmptyLine(indent=False)])
    return [cond, body, *after]


def _casts(
    body_name: str,
    carries: list[str],
    widened: list[str],
    state: str,
    taken: set[str],
    spelling: JaxSpelling,
) -> list[cst.BaseStatement]:
    """`types = jax.eval_shape(body, state)`, stepped until one carry's type can have reached
    another, then each widened carry cast to `promote_types(its dtype, the stepped dtype)`."""
    if not widened:
        return []
    numpy = spelling.numpy
    types = fresh_name(f"{carries[0]}_type" if len(carries) == 1 else "carry_types", taken)
    lines = [f"{types} = {spelling.jax}.eval_shape({body_name}, {state})"]
    for _ in range(min(len(widened), MAX_TYPE_STEPS) - 1):
        lines.append(f"{types} = {spelling.jax}.eval_shape({body_name}, {types})")
    for name in widened:
        like = types if len(carries) == 1 else f"{types}[{carries.index(name)}]"
        widest = f"{numpy}.promote_types({numpy}.result_type({name}), {like}.dtype)"
        lines.append(f"{name} = {numpy}.asarray({name}, {widest})")
    return [cst.parse_statement(line + "\n") for line in lines]
