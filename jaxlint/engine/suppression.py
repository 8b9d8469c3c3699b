"""`# noqa` and `# jaxlint: skip-file` comments: which findings the user has silenced."""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

# flake8's inline form, loosened for spacing: bare noqa, `noqa:JAX101,JAX2`, `noqa : JAX101 , JAX2`.
# "noqa" must follow the hash directly (after blanks) and end a word, so a comment that merely
# mentions the word, or `noqa-like`, is no suppression. A code is letters then digits, or `JAX`.
_CODE = r"(?:[A-Z]+[0-9]+|JAX)(?![A-Z0-9_])"
_NOQA = re.compile(
    rf"#\s*noqa(?![\w-])(?:\s*:\s*(?P<codes>{_CODE}(?:\s*[,\s]\s*{_CODE})*))?",
    re.IGNORECASE,
)
_SKIP_FILE = re.compile(
    r"^[ \t]*#[ \t]*jaxlint[ \t]*:[ \t]*skip-file(?![\w-])", re.IGNORECASE | re.M
)
_SEPARATOR = re.compile(r"[,\s]+")

# What a line's noqa comment covers: None (no comment), ALL (bare noqa) or a tuple of code prefixes.
ALL: tuple[str, ...] = ("*",)


def file_is_skipped(source: str) -> bool:
    """True when the source has a `# jaxlint: skip-file` comment line."""
    return _SKIP_FILE.search(source) is not None


@lru_cache(maxsize=4096)
def noqa_codes(line_text: str) -> tuple[str, ...] | None:
    """The codes a line's noqa comment names: None without one, ALL for a bare noqa."""
    if "noqa" not in line_text.lower():
        return None
    for match in _NOQA.finditer(line_text):
        codes = match.group("codes")
        if codes is None:
            return ALL
        return tuple(code.upper() for code in _SEPARATOR.split(codes) if code)
    return None


def _covers(codes: tuple[str, ...], code: str) -> bool:
    return any(code.startswith(prefix) for prefix in codes)


def _line(lines: Sequence[str], number: int) -> str:
    return lines[number - 1] if 1 <= number <= len(lines) else ""


def is_suppressed(
    code: str, line: int, lines: Sequence[str], header_lines: Sequence[int] = ()
) -> bool:
    """True when a noqa on `line`, or one naming codes on a function header, covers `code`."""
    on_line = noqa_codes(_line(lines, line))
    if on_line == ALL or (on_line is not None and _covers(on_line, code)):
        return True
    for header in header_lines:
        codes = noqa_codes(_line(lines, header))
        # A bare noqa on a def line silences that line only, never the whole function.
        if codes is not None and codes != ALL and _covers(codes, code):
            return True
    return False


def with_noqa_code(line_text: str, code: str) -> str:
    """The line (without its line break) with `code` added to its noqa comment, or with a new
    `  # noqa: CODE` comment at its end."""
    for match in _NOQA.finditer(line_text):
        end = match.end("codes") if match.group("codes") else match.end()
        separator = ", " if match.group("codes") else ": "
        return line_text[:end] + separator + code + line_text[end:]
    return f"{line_text}  # noqa: {code}"
