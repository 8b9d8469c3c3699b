"""A cheap `ast` summary of one unit, so rules can say whether they could fire there at all."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from jaxlint.analysis.names import ImportTable, dotted_ast
from jaxlint.analysis.scope import FunctionInfo


@dataclass
class UnitSummary:
    """What a unit contains: node types, called names, method names, stores, functions."""

    functions: list[FunctionInfo]
    node_types: set[str] = field(default_factory=set)
    called: set[str] = field(default_factory=set)  # qualified names of called functions
    methods_called: set[str] = field(default_factory=set)  # `.append(...)` → "append"
    stores_into: bool = False  # an attribute or item assignment target
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
    for function in outermost:
        for node in ast.walk(function.node):
            kind = type(node)
            node_types.add(kind.__name__)
            if kind is ast.Call:
                func = node.func  # type: ignore[attr-defined]
                qualified = imports.resolve(dotted_ast(func))
                if qualified is not None:
                    called.add(qualified)
                if type(func) is ast.Attribute:
                    methods.add(func.attr)
            elif (kind is ast.Attribute or kind is ast.Subscript) and type(
                node.ctx  # type: ignore[attr-defined]
            ) is ast.Store:
                summary.stores_into = True
    return summary


def _inside_any(function: FunctionInfo, others: list[FunctionInfo]) -> bool:
    parent = function.parent
    while parent is not None:
        if parent in others:
            return True
        parent = parent.parent
    return False
