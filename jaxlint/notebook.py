"""Jupyter notebooks: lint the code cells as one module, report cell and line, fix cell by cell.

The code cells are joined into one *virtual module* (later cells see the imports and definitions
of earlier ones, as they do in a kernel), with a marker comment between cells. IPython syntax
(`%magic`, `!shell`, `obj?`) is swapped for inert placeholder lines of the same count, so line
numbers hold. Diagnostics are mapped back to (cell, line in cell); `--fix` rewrites the virtual
module, splits it at the markers, puts the IPython lines back, and writes only the changed cells'
`source`, keeping the rest of the JSON as it was.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from jaxlint.analysis.project_view import ProjectView
from jaxlint.analysis.source import parse_python, split_lines
from jaxlint.diagnostics import Diagnostic, Span
from jaxlint.engine.config import Config
from jaxlint.engine.lint import LintResult
from jaxlint.engine.registry import ENGINE_CODES
from jaxlint.fixes.pipeline import lint_source

# Marker lines: comments, so they change neither the analysis nor the indentation structure.
_BOUNDARY = "# jaxlint-notebook-cell-boundary-{number}"
_BOUNDARY_LINE = re.compile(r"^# jaxlint-notebook-cell-boundary-(\d+)\r?\n?$")
_PLACEHOLDER = "# jaxlint-ipython-line-{number}"
_PLACEHOLDER_LINE = re.compile(r"^[ \t]*(?:pass  )?# jaxlint-ipython-line-(\d+)\r?\n?$")
# `files = !ls`, `t = %timeit -o f(x)`: IPython's assignment forms of shell and line magics.
_ASSIGNED_MAGIC = re.compile(
    r"^[ \t]*[A-Za-z_][\w.]*(?:[ \t]*,[ \t]*[A-Za-z_][\w.]*)*[ \t]*=[ \t]*[!%]"
)
_CROSS_CELL = "a fix would change more than one notebook cell; the notebook was not changed"


class NotebookError(ValueError):
    """The file is not a notebook jaxlint can read."""


@dataclass
class _CodeCell:
    """One code cell as it enters the virtual module."""

    index: int  # 1-based position among all the notebook's cells (markdown included)
    text: str  # the cell's source as saved
    masked_lines: list[str]  # IPython lines replaced by placeholders; every line ends in \n
    ipython_lines: dict[int, str] = field(default_factory=dict)  # placeholder number → line
    ends_with_newline: bool = False


@dataclass
class _VirtualModule:
    """The code cells joined with boundary markers, and where each line came from."""

    source: str
    cells: list[_CodeCell]
    # Per virtual line (0-based): (cell index, 1-based line in the cell), or None for a marker.
    origins: list[tuple[int, int] | None]


# ---------------------------------------------------------------- reading the notebook


def read_notebook(text: str) -> dict[str, Any]:
    """The notebook JSON as a dict; NotebookError when it is not an nbformat 4 notebook."""
    try:
        notebook = json.loads(text)
    except json.JSONDecodeError as error:
        raise NotebookError(
            f"not valid notebook JSON: {error.msg} (line {error.lineno}, column {error.colno})"
        ) from None
    if not isinstance(notebook, dict) or not isinstance(notebook.get("cells"), list):
        nbformat = notebook.get("nbformat") if isinstance(notebook, dict) else None
        if isinstance(nbformat, int) and nbformat < 4:
            raise NotebookError(f"nbformat {nbformat} notebooks are not supported (need 4)")
        raise NotebookError("not a Jupyter notebook: no `cells` list")
    return notebook


def cell_source(cell: Mapping[str, Any]) -> str:
    """A cell's `source` as one string (nbformat allows a string or a list of lines)."""
    source = cell.get("source", "")
    if isinstance(source, list):
        return "".join(str(part) for part in source)
    return str(source)


def is_python_notebook(notebook: Mapping[str, Any]) -> bool:
    """False when the notebook's metadata names a kernel language other than Python."""
    metadata = notebook.get("metadata") or {}
    language = (metadata.get("language_info") or {}).get("name") or (
        metadata.get("kernelspec") or {}
    ).get("language")
    return language is None or str(language).lower() == "python"


