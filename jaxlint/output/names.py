"""What every output format names: the tool's version and the rules' names."""

from __future__ import annotations


def tool_version() -> str:
    """The installed jaxlint version (`0+unknown` when running from an uninstalled checkout)."""
    try:
        from jaxlint import __version__  # type: ignore[attr-defined]  # a build may write one

        return str(__version__)
    except ImportError:
        pass
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("jaxlint")
    except PackageNotFoundError:
        return "0+unknown"


def rule_name(code: str) -> str:
    """The kebab-case name of a rule or engine code, or "" for a code nobody registered."""
    from jaxlint.engine.registry import ENGINE_CODES, all_rules

    if code in ENGINE_CODES:
        return ENGINE_CODES[code][0]
    rule = all_rules().get(code)
    return rule.name if rule is not None else ""
