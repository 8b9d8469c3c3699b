"""The rewrites layer: what the rules ask for (`jaxlint.engine.requests`), built.

Each engine recognises the code it is asked to rewrite (refusing, with the reason, what it
cannot rewrite exactly), models it, and generates one edit, which carries its verification
policy (`Edit.restages`, `rewrites_prints`, `judge_run_time`): `verify/` reads the edit, never
the rule. The loop engine is the largest: `loop_scan` recognises and models the loop,
`loop_forms` picks the fastest form its dataflow allows, `loop_flow` and `slot_lists` are its
analyses of the body. The layer sits above the rules (it uses their detection: which
comprehensions are stacked, what a print makes text of) and below the fix pipeline.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar, cast

from jaxlint.engine import requests as r
from jaxlint.engine.edits import Edit, Refusal
from jaxlint.engine.rule import Answer, UnitContext
from jaxlint.rewrites.comprehension_map import bound_map_edit, map_edit, sum_edit, vmap_edit
from jaxlint.rewrites.debug_print import debug_print_edit, template_edit
from jaxlint.rewrites.loop_scan import scan_edit
from jaxlint.rewrites.masked_reduction import masked_reduction_edit
from jaxlint.rewrites.method_helper import helper_edit
from jaxlint.rewrites.static_argnames import static_argname_edit
from jaxlint.rewrites.where import if_assignment_edit, ternary_edit
from jaxlint.rewrites.while_loop import while_loop_edit

Q = TypeVar("Q", bound=r.RewriteRequest)


def _answer(
    kind: type[Q], answer: Callable[[Q, UnitContext], Edit | Refusal | None]
) -> tuple[type[r.RewriteRequest], Answer]:
    """`kind` and its answer, as ANSWERS files it. An answer takes only its own request type,
    which the engine guarantees (it looks the answer up by the request's type); the dict's
    value type cannot say so, hence the cast."""
    return kind, cast(Answer, answer)


ANSWERS: dict[type[r.RewriteRequest], Answer] = dict(
    [
        _answer(r.LoopToArrays, lambda q, c: scan_edit(q.loop, c)),
        _answer(r.StackedComprehension, lambda q, c: map_edit(q.call, q.comprehension, c)),
        _answer(r.ComprehensionToVmap, lambda q, c: vmap_edit(q.call, q.comprehension, c)),
        _answer(r.BoundComprehension, lambda q, c: bound_map_edit(q.name, q.comprehension, c)),
        _answer(r.SumOfComprehension, lambda q, c: sum_edit(q.call, c)),
        _answer(r.TernaryToWhere, lambda q, c: ternary_edit(q.node, c)),
        _answer(r.IfToWhere, lambda q, c: if_assignment_edit(q.node, c)),
        _answer(r.WhileToWhileLoop, lambda q, c: while_loop_edit(q.loop, c)),
        _answer(r.StaticArgname, lambda q, c: static_argname_edit(q.param, c)),
        _answer(r.MaskedReduction, lambda q, c: masked_reduction_edit(q.call, q.selection, c)),
        _answer(
            r.PrintToDebugPrint,
            lambda q, c: debug_print_edit(q.call, q.verify_target, q.values, ordered=q.ordered),
        ),
        _answer(r.FStringToTemplate, lambda q, c: template_edit(q.call, q.text, q.values)),
        _answer(r.MethodToHelper, lambda q, c: helper_edit(q.method, q.root, c)),
    ]
)