# ---------------------------------------------------------------- IPython syntax


@dataclass
class _ScanState:
    """Where a line starts: inside brackets, a string, or a backslash continuation."""

    depth: int = 0
    quote: str | None = None
    continued: bool = False

    @property
    def at_statement_start(self) -> bool:
        return self.depth == 0 and self.quote is None and not self.continued


def _scan(line: str, state: _ScanState) -> tuple[_ScanState, str]:
    """The state after `line`, and its last character of code (outside strings and comments)."""
    depth, quote, last = state.depth, state.quote, ""
    body = line.rstrip("\r\n")
    i, n = 0, len(body)
    while i < n:
        char = body[i]
        if quote is not None:
            if char == "\\":
                i += 2
                continue
            if body.startswith(quote, i):
                i += len(quote)
                quote = None
                last = char
                continue
            i += 1
            continue
        if char == "#":
            break
        if char in "'\"":
            quote = char * 3 if body.startswith(char * 3, i) else char
            i += len(quote)
            continue
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth = max(depth - 1, 0)
        if not char.isspace():
            last = char
        i += 1
    escaped_newline = body.endswith("\\") and (len(body) - len(body.rstrip("\\"))) % 2 == 1
    if quote in ("'", '"') and not escaped_newline:
        quote = None  # an unterminated one-line string ends here (a syntax error anyway)
    continued = quote is None and last == "\\" and escaped_newline
    return _ScanState(depth, quote, continued), last


def _is_ipython_line(line: str, last_code_char: str) -> bool:
    stripped = line.strip()
    if stripped.startswith(("%", "!", "?")):
        return True
    if _ASSIGNED_MAGIC.match(line):
        return True
    return last_code_char == "?"  # `obj?`, `obj.method??`: help


def mask_ipython(text: str, first_number: int = 0) -> tuple[list[str], dict[int, str]] | None:
    """The cell's lines with IPython syntax replaced by placeholders; None for a `%%` cell.

    Only lines that start a statement count (a `% b` continuing an expression is Python).
    Placeholders keep the line count: a comment at the top level, `pass` when indented (an
    indented block may hold nothing else).
    """
    lines = split_lines(text)
    meaningful = [line for line in lines if line.strip()]
    if meaningful and meaningful[0].startswith("%%"):
        return None
    masked: list[str] = []
    ipython: dict[int, str] = {}
    state = _ScanState()
    in_magic = False  # a magic line ending in a backslash continues on the next line
    indent = ""
    for line in lines:
        if not line.endswith(("\n", "\r")):
            line += "\n"
        if in_magic or state.at_statement_start:
            new_state, last = _scan(line, state)
            if in_magic or (line.strip() and _is_ipython_line(line, last)):
                number = first_number + len(ipython)
                ipython[number] = line
                if not in_magic:
                    indent = line[: len(line) - len(line.lstrip(" \t"))]
                placeholder = _PLACEHOLDER.format(number=number)
                masked.append(f"{indent}pass  {placeholder}\n" if indent else f"{placeholder}\n")
                in_magic = line.rstrip("\r\n").endswith("\\")
                continue
            state = new_state
        else:
            state, _ = _scan(line, state)
        masked.append(line)
    return masked, ipython


# ---------------------------------------------------------------- the virtual module


def _code_cells(
    notebook: Mapping[str, Any], path: str, config: Config
) -> tuple[list[_CodeCell], list[Diagnostic]]:
    """The code cells that can be linted, and a JAX000 for each cell that does not parse."""
    cells: list[_CodeCell] = []
    errors: list[Diagnostic] = []
    placeholders = 0
    for position, cell in enumerate(notebook["cells"], start=1):
        malformed = _malformed(cell)
        if malformed is not None:
            errors.append(_cell_diagnostic(f"malformed notebook cell: {malformed}", path, position))
            continue
        if cell.get("cell_type") != "code":
            continue
        text = cell_source(cell)
        masked = mask_ipython(text, placeholders)
        if masked is None:
            continue  # a cell magic (`%%timeit`, `%%bash`): not plain Python
        lines, ipython = masked
        placeholders += len(ipython)
        problem = _parse_problem("".join(lines))
        if problem is not None:
            if not _uses_top_level_await("".join(lines)):
                errors.append(_cell_syntax_error(problem, path, position))
            continue  # top-level `await` is valid in IPython, but cannot join a module
        cells.append(_CodeCell(position, text, lines, ipython, text.endswith(("\n", "\r"))))
    if "JAX000" not in config.enabled_codes(path):
        errors = []
    return cells, errors


