"""What of the verification child's text may reach a report: words jaxlint or the checked
module already holds, and numbers.

Every string the child sends back (a signature's description, an exception's class name, a
note) passes through `Vocabulary.clean`: a word that is in neither the source of jaxlint's
verification, the module's source before and after the fix, its path, nor Python's and JAX's
exception names is shown as `…`. So text the checked code made up at run time (a secret it read
from a file or the environment, reversed or re-encoded) never reaches the report or
`.jaxlint_cache`; the child can still choose among known words and numbers (a covert channel of
a few bytes per message, stated in SECURITY.md).
"""

from __future__ import annotations

import builtins
import functools
import re
from collections.abc import Iterable
from pathlib import Path

_TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[0-9]+|.", re.DOTALL)
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
MAX_DIGITS = 12  # a longer run of digits is no count, size or difference jaxlint reports
MAX_LENGTH = 2000
HIDDEN = "…"
_SYMBOLS = frozenset("→Δ…µ×≤≥·²⁻⁴|")  # jaxlint's own, beside printable ASCII
# exceptions JAX, NumPy and flax raise that user code meets (class names only)
_LIBRARY_ERRORS = [
    "TracerBoolConversionError",
    "ConcretizationTypeError",
    "TracerArrayConversionError",
    "TracerIntegerConversionError",
    "UnexpectedTracerError",
    "NonConcreteBooleanIndexError",
    "KeyReuseError",
    "JaxRuntimeError",
    "XlaRuntimeError",
    "InconclusiveDimensionOperation",
    "UFuncTypeError",
    "LinAlgError",
    "AxisError",
    "ScopeParamShapeError",
    "ScopeParamNotFoundError",
    "ApplyScopeInvalidVariablesTypeError",
]


@functools.cache
def _known_words() -> frozenset[str]:
    """The words of verification's source (every message it composes is made of them), and the
    names of Python's builtins and of the library exceptions above."""
    words: set[str] = set(dir(builtins)) | set(_LIBRARY_ERRORS)
    for path in Path(__file__).resolve().parent.glob("*.py"):
        try:
            words.update(_WORD.findall(path.read_text(encoding="utf-8")))
        except (OSError, UnicodeDecodeError):
            continue
    return frozenset(words)


class Vocabulary:
    """The words allowed in a report about one verification request."""

    def __init__(self, texts: Iterable[str]) -> None:
        words = set(_known_words())
        for text in texts:
            words.update(_WORD.findall(text))
        self._words = frozenset(words)

    def clean(self, text: object) -> str:
        """`text` with every unknown word and every overlong number shown as `…`, and control
        characters and unknown symbols as `?`; at most MAX_LENGTH characters. A non-string
        is `…`."""
        if not isinstance(text, str):
            return HIDDEN
        out: list[str] = []
        for token in _TOKEN.findall(text[: 4 * MAX_LENGTH]):
            if token[0].isdigit():
                out.append(token if len(token) <= MAX_DIGITS else HIDDEN)
            elif _WORD.fullmatch(token):
                out.append(token if token in self._words else HIDDEN)
            else:
                out.append(token if " " <= token <= "~" or token in _SYMBOLS else "?")
        cleaned = "".join(out)
        return cleaned if len(cleaned) <= MAX_LENGTH else cleaned[: MAX_LENGTH - 1] + HIDDEN
