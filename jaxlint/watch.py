"""`jaxlint check --watch`: check again whenever a checked file or the configuration changes.

Polling, not inotify: it works the same on every system and through network mounts, and a
stat of each file twice a second costs little next to linting them.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path

POLL_S = 0.5
Snapshot = frozenset[tuple[str, int, int]]


def snapshot(files: Iterable[Path]) -> Snapshot:
    """Each file's path, modification time and size (a file that vanished is left out)."""
    seen = set()
    for file in files:
        try:
            status = os.stat(file)
        except OSError:
            continue
        seen.add((str(file), status.st_mtime_ns, status.st_size))
    return frozenset(seen)


def watch(check: Callable[[], int], watched: Callable[[], Iterable[Path]]) -> int:
    """Run `check`, then again each time the files `watched()` names change, until Ctrl-C.

    Returns the last check's exit code. On a terminal the screen is cleared before each check,
    as Ruff does, so what is shown is always the current state."""
    code = 0
    try:
        while True:
            if sys.stdout.isatty():
                sys.stdout.write("\x1b[2J\x1b[H")
            before = snapshot(watched())
            code = check()
            sys.stdout.flush()
            stamp = time.strftime("%H:%M:%S")
            print(f"[{stamp}] Watching for file changes (Ctrl-C to stop).", file=sys.stderr)
            sys.stderr.flush()
            while snapshot(watched()) == before:
                time.sleep(POLL_S)
    except KeyboardInterrupt:
        return code
