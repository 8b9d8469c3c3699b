"""Reading source text cheaply: the text check for JAX, and `ast` parsing without warnings."""

from __future__ import annotations

import ast
import os
import re
import stat
import sys
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
    """`ast.parse`, without Python's SyntaxWarnings about the user's code reaching stderr.

    Code in a newer Python's syntax than the running one (PEP 695 type parameters and `type`
    statements on 3.11) is parsed as its older equivalent when libcst can read it. Code nested
    too deeply for Python's parser (100,000 `[` or unary minus signs) is a SyntaxError like any
    other, never a RecursionError or MemoryError, and never reaches libcst, whose native parser
    ends the whole process with SIGSEGV on it.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)
        try:
            return ast.parse(source, filename=path)
        except (RecursionError, MemoryError) as error:
            raise SyntaxError("nested too deeply for Python's parser") from error
        except SyntaxError as error:
            too_deep = "too many nested" in str(error) or "too deeply nested" in str(error)
            if too_deep or sys.version_info >= (3, 12) or not _TYPE_PARAMETERS.search(source):
                raise
            lowered = _without_type_parameters(source)
            if lowered is None:
                raise
            try:
                return ast.parse(lowered, filename=path)
            except (SyntaxError, RecursionError, MemoryError):
                pass
            raise


# Where PEP 695 syntax can be: `def f[T](`, `class C[T](`, `class C[\n`, a `type X = ...` line.
_TYPE_PARAMETERS = re.compile(r"\b(?:def|class)\s+\w+\s*\[|^[ \t]*type\s+\w+", re.MULTILINE)


def _without_type_parameters(source: str) -> str | None:
    """`source` with PEP 695 syntax blanked in place (`def f[T](x)` → `def f   (x)`,
    `type A[T] = B` → `A        = B`), every other position kept; None when libcst cannot
    parse it or there is none."""
    import libcst as cst
    from libcst.metadata import MetadataWrapper, PositionProvider

    try:
        wrapper = MetadataWrapper(cst.parse_module(source))
    except Exception:  # noqa: BLE001 — libcst's parse errors, or recursion on deep code
        return None
    positions = wrapper.resolve(PositionProvider)
    lines = split_lines(source)
    # (first line, first column, last line, end column, new text)
    blanks: list[tuple[int, int, int, int, str]] = []
    for node, where in positions.items():
        if isinstance(node, cst.TypeParameters):
            begin, finish = where.start, where.end
            blanks.append((begin.line, begin.column, finish.line, finish.column, ""))
        elif isinstance(node, cst.TypeAlias):
            begin, finish = where.start, positions[node.type_parameters or node.name].end
            blanks.append((begin.line, begin.column, finish.line, finish.column, node.name.value))
    if not blanks:
        return None
    for first, start, last, end, text in sorted(blanks, reverse=True):
        if first == last:
            old = lines[first - 1]
            lines[first - 1] = old[:start] + text.ljust(end - start) + old[end:]
            continue
        # A list over several lines (`class Harmonium[\n    Rep: MatrixRep,\n](Base):`): each
        # of its lines blanked and continued with a backslash, so the header stays one logical
        # line and every line after it keeps its number.
        head = lines[first - 1]
        lines[first - 1] = head[:start] + text + " \\" + _ending(head)
        for number in range(first, last - 1):
            lines[number] = " \\" + _ending(lines[number])
        tail = lines[last - 1]
        lines[last - 1] = " " * end + tail[end:]
    return "".join(lines)


def _ending(line: str) -> str:
    return line[len(line.rstrip("\r\n")) :] or "\n"


def mentions_jax(source: str, jit_decorators: tuple[str, ...] = ()) -> bool:
    """Cheap text check: can this file hold anything jaxlint looks at?"""
    markers = JAX_MARKERS + tuple(d.split(".")[0] for d in jit_decorators)
    return any(marker in source for marker in markers)


_SPECIAL_KINDS = (
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def special_file_kind(path: str | os.PathLike[str]) -> str | None:
    """What `path` is when reading it could block or mean nothing (a FIFO, a device, a socket);
    None for a regular file or folder, and for a path that cannot be looked at (reading it says
    why)."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return None
    return next((kind for test, kind in _SPECIAL_KINDS if test(mode)), None)
