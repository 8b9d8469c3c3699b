"""JAX502 prng-key-in-loop: a PRNG key that is the same on every iteration of a loop."""

from __future__ import annotations

import libcst as cst

from jaxlint.analysis.host_queries.prng_anchors import prng_anchor_calls
from jaxlint.analysis.prng import KeyFinding
from jaxlint.engine.edits import Edit, Refusal
from jaxlint.rules._prng_rule import KeyFindingRule, key_argument, random_module


class PrngKeyInLoop(KeyFindingRule):
    code = "JAX502"
    name = "prng-key-in-loop"
    severity = "warning"
    fix_kind = "suggestion"
    summary = "a PRNG key unchanged across loop iterations: every iteration draws the same numbers"
    host_query = prng_anchor_calls(code)

    def fix(self, call: cst.Call, finding: KeyFinding) -> Edit | Refusal:
        if finding.loop is None:
            return Refusal(
                "the key is fixed where it is made (a default, an attribute set once): which "
                "key each call should draw from is yours to choose"
            )
        if finding.key is None:
            return Refusal(
                "make the key once before the loop and fold in the loop index: where the seed "
                "comes from is yours to choose"
            )
        if finding.seed:
            return Refusal("an integer seed, not a key: give each iteration its own seed by hand")
        if finding.in_closure:
            return Refusal(
                "a local function draws from the key it closes over: give it the key as a "
                "parameter and fold the loop index in by hand"
            )
        if finding.fold_in_index is None:
            return Refusal(
                "the loop has no integer index that is distinct on every iteration (or an "
                "outer loop repeats it): split the key inside the loop by hand"
            )
        if finding.consumers != 1:
            return Refusal(
                f"the key has {finding.consumers} consumers per iteration: split it inside the "
                "loop by hand"
            )
        key = key_argument(self.context, call, finding)
        if not isinstance(key, (cst.Name, cst.Attribute)):
            return Refusal("the key is not a plain argument of this call: fold it by hand")
        random, imports = random_module(self.context, call)
        folded = cst.parse_expression(
            f"{random}.fold_in({cst.Module([]).code_for_node(key)}, {finding.fold_in_index})"
        )
        return Edit(
            replacements={key: folded},
            description=f"fold the loop index `{finding.fold_in_index}` into the key",
            imports=imports,
        )
