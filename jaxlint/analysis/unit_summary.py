"""A cheap `ast` summary of one unit, so rules can say whether they could fire there at all."""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, cast

from jaxlint.analysis.ast_walk import walk_ast
from jaxlint.analysis.names import ImportTable, dotted_ast
from jaxlint.analysis.scope import FunctionInfo, imports_in


@dataclass
class UnitSummary:
    """What a unit contains: node types, called names, method names, stores, functions."""

    functions: list[FunctionInfo]
    node_types: set[str] = field(default_factory=set)
    called: set[str] = field(default_factory=set)  # qualified names of called functions
    methods_called: set[str] = field(default_factory=set)  # `.append(...)` → "append"
    stores_into: bool = False  # an attribute or item assignment target
    keywords: set[str] = field(default_factory=set)  # keyword argument names of calls
    # `x[i]`, `x[a:n]`: an index or slice bound that is not a literal number or string
    dynamic_subscript: bool = False
    # `x[x > 0]`, `x[~m]`, `x[m]` with `m = a < b` in the unit: an index that may be a mask
    mask_subscript: bool = False
    # an `if`/`while`/`assert`/conditional/`and`/`or`/`not` operand that may be an array:
    # not a literal, an `is` test, isinstance() or the like
    truth_tests: bool = False
    # codes of the rules whose host queries (Rule.host_query) found a candidate here
    host_candidates: frozenset[str] = frozenset()

    @property
    def traced(self) -> bool:
        return any(f.trace is not None for f in self.functions)

    @property
    def jitted(self) -> list[FunctionInfo]:
        return [f for f in self.functions if f.roots]


def summarize(
    functions: list[FunctionInfo],
    imports: ImportTable,
    host_candidates: frozenset[str] = frozenset(),
) -> UnitSummary:
    """Walk the traced functions of a unit once and record what rules' prefilters ask about."""
    summary = UnitSummary(functions, host_candidates=host_candidates)
    node_types, called, methods = summary.node_types, summary.called, summary.methods_called
    traced = [f for f in functions if f.trace is not None]
    # nested traced functions are inside their traced parents: walk only the outermost ones
    outermost = [f for f in traced if not _inside_any(f, traced)]
    subscripts: list[ast.Subscript] = []
    mask_names: set[str] = set()
    for function in outermost:
        imports_here = imports_in(function, imports)
        for node in walk_ast(function.node):
            # `kind is X`: cheaper than isinstance on every node; mypy does not narrow `node`
            # through `kind`, hence the casts
            kind = type(node)
            node_types.add(kind.__name__)
            if kind is ast.Call:
                call = cast(ast.Call, node)
                func = call.func
                qualified = imports_here.resolve(dotted_ast(func))
                if qualified is not None:
                    called.add(qualified)
                if type(func) is ast.Attribute:
                    methods.add(func.attr)
                summary.keywords.update(k.arg for k in call.keywords if k.arg)
            elif kind is ast.Subscript:
                subscript = cast(ast.Subscript, node)
                subscripts.append(subscript)
                if type(subscript.ctx) is ast.Store:
                    summary.stores_into = True
            elif kind is ast.Attribute and type(cast(ast.Attribute, node).ctx) is ast.Store:
                summary.stores_into = True
            elif kind is ast.Assign and _may_be_mask(cast(ast.Assign, node).value):
                mask_names.update(
                    t.id for t in cast(ast.Assign, node).targets if type(t) is ast.Name
                )
            if not summary.truth_tests and kind in _TRUTH_TESTED:
                operands = _TRUTH_TESTED[kind](node)
                summary.truth_tests = not all(_plain_bool(o, imports_here) for o in operands)
    for subscript in subscripts:
        index = subscript.slice
        parts = index.elts if type(index) is ast.Tuple else [index]
        for part in parts:
            if type(part) is ast.Slice:
                bounds = (part.lower, part.upper, part.step)
                summary.dynamic_subscript |= any(b is not None and not _literal(b) for b in bounds)
            elif not _literal(part):
                summary.dynamic_subscript = True
        summary.mask_subscript |= _may_be_mask(index) or (
            type(index) is ast.Name and index.id in mask_names
        )
    return summary


# each function takes a node of the type it is filed under
_TRUTH_TESTED: dict[type[ast.AST], Callable[[Any], list[ast.expr]]] = {
    ast.If: lambda node: [node.test],
    ast.While: lambda node: [node.test],
    ast.Assert: lambda node: [node.test],
    ast.IfExp: lambda node: [node.test],
    ast.comprehension: lambda node: node.ifs,
    ast.BoolOp: lambda node: node.values,
    ast.UnaryOp: lambda node: [node.operand] if type(node.op) is ast.Not else [],
}
# calls whose result is a Python value whatever they are given
_PYTHON_VALUED = frozenset(
    {"builtins.isinstance", "builtins.issubclass", "builtins.hasattr", "builtins.callable"}
)


def _plain_bool(node: ast.expr, imports: ImportTable) -> bool:
    """Is this test a Python value whatever the arrays around it: a literal, `x is None`,
    `isinstance(x, T)`, `len(xs) > 1`, or `and`/`or`/`not` of such?"""
    kind = type(node)  # `kind is X`, as in `summarize`; the casts say what it found
    if kind is ast.Constant:
        return True
    if kind is ast.Compare:
        compare = cast(ast.Compare, node)
        if all(type(op) in (ast.Is, ast.IsNot) for op in compare.ops):
            return True
        operands = [compare.left, *compare.comparators]
        return all(_plain_value(o, imports) for o in operands)
    if kind is ast.Call:
        return imports.resolve(dotted_ast(cast(ast.Call, node).func)) in _PYTHON_VALUED
    if kind is ast.BoolOp:
        return all(_plain_bool(v, imports) for v in cast(ast.BoolOp, node).values)
    if kind is ast.UnaryOp and type(cast(ast.UnaryOp, node).op) is ast.Not:
        return _plain_bool(cast(ast.UnaryOp, node).operand, imports)
    return False


def _plain_value(node: ast.expr, imports: ImportTable) -> bool:
    if _literal(node):
        return True
    if type(node) is ast.Call:
        qualified = imports.resolve(dotted_ast(node.func))
        return qualified == "builtins.len" or qualified in _PYTHON_VALUED
    return False


def _literal(node: ast.expr) -> bool:
    """`3`, `-1`, `"w"`, `None`: an index no tracer can be."""
    if type(node) is ast.UnaryOp:
        node = node.operand
    return type(node) is ast.Constant


_BIT_OPERATORS = (ast.BitAnd, ast.BitOr, ast.BitXor)


def _may_be_mask(node: ast.expr) -> bool:
    """Could this be a boolean mask as JAX105 reads one: a comparison, `~`/`&`/`|`/`^` of one,
    or a call (JAX105 asks which)."""
    kind = type(node)
    if kind is ast.Compare or kind is ast.Call:
        return True
    if kind is ast.UnaryOp:
        return type(cast(ast.UnaryOp, node).op) is ast.Invert
    if kind is ast.BinOp:
        return isinstance(cast(ast.BinOp, node).op, _BIT_OPERATORS)
    return False


def _inside_any(function: FunctionInfo, others: list[FunctionInfo]) -> bool:
    parent = function.parent
    while parent is not None:
        if parent in others:
            return True
        parent = parent.parent
    return False
