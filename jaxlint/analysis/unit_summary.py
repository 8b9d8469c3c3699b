"""A cheap `ast` summary of one unit, so rules can say whether they could fire there at all."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

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
    # codes of rules that found a candidate here outside traced code (Rule.host_candidate)
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
            kind = type(node)
            node_types.add(kind.__name__)
            if kind is ast.Call:
                func = node.func  # type: ignore[attr-defined]
                qualified = imports_here.resolve(dotted_ast(func))
                if qualified is not None:
                    called.add(qualified)
                if type(func) is ast.Attribute:
                    methods.add(func.attr)
                summary.keywords.update(k.arg for k in node.keywords if k.arg)  # type: ignore[attr-defined]
            elif kind is ast.Subscript:
                subscripts.append(node)  # type: ignore[arg-type]
                if type(node.ctx) is ast.Store:  # type: ignore[attr-defined]
                    summary.stores_into = True
            elif kind is ast.Attribute and type(node.ctx) is ast.Store:  # type: ignore[attr-defined]
                summary.stores_into = True
            elif kind is ast.Assign and _may_be_mask(node.value):  # type: ignore[attr-defined]
                mask_names.update(t.id for t in node.targets if type(t) is ast.Name)  # type: ignore[attr-defined]
            if not summary.truth_tests and kind in _TRUTH_TESTED:
                operands = _TRUTH_TESTED[kind](node)
                summary.truth_tests = not all(_plain_bool(o, imports_here) for o in operands)
    for subscript in subscripts:
        index = subscript.slice
        parts = index.elts if type(index) is ast.Tuple else [index]  # type: ignore[attr-defined]
        for part in parts:
            if type(part) is ast.Slice:
                bounds = (part.lower, part.upper, part.step)
                summary.dynamic_subscript |= any(b is not None and not _literal(b) for b in bounds)
            elif not _literal(part):
                summary.dynamic_subscript = True
        summary.mask_subscript |= _may_be_mask(index) or (
            type(index) is ast.Name and index.id in mask_names  # type: ignore[attr-defined]
        )
    return summary


_TRUTH_TESTED = {
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
    kind = type(node)
    if kind is ast.Constant:
        return True
    if kind is ast.Compare:
        if all(type(op) in (ast.Is, ast.IsNot) for op in node.ops):  # type: ignore[attr-defined]
            return True
        operands = [node.left, *node.comparators]  # type: ignore[attr-defined]
        return all(_plain_value(o, imports) for o in operands)
    if kind is ast.Call:
        return imports.resolve(dotted_ast(node.func)) in _PYTHON_VALUED  # type: ignore[attr-defined]
    if kind is ast.BoolOp:
        return all(_plain_bool(v, imports) for v in node.values)  # type: ignore[attr-defined]
    if kind is ast.UnaryOp and type(node.op) is ast.Not:  # type: ignore[attr-defined]
        return _plain_bool(node.operand, imports)  # type: ignore[attr-defined]
    return False


def _plain_value(node: ast.expr, imports: ImportTable) -> bool:
    if _literal(node):
        return True
    if type(node) is ast.Call:
        qualified = imports.resolve(dotted_ast(node.func))  # type: ignore[attr-defined]
        return qualified == "builtins.len" or qualified in _PYTHON_VALUED
    return False


def _literal(node: ast.expr) -> bool:
    """`3`, `-1`, `"w"`, `None`: an index no tracer can be."""
    if type(node) is ast.UnaryOp:
        node = node.operand  # type: ignore[attr-defined]
    return type(node) is ast.Constant


_BIT_OPERATORS = (ast.BitAnd, ast.BitOr, ast.BitXor)


def _may_be_mask(node: ast.expr) -> bool:
    """Could this be a boolean mask as JAX105 reads one: a comparison, `~`/`&`/`|`/`^` of one,
    or a call (JAX105 asks which)."""
    kind = type(node)
    if kind is ast.Compare or kind is ast.Call:
        return True
    if kind is ast.UnaryOp:
        return type(node.op) is ast.Invert  # type: ignore[attr-defined]
    if kind is ast.BinOp:
        return isinstance(node.op, _BIT_OPERATORS)  # type: ignore[attr-defined]
    return False


def _inside_any(function: FunctionInfo, others: list[FunctionInfo]) -> bool:
    parent = function.parent
    while parent is not None:
        if parent in others:
            return True
        parent = parent.parent
    return False
