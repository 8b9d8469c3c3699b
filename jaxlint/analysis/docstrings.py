"""Parameter types written in docstrings (Google and NumPy styles), for research code that
documents `z : list` instead of annotating it."""

from __future__ import annotations

import re

import libcst as cst

_GOOGLE = re.compile(r"^\s*\*{0,2}(\w+)\s*\(([^)]*)\)\s*:", re.MULTILINE)
_NUMPY = re.compile(r"^\s*(\w+)\s*:\s*(\S[^\n]*)$", re.MULTILINE)
_MARKUP = re.compile(r":\w+:|[`~]")
SEQUENCE_WORDS = ("list", "tuple", "sequence", "iterable")
_ARRAY = re.compile(r"^(jax\.|jnp\.|np\.|numpy\.|jax\.numpy\.)?(nd)?array\b|^tensor\b")


def documented_types(function: cst.FunctionDef | cst.Lambda) -> dict[str, str]:
    """Parameter name → the type text its docstring gives, lowercased, without Sphinx markup."""
    if not isinstance(function, cst.FunctionDef):
        return {}
    docstring = function.get_docstring()
    if not docstring:
        return {}
    found: dict[str, str] = {}
    for pattern in (_GOOGLE, _NUMPY):
        for name, text in pattern.findall(docstring):
            found.setdefault(name, _MARKUP.sub("", text).strip().lower())
    return found


def documented_kind(function: cst.FunctionDef | cst.Lambda, name: str) -> str | None:
    """ "sequence" when the docstring says `name` is a list, tuple or sequence (of arrays,
    usually), "array" when it says an array, else None."""
    text = documented_types(function).get(name, "")
    if text.startswith(SEQUENCE_WORDS):
        return "sequence"
    if _ARRAY.search(text):
        return "array"
    return None
