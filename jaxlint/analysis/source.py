"""Reading source text cheaply: the text check for JAX, and `ast` parsing without warnings."""

from __future__ import annotations

import ast
import re
import warnings

# A file that mentions none of these cannot hold a hazard jaxlint knows about.
JAX_MARKERS = ("jax", "equinox", "flax")


_LINE_BREAK = re.compile(r"(?<=\n)|(?<=\r)(?!\n)")


def split_lines(source: str) -> list[str]:
    """Lines as Python's tokenizer counts them (form feeds and other separators stay inside)."""
    if "\r" in source:
        lines = _LINE_BREAK.split(source)
        if lines and lines[-1] == "":
            lines.pop()
        return lines
    *ended, last = source.split("\n")  # what the regular expression does, many times faster
    lines = [line + "\n" for line in ended]
    if last:
        lines.append(last)
    return lines


X64_SPELLINGS = ("enable_x64", "ENABLE_X64")


def mentions_x64(text: str) -> bool:
    """Does the text turn on 64-bit JAX types (`jax.config.update("jax_enable_x64", True)`,
    `JAX_ENABLE_X64=1`, `jax.experimental.enable_x64()`), as far as a text search can tell?"""
    return any(spelling in text for spelling in X64_SPELLINGS)


def parse_python(source: str, path: str = "<source>") -> ast.Module:
    """`ast.parse`, without Python's SyntaxWarnings about the user's code reaching stderr."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)
        return ast.parse(source, filename=path)


def mentions_jax(source: str, jit_decorators: tuple[str, ...] = ()) -> bool:
    """Cheap text check: can this file hold anything jaxlint looks at?"""
    markers = JAX_MARKERS + tuple(d.split(".")[0] for d in jit_decorators)
    return any(marker in source for marker in markers)
