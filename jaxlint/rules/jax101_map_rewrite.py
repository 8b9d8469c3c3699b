"""JAX101's rewrites of expressions: stacked comprehensions → `lax.map`, builtin `sum` → `jnp.sum`.

`jnp.stack([f(v) for v in x])` (or `jnp.array` / `jnp.asarray` of the list) computes the rows one
by one and stacks them; `lax.map(lambda v: f(v), x)` does the same in one scan, row by row, so
the rows are computed as they were. `sum(x)` over an array adds its rows to the start value 0:
`jnp.sum(x, axis=0, dtype=jnp.result_type(0, x.dtype))` is that sum, with the dtype Python's
`0 + row + …` gives (int8 rows stay int8, bools count as ints).
"""

from __future__ import annotations

import libcst as cst

from jaxlint.analysis.cst_walk import walk
from jaxlint.analysis.values import Kind
from jaxlint.engine.edits import Edit, ImportSpec, Refusal
from jaxlint.engine.rule import UnitContext
from jaxlint.rules._codegen import JaxSpelling

STACKERS = frozenset({"jax.numpy.array", "jax.numpy.asarray", "jax.numpy.stack"})


def stacked_comprehension(call: cst.Call, context: UnitContext) -> cst.ListComp | None:
    """The list comprehension `call` stacks (`jnp.stack([...])`), if it is one."""
    if (
        len(call.args) == 1
        and not call.args[0].keyword
        and not call.args[0].star
        and isinstance(call.args[0].value, cst.ListComp)
        and context.resolve(call.func) in STACKERS
    ):
        return call.args[0].value
    return None


def map_edit(call: cst.Call, comprehension: cst.ListComp, context: UnitContext) -> Edit | Refusal:
    """`jnp.stack([e for v in x])` → `lax.map(lambda v: e, x)`, or why it is refused."""
    loop = comprehension.for_in
    if loop.inner_for_in is not None or loop.ifs or loop.asynchronous is not None:
        return Refusal("only one `for` without `if` is rewritten to lax.map")
    if not isinstance(loop.target, cst.Name):
        return Refusal("only `for v in x` comprehensions are rewritten to lax.map")
    if not (isinstance(loop.iter, cst.Name) and context.kind(loop.iter) == Kind.ARRAY):
        return Refusal("only comprehensions over an array name are rewritten to lax.map")
    if _has_walrus(comprehension.elt):
        return Refusal("`:=` in the comprehension")
    spelling = JaxSpelling.of(context)
    code = cst.Module(body=[]).code_for_node
    replacement = cst.parse_expression(
        f"{spelling.lax}.map(lambda {loop.target.value}: {code(comprehension.elt)}, "
        f"{loop.iter.value})"
    )
    return _edit(call, replacement, "stacked comprehension → jax.lax.map", spelling, context)


def sum_edit(call: cst.Call, context: UnitContext) -> Edit | Refusal:
    """`sum(x)` of an array name → `jnp.sum(x, axis=0, dtype=jnp.result_type(0, x.dtype))`."""
    if len(call.args) != 1 or call.args[0].keyword or call.args[0].star:
        return Refusal("only `sum(x)` with one argument is rewritten")
    array = call.args[0].value
    if not isinstance(array, cst.Name):
        return Refusal("only `sum(<array name>)` is rewritten")
    spelling = JaxSpelling.of(context)
    numpy, name = spelling.numpy, array.value
    replacement = cst.parse_expression(
        f"{numpy}.sum({name}, axis=0, dtype={numpy}.result_type(0, {name}.dtype))"
    )
    return _edit(call, replacement, "builtin sum → jnp.sum(axis=0)", spelling, context)


def _edit(
    call: cst.Call,
    replacement: cst.BaseExpression,
    description: str,
    spelling: JaxSpelling,
    context: UnitContext,
) -> Edit:
    mentions_jax = spelling.lax.startswith("jax.") or spelling.numpy.startswith("jax.")
    return Edit(
        replacements={call: replacement},
        description=description,
        imports=(ImportSpec("jax"),) if mentions_jax and spelling.jax == "jax" else (),
        verify_target=context.verify_target(),
        require_fewer_eqns=True,
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
