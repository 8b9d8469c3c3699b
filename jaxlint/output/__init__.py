"""Formatters: a list of Diagnostics → text, JSON, SARIF 2.1.0 or GitHub workflow commands."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from jaxlint.diagnostics import Diagnostic
from jaxlint.output.names import rule_name, tool_version

__all__ = ["FORMATS", "formatter", "rule_name", "tool_version"]

FORMATS = ("text", "json", "sarif", "github")


def formatter(name: str) -> Callable[[Sequence[Diagnostic]], str]:
    """The formatter for an `--output-format` value (text without source lines)."""
    from jaxlint.output import github, json_format, sarif, text  # each imports .names only

    formatters: dict[str, Callable[[Sequence[Diagnostic]], str]] = {
        "text": text.format_text,
        "json": json_format.format_json,
        "sarif": sarif.format_sarif,
        "github": github.format_github,
    }
    return formatters[name]