def _parse_problem(source: str) -> SyntaxError | None:
    """Why a cell cannot join the module: None when it parses."""
    try:
        parse_python(source)
    except SyntaxError as error:
        return error
    except ValueError as error:  # null bytes, on older Pythons
        return SyntaxError(str(error))
    return None


def _uses_top_level_await(source: str) -> bool:
    flags = ast.PyCF_ONLY_AST | ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
    try:
        compile(source, "<cell>", "exec", flags)
    except (SyntaxError, ValueError, RecursionError, MemoryError):  # deep nesting: not await
        return False
    return True


def _malformed(cell: object) -> str | None:
    """What makes a cell break nbformat 4 in a way that matters here, or None."""
    if not isinstance(cell, Mapping):
        return f"{_json_type(cell)}, not an object"
    if not isinstance(cell.get("cell_type"), str):
        return "no `cell_type` text"
    if cell["cell_type"] != "code":
        return None
    source = cell.get("source")
    if isinstance(source, str):
        return None
    if not isinstance(source, list):
        return f"`source` is {_json_type(source)}, not text or a list of lines"
    odd = next((part for part in source if not isinstance(part, str)), None)
    return None if odd is None else f"`source` holds {_json_type(odd)} among its lines"


def _json_type(value: object) -> str:
    if value is None:
        return "missing or null"
    names = {bool: "a boolean", int: "a number", float: "a number", dict: "an object"}
    return names.get(type(value), "a list" if isinstance(value, list) else "text")


def _cell_syntax_error(error: SyntaxError, path: str, cell: int) -> Diagnostic:
    return _cell_diagnostic(f"cannot parse: {error.msg}", path, cell, error.lineno, error.offset)


def _cell_diagnostic(
    message: str, path: str, cell: int, line: int | None = 1, column: int | None = 1
) -> Diagnostic:
    line, column = line or 1, column or 1
    _, severity, _ = ENGINE_CODES["JAX000"]
    return Diagnostic(
        code="JAX000",
        severity=severity,
        message=message,
        path=path,
        span=Span(line, column, line, column),
        cell=cell,
    )


def build_virtual_module(cells: Sequence[_CodeCell]) -> _VirtualModule:
    """Join the cells, a boundary marker between each two, recording each line's origin."""
    parts: list[str] = []
    origins: list[tuple[int, int] | None] = []
    for number, cell in enumerate(cells):
        if number:
            parts.append(_BOUNDARY.format(number=number) + "\n")
            origins.append(None)
        parts.extend(cell.masked_lines)
        origins.extend((cell.index, line) for line in range(1, len(cell.masked_lines) + 1))
    return _VirtualModule("".join(parts), list(cells), origins)


def _origins_of_split(
    cells: Sequence[_CodeCell], cell_lines: Sequence[Sequence[str]]
) -> list[tuple[int, int] | None]:
    origins: list[tuple[int, int] | None] = []
    for number, (cell, lines) in enumerate(zip(cells, cell_lines, strict=True)):
        if number:
            origins.append(None)
        origins.extend((cell.index, line) for line in range(1, len(lines) + 1))
    return origins


def split_virtual_module(source: str, cells: Sequence[_CodeCell]) -> list[list[str]] | None:
    """The fixed virtual module's lines per cell; None when a boundary marker moved or vanished."""
    groups: list[list[str]] = [[]]
    for line in split_lines(source):
        match = _BOUNDARY_LINE.match(line)
        if match is None:
            groups[-1].append(line)
            continue
        if int(match.group(1)) != len(groups):
            return None
        groups.append([])
    return groups if len(groups) == len(cells) else None


