"""Comprehensions that build arrays: the stacked ones (`jnp.stack([... for ...])`) and the
bound ones (`rows = [... for ...]`), as JAX101 and JAX305 detect them and the comprehension
rewrite (jaxlint.rewrites.comprehension_map) receives them."""

from __future__ import annotations

import libcst as cst

from jaxlint.analysis.jax_api import STACKERS
from jaxlint.engine.edits import Refusal
from jaxlint.engine.rule import UnitContext


def stacked_comprehension(call: cst.Call, context: UnitContext) -> cst.ListComp | None:
    """The list comprehension `call` stacks (`jnp.stack([...])`, `jnp.stack([...], axis=0)`),
    if it is one."""
    if (
        call.args
        and not call.args[0].keyword
        and not call.args[0].star
        and isinstance(call.args[0].value, cst.ListComp)
        and stacks_rows(call, context)
    ):
        return call.args[0].value
    return None


def stacks_rows(call: cst.Call, context: UnitContext) -> bool:
    """Does `call` stack its one list along a new first axis: `jnp.array(rows)`,
    `jnp.asarray(rows)`, `jnp.stack(rows)`, `jnp.stack(rows, 0)`, `jnp.stack(rows, axis=0)`?"""
    qualified = context.resolve(call.func)
    if qualified not in STACKERS:
        return False
    rest = call.args[1:]
    if not rest:
        return True
    axis = rest[0]
    return (
        qualified == "jax.numpy.stack"
        and len(rest) == 1
        and not axis.star
        and (axis.keyword is None or axis.keyword.value == "axis")
        and isinstance(axis.value, cst.Integer)
        and axis.value.evaluated_value == 0
    )


def bound_comprehension(
    assign: cst.Assign,
) -> tuple[str, cst.ListComp] | None:
    """`(name, comprehension)` of `name = [... for ...]`, if `assign` is one."""
    if (
        len(assign.targets) == 1
        and isinstance(assign.targets[0].target, cst.Name)
        and isinstance(assign.value, cst.ListComp)
    ):
        return assign.targets[0].target.value, assign.value
    return None


UNSTACKED = Refusal(
    "the list is used as a list (not only stacked by jnp.stack/jnp.array), so it has no "
    "lax.map form; compute the rows as one array (jax.vmap) where the code allows"
)
