"""The rule declaration: code, name, severity, fix kind and a libcst visitor, declared once."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

import libcst as cst

from jaxlint.diagnostics import FixKind, Severity

if TYPE_CHECKING:
    from jaxlint.context import UnitContext
    from jaxlint.fixes.edits import Edit, Refusal
    from jaxlint.unit_summary import UnitSummary


class Rule:
    """Subclass with class attributes and `visit_<Node>` methods; the registry finds it.

    A rule sees every node of the traced-code units the engine hands it, in one batched
    traversal shared with all other rules. It asks `self.context` (jaxlint.context.UnitContext)
    whether code is traced and what kind of value an expression holds, and calls `self.report`.
    """

    code: ClassVar[str]
    name: ClassVar[str]
    severity: ClassVar[Severity]
    summary: ClassVar[str]
    fix_kind: ClassVar[FixKind | None] = None
    opt_in: ClassVar[bool] = False

    _declared: ClassVar[list[type[Rule]]] = []

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        if "code" in cls.__dict__:
            for attribute in ("name", "severity", "summary"):
                if attribute not in cls.__dict__:
                    raise TypeError(f"rule {cls.__name__} must declare `{attribute}`")
            Rule._declared.append(cls)

    @classmethod
    def declared(cls) -> list[type[Rule]]:
        return list(cls._declared)

    @classmethod
    def may_apply(cls, unit: UnitSummary) -> bool:
        """Cheap prefilter on the unit's `ast` summary: False means this rule cannot fire there.

        Units this rule (and every other enabled rule) rules out never reach libcst, which is
        what keeps jaxlint fast on large libraries. Override it; the default looks everywhere.
        """
        return True

    @classmethod
    def visited_node_types(cls) -> frozenset[str]:
        """Names of the libcst node types this rule visits (from its visit_/leave_ methods)."""
        names = set()
        for attribute in dir(cls):
            for prefix in ("visit_", "leave_"):
                if attribute.startswith(prefix) and callable(getattr(cls, attribute)):
                    names.add(attribute[len(prefix) :].split("_")[0])
        return frozenset(names)

    def __init__(self, context: UnitContext) -> None:
        self.context = context

    def report(
        self,
        node: cst.CSTNode,
        message: str,
        *,
        end_node: cst.CSTNode | None = None,
        fix: Edit | Refusal | None = None,
        severity: str | None = None,
    ) -> None:
        """Record a finding anchored on `node` (through the end of `end_node` when given).

        `severity` overrides the rule's for this finding (a milder case of the same hazard).
        """
        self.context.report(
            self,
            node,
            message,
            end_node=end_node,
            fix=fix,
            severity=severity,
        )
