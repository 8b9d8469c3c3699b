"""prng_anchor_calls(code): the calls the PRNG key analysis anchored `code`'s findings on
(JAX501 key reuse, JAX502 a key unchanged in a loop), host code included."""

from __future__ import annotations

import ast
from functools import cache

from jaxlint.analysis.host_queries import HostQuery
from jaxlint.analysis.prng import anchored_calls, key_findings
from jaxlint.analysis.scope import ModuleIndex


@cache
def prng_anchor_calls(code: str) -> HostQuery:
    """The query for the findings of rule `code` (one object per code)."""

    def anchored_on(text: str, index: ModuleIndex, lines: range) -> bool:
        # the lines the findings are anchored on, not the text: the analysis has run
        anchored = index.memoized(
            ("prng-anchor-lines", code),
            lambda: sorted(f.node.lineno for f in key_findings(index) if f.code == code),
        )
        return any(line in lines for line in anchored)

    def anchor(node: ast.AST, statement: ast.stmt, index: ModuleIndex) -> bool:
        return id(node) in anchored_calls(index, code)

    return HostQuery(f"{code}'s PRNG anchor calls", (ast.Call,), anchor, text=anchored_on)
