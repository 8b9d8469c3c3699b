"""CLOCK_CALLS: reads of a wall clock (`time.perf_counter()`) and `timeit` calls, where a timing
of JAX work may stop before the work is done (JAX307)."""

from __future__ import annotations

import ast
import re

from jaxlint.analysis.host_queries import HostQuery
from jaxlint.analysis.names import dotted_ast
from jaxlint.analysis.scope import ModuleIndex

CLOCKS = frozenset(
    {
        "time.time",
        "time.perf_counter",
        "time.monotonic",
        "time.time_ns",
        "time.perf_counter_ns",
        "time.monotonic_ns",
        "timeit.default_timer",
    }
)
TIMEITS = frozenset({"timeit.timeit", "timeit.repeat"})
CLOCK_NAMES = frozenset(q.rsplit(".", 1)[1] for q in CLOCKS | TIMEITS)
# `time(`, `perf_counter (`: a clock name then a call; whole names are told apart in
# `calls_a_clock` (a leading `\b` makes the search several times slower)
CLOCK_TEXT = re.compile(rf"(?:{'|'.join(sorted(CLOCK_NAMES))})\s*\(")


def calls_a_clock(text: str) -> bool:
    """Does the text call a clock or `timeit` by one of their names (`perf_counter(`, not
    `my_time(`)?"""
    for match in CLOCK_TEXT.finditer(text):
        start = match.start()
        if start == 0 or not (text[start - 1].isalnum() or text[start - 1] == "_"):
            return True
    return False


def _calls_a_clock(text: str, index: ModuleIndex, lines: range) -> bool:
    return calls_a_clock(text)


def _clock_call(node: ast.AST, statement: ast.stmt, index: ModuleIndex) -> bool:
    assert isinstance(node, ast.Call)  # (the query's node types)
    func = node.func
    last = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    if last not in CLOCK_NAMES:
        return False  # most calls: no import lookup
    qualified = index.imports.resolve(dotted_ast(func))
    return qualified in CLOCKS or qualified in TIMEITS


CLOCK_CALLS = HostQuery("clock and timeit calls", (ast.Call,), _clock_call, text=_calls_a_clock)