def _restore_ipython(lines: Sequence[str], cell: _CodeCell) -> str | None:
    """The cell's new text with its IPython lines back; None if a placeholder left the cell."""
    out: list[str] = []
    seen: set[int] = set()
    for line in lines:
        match = _PLACEHOLDER_LINE.match(line)
        if match is None:
            out.append(line)
            continue
        number = int(match.group(1))
        if number not in cell.ipython_lines or number in seen:
            return None
        seen.add(number)
        out.append(cell.ipython_lines[number])
    if seen != set(cell.ipython_lines):
        return None
    # Blank lines a fix left at the end (libcst puts one after added imports) mean nothing
    # at the end of a cell: keep as many as the cell had.
    while _trailing_blank_lines(out) > _trailing_blank_lines(cell.masked_lines):
        out.pop()
    text = "".join(out)
    if not cell.ends_with_newline and text.endswith("\n"):
        text = text[:-1]
    return text


def _trailing_blank_lines(lines: Sequence[str]) -> int:
    count = 0
    for line in reversed(lines):
        if line.strip():
            break
        count += 1
    return count


# ---------------------------------------------------------------- positions


def _locate(diagnostic: Diagnostic, origins: Sequence[tuple[int, int] | None]) -> Diagnostic | None:
    """The diagnostic with its span in cell coordinates and its `cell` set."""
    start = _origin(diagnostic.span.line, origins)
    if start is None:
        return None
    cell, line = start
    end = _origin(diagnostic.span.end_line, origins)
    if end is not None and end[0] == cell and end[1] >= line:
        end_line, end_column = end[1], diagnostic.span.end_column
    else:  # an end outside the cell (never expected): stop at the start
        end_line, end_column = line, diagnostic.span.column
    span = Span(line, diagnostic.span.column, end_line, end_column)
    return replace(diagnostic, span=span, cell=cell)


def _origin(line: int, origins: Sequence[tuple[int, int] | None]) -> tuple[int, int] | None:
    if not origins:
        return None
    index = min(max(line, 1), len(origins)) - 1
    # A marker line has no origin: take the nearest line of code above it (or below).
    candidates: tuple[int, ...] = (*range(index, -1, -1), *range(index + 1, len(origins)))
    for candidate in candidates:
        if origins[candidate] is not None:
            return origins[candidate]
    return None


def _map_all(
    diagnostics: Sequence[Diagnostic], origins: Sequence[tuple[int, int] | None]
) -> list[Diagnostic]:
    return [d for d in (_locate(d, origins) for d in diagnostics) if d is not None]


# ---------------------------------------------------------------- writing the notebook


def _json_indent(text: str) -> int | str | None:
    match = re.search(r"^[{\[]\r?\n([ \t]+)\S", text)
    if match is None:
        return None
    indent = match.group(1)
    return len(indent) if set(indent) == {" "} else indent


def dump_notebook(notebook: Mapping[str, Any], original_text: str) -> str:
    """The notebook as JSON in the original text's style: indent, escaping, final newline."""
    indent = _json_indent(original_text)
    original = json.loads(original_text)
    choice = None
    for ensure_ascii in (False, True):
        dumped = json.dumps(original, indent=indent, ensure_ascii=ensure_ascii)
        if dumped == original_text.rstrip("\r\n"):
            choice = ensure_ascii
            break
    if choice is None:  # not Jupyter's own style: keep the indent, escape as the file did
        choice = original_text.isascii() and "\\u" in original_text
    text = json.dumps(notebook, indent=indent, ensure_ascii=choice)
    newline = original_text[len(original_text.rstrip("\r\n")) :]
    return text + newline


def _set_source(cell: dict[str, Any], text: str) -> None:
    if isinstance(cell.get("source"), list):
        cell["source"] = text.splitlines(keepends=True)
    else:
        cell["source"] = text


# ---------------------------------------------------------------- linting


