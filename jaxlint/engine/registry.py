"""Rule discovery: every module in `jaxlint.rules` declares its rules once; this finds them."""

from __future__ import annotations

import importlib
import pkgutil
import re
from functools import cache
from pathlib import Path

from jaxlint.diagnostics import Severity
from jaxlint.engine.rule import Rule

CODE_PATTERN = re.compile(r"^JAX\d{3}$")
# Codes handled by the engine itself rather than a visitor.
# code → (name, severity, summary)
ENGINE_CODES: dict[str, tuple[str, Severity, str]] = {
    "JAX000": ("syntax-error", "error", "a file that cannot be parsed")
}


class RegistryError(Exception):
    """A rule declaration is malformed or duplicated."""


@cache
def all_rules() -> dict[str, type[Rule]]:
    """Every registered rule class, keyed by code, in code order."""
    package = importlib.import_module("jaxlint.rules")
    for module in pkgutil.iter_modules(package.__path__):
        if not module.name.startswith("_"):  # `_name`: a helper shared by rules, not a rule
            importlib.import_module(f"jaxlint.rules.{module.name}")
    found: dict[str, type[Rule]] = {}
    for rule in Rule.declared():
        if not CODE_PATTERN.match(rule.code) or rule.code in ENGINE_CODES:
            raise RegistryError(f"{rule.__name__}: malformed or reserved rule code {rule.code!r}")
        if rule.code in found:
            raise RegistryError(
                f"duplicate rule code {rule.code}: {found[rule.code].__name__} and {rule.__name__}"
            )
        found[rule.code] = rule
    return dict(sorted(found.items()))


def known_codes() -> list[str]:
    """All codes a user may name: engine codes and registered rules."""
    return sorted([*ENGINE_CODES, *all_rules()])


def default_codes() -> frozenset[str]:
    """The default selection: everything except opt-in rules."""
    return frozenset(
        [*ENGINE_CODES, *(code for code, rule in all_rules().items() if not rule.opt_in)]
    )


def rule_pages_dir() -> Path:
    """Where the rule pages live: inside an installed wheel, or `rules/` of a source checkout."""
    package_dir = Path(__file__).resolve().parent.parent
    installed = package_dir / "rule_pages"
    return installed if installed.is_dir() else package_dir.parent / "rules"


def rule_page(code: str) -> str | None:
    """The Markdown page of a rule, or None when there is none."""
    page = rule_pages_dir() / f"{code}.md"
    return page.read_text(encoding="utf-8") if page.is_file() else None
