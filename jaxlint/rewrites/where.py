"""JAX102's rewrite of a value chosen by a traced test: `jnp.where(c, a, b)`, a suggestion.

`a if c else b` and `if c: v = a / else: v = b` pick one of two values by the truth of `c`,
which a tracer does not have. `jnp.where(c, a, b)` computes both and selects elementwise. It is
the same value only when `c` is a scalar, both branches have one shape and dtype (`jnp.where`
broadcasts and promotes them, where Python returns either as it is) and computing the branch not
taken cannot raise. Verification cannot stand in for these: on integer or bool data a branch's
dtype differs or its arithmetic raises (`x - y` on bools) while the original, eagerly, never
computed it. So the rewrite is offered as a suggestion (`--diff`, applied by `--unsafe-fixes`),
and only for branches that are plain array expressions (no call but JAX's and array methods).
"""

from __future__ import annotations

import libcst as cst

from jaxlint.analysis.cst_text import code_of
from jaxlint.analysis.values import Kind
from jaxlint.engine.edits import Edit, ImportSpec, Refusal
from jaxlint.engine.rule import UnitContext
from jaxlint.rules._codegen import JaxSpelling

VALUE_NODES = (
    cst.Name,
    cst.Attribute,
    cst.Integer,
    cst.Float,
    cst.Imaginary,
    cst.Subscript,
    cst.BinaryOperation,
    cst.UnaryOperation,
    cst.Comparison,
    cst.Call,
)
COMBINED_TEST = (
    "the test combines conditions with and/or/not, which jnp.where cannot take as they are; "
    "write them with & | ~ first"
)


def ternary_edit(node: cst.IfExp, context: UnitContext) -> Edit | Refusal:
    """`a if c else b` → `jnp.where(c, a, b)`, or why not."""
    problem = _test_problem(node.test) or branch_problem((node.body, node.orelse), context)
    if problem:
        return Refusal(problem)
    return _edit(node, node.test, node.body, node.orelse, None, context)


def if_assignment_edit(node: cst.If, context: UnitContext) -> Edit | Refusal | None:
    """`if c: v = a` / `else: v = b` → `v = jnp.where(c, a, b)`; None when the `if` does more
    than choose one name's value (no rewrite to offer, the message advises)."""
    chosen = _assignment(node.body)
    orelse = node.orelse
    if chosen is None or not isinstance(orelse, cst.Else):
        return None
    other = _assignment(orelse.body)
    if other is None or other[0] != chosen[0]:
        return None
    if _has_comment(node):
        return Refusal("the `if` holds comments, which a one-line jnp.where would drop")
    problem = _test_problem(node.test) or branch_problem((chosen[1], other[1]), context)
    if problem:
        return Refusal(problem)
    return _edit(node, node.test, chosen[1], other[1], chosen[0], context)


def _assignment(block: cst.BaseSuite) -> tuple[str, cst.BaseExpression] | None:
    """(`v`, `a`) of a block that is exactly `v = a`."""
    if not isinstance(block, cst.IndentedBlock) or len(block.body) != 1:
        return None
    line = block.body[0]
    if not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1:
        return None
    statement = line.body[0]
    if (
        isinstance(statement, cst.Assign)
        and len(statement.targets) == 1
        and isinstance(statement.targets[0].target, cst.Name)
    ):
        return statement.targets[0].target.value, statement.value
    return None


def _test_problem(test: cst.BaseExpression) -> str | None:
    if isinstance(test, cst.BooleanOperation) or (
        isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not)
    ):
        return COMBINED_TEST
    return None


def branch_problem(branches: tuple[cst.BaseExpression, ...], context: UnitContext) -> str | None:
    """Why computing both branches may not be the same as computing one, if it may not."""
    for branch in branches:
        for node in _nodes(branch):
            if isinstance(node, cst.Call):
                callee = context.resolve(node.func) or ""
                if not callee.startswith("jax.") and not _array_method(node.func, context):
                    return (
                        f"jnp.where computes both branches, and `{code_of(node)}` is not a JAX "
                        "function: it would run whichever way the test goes"
                    )
            elif isinstance(node, cst.BaseExpression) and not isinstance(node, VALUE_NODES):
                return (
                    f"jnp.where takes arrays, and `{code_of(node)}` is not an array expression "
                    "(a container, a string, a lambda…)"
                )
    return None


def _array_method(func: cst.BaseExpression, context: UnitContext) -> bool:
    """`x.max()`, `x.astype(t)`: a method of a value known to be a JAX array."""
    return isinstance(func, cst.Attribute) and (
        context.kind(func.value) == Kind.ARRAY or context.certainly_traced(func.value)
    )


def _nodes(expression: cst.BaseExpression) -> list[cst.CSTNode]:
    """The expression and the expressions inside it, not descending into calls' callees."""
    found: list[cst.CSTNode] = []
    stack: list[cst.CSTNode] = [expression]
    while stack:
        node = stack.pop()
        found.append(node)
        if isinstance(node, cst.Call):
            stack.extend(a.value for a in node.args)
            if isinstance(node.func, cst.Attribute):
                stack.append(node.func.value)  # the array whose method it is
        elif isinstance(node, cst.Attribute):
            stack.append(node.value)
        elif isinstance(node, cst.Subscript):
            stack.append(node.value)  # an index is a static or array value either way
        elif isinstance(node, (cst.BinaryOperation, cst.Comparison, cst.UnaryOperation)):
            stack.extend(c for c in node.children if isinstance(c, cst.BaseExpression))
            if isinstance(node, cst.Comparison):
                stack.extend(t.comparator for t in node.comparisons)
    return found


def _has_comment(node: cst.CSTNode) -> bool:
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.Comment):
            return True
        stack.extend(current.children)
    return False


def _edit(
    node: cst.IfExp | cst.If,
    test: cst.BaseExpression,
    when_true: cst.BaseExpression,
    when_false: cst.BaseExpression,
    target: str | None,
    context: UnitContext,
) -> Edit:
    spelling = JaxSpelling.of(context)
    code = cst.Module(body=[]).code_for_node
    call = f"{spelling.numpy}.where({code(test)}, {code(when_true)}, {code(when_false)})"
    replacement: cst.CSTNode
    if target is None:
        assert isinstance(node, cst.IfExp)  # only an `if` statement assigns a target
        replacement = cst.parse_expression(call)
        if node.lpar:  # keep the parentheses the conditional expression had
            replacement = replacement.with_changes(lpar=node.lpar, rpar=node.rpar)
        description = "conditional expression → jnp.where (both branches are computed)"
    else:
        assert isinstance(node, cst.If)
        replacement = cst.parse_statement(f"{target} = {call}\n")
        replacement = replacement.with_changes(leading_lines=node.leading_lines)
        description = f"`if` choosing `{target}` → {target} = jnp.where(...) (both computed)"
    return Edit(
        replacements={node: replacement},
        description=description,
        imports=(ImportSpec("jax"),) if spelling.numpy == "jax.numpy" else (),
        kind="suggestion",
    )
