"""`--output-format github`: GitHub Actions workflow commands that annotate the pull request."""

from __future__ import annotations

from collections.abc import Sequence

from jaxlint.diagnostics import Diagnostic
from jaxlint.output.escape import printable

_LEVELS = {"error": "error", "warning": "warning", "info": "notice"}


def escape_data(text: str) -> str:
    """Escape a workflow command's message as the runner expects."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """Escape a workflow command property value (`file=`, `title=`)."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def format_annotation(diagnostic: Diagnostic) -> str:
    """One `::error file=…,line=…,col=…,endLine=…,endColumn=…,title=CODE::message` line."""
    span = diagnostic.span
    properties = {
        "file": printable(diagnostic.path.replace("\\", "/")),
        "line": str(span.line),
        "col": str(span.column),
        "endLine": str(span.end_line),
        "endColumn": str(span.end_column),
        "title": diagnostic.code,
    }
    joined = ",".join(f"{key}={escape_property(value)}" for key, value in properties.items())
    message = diagnostic.message
    if diagnostic.cell is not None:
        # Lines count within the cell; say which one, since the annotation lands on the raw file.
        message = f"cell {diagnostic.cell}: {message}"
    if diagnostic.observed is not None and diagnostic.observed.get("confirms_static_finding"):
        message = f"{message} (seen at run time: {diagnostic.observed.get('summary', '')})"
    level = _LEVELS.get(diagnostic.severity, "warning")
    return f"::{level} {joined}::{printable(escape_data(message))}"


def format_github(diagnostics: Sequence[Diagnostic]) -> str:
    """All diagnostics as workflow commands, one per line."""
    return "".join(format_annotation(d) + "\n" for d in diagnostics)
