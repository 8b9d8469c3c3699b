"""JAX105's rewrite of a reduction over a masked selection: `x[m].sum()` → `x.sum(where=m)`.

`x[m]` has as many elements as `m` has True values, a size JAX cannot know while tracing.
Reducing it gives one number, which NumPy's `where=` argument of the reduction computes without
the selection: `x.sum(where=m)` adds the elements where `m` is True, `x.mean(where=m)` divides by
their count, and so for `prod`, `any`, `all`, `std` and `var` (and the `jnp.sum(x[m])` spelling),
with the same dtype rules and the same results for an empty selection (0, nan, 1, False, True).
That holds when `m` has `x`'s shape (a mask over rows, `x[m]` with `m` of shape `(n,)` and `x` of
`(n, d)`, would need `m[:, None]`): verification checks it by running both. `max` and `min` are
refused: an empty selection raises in the original, while `x.max(where=m, initial=v)` returns
`v`, a value the author must choose.
"""

from __future__ import annotations

import libcst as cst

from jaxlint.engine.edits import Edit, Refusal
from jaxlint.engine.rule import UnitContext
from jaxlint.rules.jax105_value_dependent_shape import EXTREMA, reduction_of


def masked_reduction_edit(
    call: cst.Call, selection: cst.Subscript, context: UnitContext
) -> Edit | Refusal:
    """`x[m].sum()` / `jnp.sum(x[m])` → `x.sum(where=m)`, or why not."""
    name, _ = reduction_of(call, context)
    if name in EXTREMA:
        return Refusal(
            f"an empty selection makes `{name}` raise, while `x.{name}(where=m, initial=v)` "
            "returns `v`: choose `v` and write it by hand"
        )
    mask = selection.slice[0].slice
    assert isinstance(mask, cst.Index)
    code = cst.Module(body=[]).code_for_node
    base = selection.value
    base_code = code(base)
    if not isinstance(base, (cst.Name, cst.Attribute, cst.Subscript, cst.Call)):
        base_code = f"({base_code})"
    replacement = cst.parse_expression(f"{base_code}.{name}(where={code(mask.value)})")
    return Edit(
        replacements={call: replacement.with_changes(lpar=call.lpar, rpar=call.rpar)},
        description=f"x[mask].{name}() → x.{name}(where=mask)",
        imports=(),
        verify_target=context.verify_target(),
    )
