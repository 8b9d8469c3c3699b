"""Formatters: a list of Diagnostics → text, JSON, SARIF 2.1.0 or GitHub workflow commands."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from jaxlint.diagnostics import Diagnostic

FORMATS = ("text", "json", "sarif", "github")


def tool_version() -> str:
    """The installed jaxlint version (`0+unknown` when running from an uninstalled checkout)."""
    try:
        from jaxlint import __version__  # type: ignore[attr-defined]

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


def formatter(name: str) -> Callable[[Sequence[Diagnostic]], str]:
    """The formatter for an `--output-format` value (text without source lines)."""
    from jaxlint.output import github, json_format, sarif, text

    formatters: dict[str, Callable[[Sequence[Diagnostic]], str]] = {
        "text": text.format_text,
        "json": json_format.format_json,
        "sarif": sarif.format_sarif,
        "github": github.format_github,
    }
    return formatters[name]
