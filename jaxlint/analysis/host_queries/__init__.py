"""Host queries: the facts about code outside traced functions that a rule asks the engine to
find, so that the statements holding them reach libcst too.

Traced code alone reaches libcst unless a rule asks for more. A rule that also looks at host
code declares one query (`Rule.host_query`); the engine walks the module's `ast` once, top-level
statement by top-level statement (a class member by member), and asks each declared query about
the nodes of its types. The queries, one module each:

- `at_updates.DISCARDED_AT_UPDATES`: `x.at[i].set(v)` as a statement (JAX205)
- `jax_stores.STORES_INTO_JAX_RESULTS`: `x[i] = v` into a name bound to a JAX call (JAX204)
- `fresh_jits.REPEATED_FRESH_JITS`: jits of callables made anew, evaluated repeatedly (JAX302)
- `static_calls.DISPLAYS_TO_STATIC_ARGS`: calls of static-arg jits passing displays (JAX304)
- `row_loops.ROW_BY_ROW_WORK`: stacked comprehensions and accumulating loops (JAX305)
- `clocks.CLOCK_CALLS`: wall-clock reads and `timeit` calls (JAX307)
- `float64.FLOAT64_MARKERS`: 64-bit dtypes asked for, and x64 turned on (JAX401)
- `prng_anchors.prng_anchor_calls(code)`: the calls PRNG key findings anchor on (JAX501/502)
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass

from jaxlint.analysis.scope import ModuleIndex

# Is the node (of the query's types, inside the top-level statement or class member given) a
# candidate? True: its line's unit; an int: the line whose unit must be analysed (a nested def's
# finding needs the function around it).
Candidate = Callable[[ast.AST, ast.stmt, ModuleIndex], "bool | int"]
# Can source text on these lines hold a candidate at all? (see HostQuery.text)
TextFilter = Callable[[str, ModuleIndex, range], bool]


def anywhere(text: str, index: ModuleIndex, lines: range) -> bool:
    """The text filter of a query no text rules out."""
    return True


@dataclass(frozen=True)
class HostQuery:
    """What a rule looks for outside traced code, as the engine's one `ast` walk asks it.

    `node_types`: the `ast` node types `candidate` is asked about (statements and expressions:
    each has a line). `text`: a cheap test of a statement's source text (`".at["` for JAX205)
    before its nodes are walked; a test of presence, true of a text only if true of any text
    around it (the engine asks it of the whole module first, and skips the query where that
    says no). `candidate`: is this node one, wherever it is (see `Candidate`)?
    """

    name: str
    node_types: tuple[type[ast.AST], ...]
    candidate: Candidate
    text: TextFilter = anywhere
