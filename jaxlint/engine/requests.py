"""The rewrites a rule asks for, and how it asks.

Rules detect; the rewrites layer (`jaxlint.rewrites`, above the rules: it may use their
detection, they never import it) recognises the code to rewrite, models it and generates the
edit. A rule reports `fix=self.context.rewrite(SomeRequest(...))`: the request names the nodes
to rewrite, and the answer, an Edit or the Refusal saying why not, is made while the unit's
syntax tree and its analysis are at hand (a check without `--fix` shows refusals too)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import libcst as cst

from jaxlint.analysis.scope import JitRoot

# `str` for a callee that is builtins.str (and so on), else None
Builtin = Callable[[cst.BaseExpression], "str | None"]


@dataclass(frozen=True)
class ValueQueries:
    """What the print rewrite asks the value analysis about an expression of the print."""

    traced: Callable[[cst.BaseExpression], bool]  # holds a tracer
    array: Callable[[cst.BaseExpression], bool]  # a traced array (not a tuple or other pytree)
    # a parameter of the function: a Python number run eagerly, an array once jit made it one
    parameter: Callable[[cst.BaseExpression], bool]
    mentions_traced: Callable[[cst.BaseExpression], bool]  # its value or text may come from one
    builtin: Builtin
    text: Callable[[cst.BaseExpression], bool]  # may hold a str built in the function from values


class RewriteRequest:
    """A rewrite a rule asks for: one dataclass per rewrite, below."""


@dataclass(frozen=True)
class LoopToArrays(RewriteRequest):
    """A Python `for` loop over an array → the fastest form its dataflow allows, else
    `lax.scan` (JAX101, JAX305)."""

    loop: cst.For


@dataclass(frozen=True)
class StackedComprehension(RewriteRequest):
    """`jnp.stack([e for v in x])` → one `jax.vmap` (`lax.map` where a row prints)."""

    call: cst.Call
    comprehension: cst.ListComp


@dataclass(frozen=True)
class ComprehensionToVmap(RewriteRequest):
    """`jnp.stack([f(v) for v in x])` of per-row calls → `jax.vmap(lambda v: f(v))(x)` (JAX305)."""

    call: cst.Call
    comprehension: cst.ListComp


@dataclass(frozen=True)
class BoundComprehension(RewriteRequest):
    """`name = [e for v in x]`, only ever stacked after → the rows as one array."""

    name: str
    comprehension: cst.ListComp


@dataclass(frozen=True)
class SumOfComprehension(RewriteRequest):
    """`sum(e for v in x)` → one `jnp.sum` of the vectorized terms."""

    call: cst.Call


@dataclass(frozen=True)
class TernaryToWhere(RewriteRequest):
    """`a if traced else b` → `jnp.where`."""

    node: cst.IfExp


@dataclass(frozen=True)
class IfToWhere(RewriteRequest):
    """`if traced: x = a else: x = b` → `x = jnp.where(...)`."""

    node: cst.If


@dataclass(frozen=True)
class WhileToWhileLoop(RewriteRequest):
    """`while traced:` → `lax.while_loop`."""

    loop: cst.While


@dataclass(frozen=True)
class StaticArgname(RewriteRequest):
    """Mark the jitted function's parameter `param` static (`static_argnames`)."""

    param: str


@dataclass(frozen=True)
class MaskedReduction(RewriteRequest):
    """`x[m].sum()` / `jnp.sum(x[m])` → `x.sum(where=m)`."""

    call: cst.Call
    selection: cst.Subscript


@dataclass(frozen=True)
class PrintToDebugPrint(RewriteRequest):
    """`print(...)` of traced values → `jax.debug.print` (`ordered` beside other prints)."""

    call: cst.Call
    verify_target: str | None
    values: ValueQueries
    ordered: bool


@dataclass(frozen=True)
class FStringToTemplate(RewriteRequest):
    """`jax.debug.print(f"...")` → a template and the values as arguments."""

    call: cst.Call
    text: cst.BaseExpression
    values: ValueQueries


@dataclass(frozen=True)
class MethodToHelper(RewriteRequest):
    """A jitted method → a module-level jitted helper taking what it reads of `self`."""

    method: cst.FunctionDef
    root: JitRoot
