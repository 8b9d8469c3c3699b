"""The progress line a terminal shows during long work: files linted, rewrites verified, time.

Drawn on stderr only when it is a terminal (never in a pipe, a file or CI logs, nor with
`--quiet`), redrawn in place at most every 0.1 s, and erased before the report is printed.
"""

from __future__ import annotations

import sys
import threading
import time
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from jaxlint.verify.protocol import VerifyResult

_REDRAW_S = 0.1


class Progress:
    """Counters of one run, drawn as one line on a terminal."""

    def __init__(self, stream: TextIO | None = None, *, enabled: bool | None = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = self.stream.isatty() if enabled is None else enabled
        self.total = 0
        self.linted = 0
        self.checked = 0  # rewrites whose verification finished
        self.verified = 0
        self._started = time.monotonic()
        self._drawn_at = 0.0
        self._width = 0
        self._lock = threading.Lock()  # the clock redraws from its own thread
        self._stopped = threading.Event()

    def start(self, total: int) -> None:
        """Show the line, and keep its clock running through long verifications."""
        self.total = total
        self._draw(force=True)
        if self.enabled:
            threading.Thread(target=self._tick, daemon=True).start()

    def _tick(self) -> None:
        while not self._stopped.wait(1.0):
            self._draw(force=True)

    def files_done(self, count: int = 1) -> None:
        self.linted += count
        self._draw(force=self.linted == self.total)

    def verification_done(self, result: VerifyResult) -> None:
        self.checked += 1
        self.verified += result.status == "verified"
        self._draw(force=True)

    def line(self) -> str:
        elapsed = int(time.monotonic() - self._started)
        text = f"jaxlint: {self.linted}/{self.total} files linted"
        if self.checked:
            text += f", {self.checked} rewrites verified with JAX ({self.verified} passed)"
        return f"{text} · {elapsed // 60}:{elapsed % 60:02}"

    def _draw(self, *, force: bool = False) -> None:
        if not self.enabled:
            return
        with self._lock:
            if self._stopped.is_set():
                return
            now = time.monotonic()
            if not force and now - self._drawn_at < _REDRAW_S:
                return
            self._drawn_at = now
            text = self.line()
            self.stream.write("\r" + text.ljust(self._width))
            self.stream.flush()
            self._width = len(text)

    def clear(self) -> None:
        """Stop the clock and erase the line, so the report starts on a clean one."""
        self._stopped.set()
        if self.enabled and self._width:
            with self._lock:
                self.stream.write("\r" + " " * self._width + "\r")
                self.stream.flush()
                self._width = 0
