"""Formatters: a list of Diagnostics → text, JSON, SARIF 2.1.0 or GitHub workflow commands."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence

from jaxlint.diagnostics import Diagnostic
from jaxlint.output.names import rule_name, tool_version

__all__ = ["FORMATS", "HUMAN_FORMATS", "formatter", "rule_name", "tool_version"]

# `text` is the full format's older name, kept for scripts that pass it
HUMAN_FORMATS = ("concise", "full", "text")
FORMATS = (*HUMAN_FORMATS, "json", "sarif", "github")


def formatter(name: str) -> Callable[[Sequence[Diagnostic]], str]:
    """The formatter for an `--output-format` value (the human ones without source lines)."""
    from jaxlint.output import github, json_format, sarif, text  # each imports .names only

    formatters: dict[str, Callable[[Sequence[Diagnostic]], str]] = {
        "concise": functools.partial(text.format_text, concise=True),
        "full": text.format_text,
        "text": text.format_text,
        "json": json_format.format_json,
        "sarif": sarif.format_sarif,
        "github": github.format_github,
    }
    return formatters[name]