def lint_notebook(
    text: str,
    path: str,
    config: Config,
    *,
    fix: bool = False,
    unsafe_fixes: bool = False,
    verify: bool = True,
    project: ProjectView | None = None,  # a notebook is its own module: nothing to take from it
) -> LintResult:
    """Lint a notebook's code cells; with `fix`, `fixed_source` is the new notebook JSON."""
    bom = "\ufeff" if text.startswith("\ufeff") else ""
    text = text[len(bom) :]
    try:
        notebook = read_notebook(text)
    except NotebookError as error:
        return LintResult([_file_error(str(error), path)])
    if not is_python_notebook(notebook):
        return LintResult([])
    cells, errors = _code_cells(notebook, path, config)
    if not cells:
        return LintResult(sorted(errors, key=_cell_order))
    virtual = build_virtual_module(cells)
    result = lint_source(
        virtual.source, path, config, fix=fix, unsafe_fixes=unsafe_fixes, verify=verify
    )
    if result.fixed_source is None:
        diagnostics = errors + _map_all(result.diagnostics, virtual.origins)
        return LintResult(sorted(diagnostics, key=_cell_order))

    groups = split_virtual_module(result.fixed_source, cells)
    new_texts = _restore_cells(groups, cells) if groups is not None else None
    if groups is None or new_texts is None:
        return _refuse(virtual, path, config, errors, unsafe_fixes)
    applied = [d for d in result.diagnostics if d.fix is not None and d.fix.applied]
    remaining = [d for d in result.diagnostics if d.fix is None or not d.fix.applied]
    diagnostics = (
        errors
        + _map_all(_original_spans(applied, virtual, path, config), virtual.origins)
        + _map_all(remaining, _origins_of_split(cells, groups))
    )
    changed = False
    for cell, new_text in zip(cells, new_texts, strict=True):
        if new_text != cell.text:
            _set_source(notebook["cells"][cell.index - 1], new_text)
            changed = True
    fixed = bom + dump_notebook(notebook, text) if changed else None
    return LintResult(sorted(diagnostics, key=_cell_order), fixed_source=fixed)


def _restore_cells(groups: Sequence[Sequence[str]], cells: Sequence[_CodeCell]) -> list[str] | None:
    texts = []
    for cell, lines in zip(cells, groups, strict=True):
        restored = _restore_ipython(lines, cell)
        if restored is None:
            return None
        texts.append(restored)
    return texts


def _original_spans(
    applied: Sequence[Diagnostic], virtual: _VirtualModule, path: str, config: Config
) -> list[Diagnostic]:
    """Applied fixes' diagnostics placed where they were in the notebook as read.

    A fix applied in a later round is reported on the text of that round, which earlier
    rounds may have shifted (an added import): find the same diagnostic in the original.
    """
    if not applied:
        return []
    checked = lint_source(virtual.source, path, config)
    spans: dict[tuple[str, str], list[Span]] = {}
    for diagnostic in checked.diagnostics:
        spans.setdefault((diagnostic.code, diagnostic.message), []).append(diagnostic.span)
    out = []
    for diagnostic in applied:
        candidates = spans.get((diagnostic.code, diagnostic.message))
        if candidates:
            diagnostic = replace(diagnostic, span=candidates.pop(0))
        out.append(diagnostic)
    return out


def _refuse(
    virtual: _VirtualModule,
    path: str,
    config: Config,
    errors: list[Diagnostic],
    unsafe_fixes: bool,
) -> LintResult:
    """No change: the diagnostics as when checking, each fix saying why it was not applied."""
    checked = lint_source(virtual.source, path, config)
    diagnostics = list(errors)
    for diagnostic in _map_all(checked.diagnostics, virtual.origins):
        fix = diagnostic.fix
        if fix is not None and (fix.kind != "suggestion" or unsafe_fixes) and fix.note is None:
            diagnostic = diagnostic.with_fix(replace(fix, applied=False, note=_CROSS_CELL))
        diagnostics.append(diagnostic)
    return LintResult(sorted(diagnostics, key=_cell_order))


def _file_error(message: str, path: str) -> Diagnostic:
    line = column = 1
    match = re.search(r"\(line (\d+), column (\d+)\)$", message)
    if match:
        line, column = int(match.group(1)), int(match.group(2))
    _, severity, _ = ENGINE_CODES["JAX000"]
    return Diagnostic(
        code="JAX000",
        severity=severity,
        message=message,
        path=path,
        span=Span(line, column, line, column),
    )


def _cell_order(diagnostic: Diagnostic) -> tuple[str, int, int, int, str]:
    return (
        diagnostic.path,
        diagnostic.cell or 0,
        diagnostic.span.line,
        diagnostic.span.column,
        diagnostic.code,
    )
