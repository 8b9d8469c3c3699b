"""Text from the checked tree made safe to print: a path or message never starts a new line,
moves the cursor, colours the terminal or reorders what follows.

A file name may hold any byte but `/` and NUL. Printed raw, `a\n::error file=x::…` injects a
GitHub workflow command into the CI log, and an escape sequence or a bidirectional override
(Trojan Source) changes what a reader sees. Each such character is shown as its Python escape
(`\n`, `\x1b`, `\u202e`); everything else is kept as it is.
"""

from __future__ import annotations

import re
import sys

# C0 controls but tab, DEL, C1 controls, and the Unicode line and paragraph separators and
# bidirectional embeddings, overrides and isolates.
_UNSAFE = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def printable(text: str) -> str:
    """`text` with every character that could break or disguise a line of output escaped."""
    return _UNSAFE.sub(_escaped, text)


def printable_lines(text: str) -> str:
    """`text` escaped line by line: its own line breaks kept, nothing else (a multi-line note
    made by jaxlint whose parts name paths)."""
    return "\n".join(printable(line) for line in text.split("\n"))


def to_stderr(message: str) -> None:
    """Print one line on stderr that the checked tree cannot break or disguise."""
    print(printable(message), file=sys.stderr)


def _escaped(match: re.Match[str]) -> str:
    return repr(match.group())[1:-1]
