"""What a fix is: libcst node replacements, imports it needs, and what verification must prove."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import libcst as cst

from jaxlint.diagnostics import FixKind

Replacement = cst.CSTNode | cst.RemovalSentinel | cst.FlattenSentinel[cst.CSTNode]


@dataclass(frozen=True)
class ImportSpec:
    """`import module` (name None) or `from module import name`."""

    module: str
    name: str | None = None


@dataclass(frozen=True, eq=False)
class Edit:
    """A rewrite of one finding, applied by `jaxlint.fixes.apply.apply_edits`.

    `replacements` maps original nodes (by identity) to what replaces them. `verify_target` is
    the qualified name of the module-level function or `Class.method` whose behaviour the edit
    changes: verification runs it before and after (SPEC §5).
    """

    replacements: Mapping[cst.CSTNode, Replacement]
    description: str
    imports: tuple[ImportSpec, ...] = ()
    verify_target: str | None = None
    require_fewer_eqns: bool = False
    # Module-level names the edit defines: two edits of one round must not define the same one
    # (each picked a fresh name against the same text).
    module_names: tuple[str, ...] = ()
    # This edit's safety when not the rule's: a rule with safe fixes may offer one that must be
    # verified (JAX102: `max(a, b)` → `jnp.maximum` is safe, a branch → `jnp.where` is verified).
    kind: FixKind | None = None
    # Verification's reference is the original run on NumPy copies of its array inputs: the
    # NumPy semantics the code was written for, where the original as written always raises
    # (JAX204: a store into a parameter of a jitted function).
    numpy_reference: bool = False
    # The edit changes how its target is staged (a jitted method made a jitted helper): the
    # original as written is no reference for what the method leaves on `self`.
    restages: bool = False
    # The edit changes what is printed: prints must match the unstaged original's, never the
    # jitted original's trace-time ones.
    rewrites_prints: bool = False
    # The edit is made for speed: run time slower than the original's is flagged.
    judge_run_time: bool = False


@dataclass(frozen=True)
class Refusal:
    """Why a finding of a fixable rule gets no automatic rewrite (shown to the user)."""

    reason: str
