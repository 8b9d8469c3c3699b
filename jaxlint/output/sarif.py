"""`--output-format sarif`: a SARIF 2.1.0 log with one run, every rule, and the results."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

from jaxlint.diagnostics import Diagnostic, Severity
from jaxlint.output.names import tool_version

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SARIF_VERSION = "2.1.0"
INFORMATION_URI = "https://github.com/jaxlint/jaxlint"
LEVELS = {"error": "error", "warning": "warning", "info": "note"}
SRCROOT = "%SRCROOT%"


def _first_paragraph(page: str) -> str:
    """The first prose paragraph of a rule page (skipping headings)."""
    paragraph: list[str] = []
    for raw in page.splitlines():
        line = raw.strip()
        if line.startswith("#") or not line:
            if paragraph:
                break
            continue
        paragraph.append(line)
    return " ".join(paragraph)


def rule_descriptors() -> list[dict[str, Any]]:
    """One `reportingDescriptor` per known code (engine and registered rules), in code order."""
    from jaxlint.engine.registry import ENGINE_CODES, all_rules, rule_page

    declared: dict[str, tuple[str, Severity, str, dict[str, Any]]] = {}
    for code, (name, severity, summary) in ENGINE_CODES.items():
        declared[code] = (name, severity, summary, {"fixKind": None, "optIn": False})
    for code, rule in all_rules().items():
        properties = {"fixKind": rule.fix_kind, "optIn": rule.opt_in}
        declared[code] = (rule.name, rule.severity, rule.summary, properties)
    descriptors = []
    for code in sorted(declared):
        name, severity, summary, properties = declared[code]
        descriptor: dict[str, Any] = {
            "id": code,
            "name": name,
            "shortDescription": {"text": summary},
            "defaultConfiguration": {"level": LEVELS[severity]},
            "properties": properties,
        }
        page = rule_page(code)
        if page:
            descriptor["fullDescription"] = {"text": _first_paragraph(page) or summary}
            descriptor["help"] = {"text": page, "markdown": page}
        descriptors.append(descriptor)
    return descriptors


def artifact_location(path: str) -> dict[str, str]:
    """A relative, forward-slash, percent-encoded URI under %SRCROOT% (or a file URI outside it)."""
    native = Path(path)
    if native.is_absolute():
        try:
            native = native.relative_to(Path.cwd())
        except ValueError:
            return {"uri": native.as_uri()}
    relative = native.as_posix().replace(os.sep, "/")
    return {"uri": quote(relative, safe="/"), "uriBaseId": SRCROOT}


def _folder_uri(folder: Path) -> str:
    uri = folder.as_uri()
    return uri if uri.endswith("/") else uri + "/"


def _region(diagnostic: Diagnostic) -> dict[str, int]:
    span = diagnostic.span
    end_line = max(span.end_line, span.line)
    end_column = span.end_column
    if end_line == span.line:
        end_column = max(end_column, span.column)
    return {
        "startLine": span.line,
        "startColumn": span.column,
        "endLine": end_line,
        "endColumn": end_column,
    }


def _result(diagnostic: Diagnostic, rule_index: dict[str, int]) -> dict[str, Any]:
    result: dict[str, Any] = {
        "ruleId": diagnostic.code,
        "level": LEVELS.get(diagnostic.severity, "warning"),
        "message": {"text": diagnostic.message},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": artifact_location(diagnostic.path),
                    "region": _region(diagnostic),
                }
            }
        ],
    }
    if diagnostic.code in rule_index:
        result["ruleIndex"] = rule_index[diagnostic.code]
    properties: dict[str, Any] = {}
    if diagnostic.fix is not None:
        properties["fix"] = diagnostic.fix.to_json()
    if diagnostic.cell is not None:
        properties["cell"] = diagnostic.cell
    if diagnostic.observed is not None:
        properties["observed"] = dict(diagnostic.observed)
    if properties:
        result["properties"] = properties
    return result


def sarif_log(diagnostics: Sequence[Diagnostic]) -> dict[str, Any]:
    """The SARIF log object for `diagnostics`."""
    rules = rule_descriptors()
    rule_index = {descriptor["id"]: index for index, descriptor in enumerate(rules)}
    return {
        "$schema": SARIF_SCHEMA,
        "version": SARIF_VERSION,
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "jaxlint",
                        "version": tool_version(),
                        "informationUri": INFORMATION_URI,
                        "rules": rules,
                    }
                },
                "originalUriBaseIds": {SRCROOT: {"uri": _folder_uri(Path.cwd())}},
                "columnKind": "unicodeCodePoints",
                "results": [_result(d, rule_index) for d in diagnostics],
            }
        ],
    }


def format_sarif(diagnostics: Sequence[Diagnostic]) -> str:
    """The SARIF 2.1.0 log as JSON text."""
    return json.dumps(sarif_log(diagnostics), indent=2, ensure_ascii=False) + "\n"
