"""The language server's input, checked header by header before pygls reads it.

pygls takes a header block without a valid `Content-Length` as nothing and reads on, so one
malformed header (none, `abc`, `-5`) left the server reading message bodies as headers and
answering nothing again; a length of 10¹¹ ended it with MemoryError. A byte stream that has
lost its framing cannot be found again with certainty, so the server stops, saying why on
stderr, and exits 1; a well-framed body that is not JSON is answered with a JSON-RPC error by
pygls and the server goes on.
"""

from __future__ import annotations

import re
from typing import BinaryIO

MAX_HEADER_LINE = 8192  # bytes; LSP headers are two short fields
MAX_BODY = 256 * 1024 * 1024  # bytes: a whole-workspace document is far smaller
_LENGTH = re.compile(rb"content-length:[ \t]*(\d{1,12})[ \t]*\r?\n", re.IGNORECASE)
_FIELD = re.compile(rb"[A-Za-z][A-Za-z0-9-]*:[^\r\n]*\r?\n")


class FramedInput:
    """`readline`/`read` over the client's stream for pygls; on a malformed header both return
    b"" (the end of input, which stops the server) and `problem` says what was wrong."""

    def __init__(self, raw: BinaryIO) -> None:
        self._raw = raw
        self._length: int | None = None  # the current header block's Content-Length
        self.problem: str | None = None

    def readline(self) -> bytes:
        if self.problem is not None:
            return b""
        line = self._raw.readline(MAX_HEADER_LINE + 1)
        if not line:
            return b""
        if line in (b"\r\n", b"\n"):  # the end of a header block
            if self._length is None:
                return self._stop("a message header without a Content-Length field")
            self._length = None
            return b"\r\n"
        length = _LENGTH.fullmatch(line)
        if length is not None:
            size = int(length.group(1))
            if size > MAX_BODY:
                return self._stop(f"a Content-Length of {size} bytes (at most {MAX_BODY})")
            self._length = size
            return b"Content-Length: %d\r\n" % size  # the one spelling pygls recognises
        if line[:15].lower() == b"content-length:":
            return self._stop(f"an invalid Content-Length field {_shown(line)}")
        if len(line) > MAX_HEADER_LINE or _FIELD.fullmatch(line) is None:
            return self._stop(f"{_shown(line)} where a message header was expected")
        return line  # Content-Type, or a field a newer client sends

    def read(self, size: int) -> bytes:
        return b"" if self.problem is not None else self._raw.read(size)

    def _stop(self, problem: str) -> bytes:
        self.problem = f"the client sent {problem}; its messages cannot be told apart any more"
        return b""


def _shown(line: bytes, limit: int = 60) -> str:
    text = line[:limit].decode("utf-8", "replace").rstrip("\r\n")
    return repr(text + ("…" if len(line) > limit else ""))
