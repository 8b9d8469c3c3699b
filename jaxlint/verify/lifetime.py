"""Processes that end with the process that started them.

Linux's parent-death signal (`PR_SET_PDEATHSIG`) kills a process when the thread that forked it
ends, whatever way it ends (SIGKILL included), so it is set by a process on itself, as its first
act, and only by processes forked from a thread that lives as long as their parent (the main
thread). Elsewhere it is a no-op: the parent's own clean-up still ends its children.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys

_PR_SET_PDEATHSIG = 1


def die_with_parent(parent: int | None = None) -> bool:
    """Have this process killed when its parent goes; True when the kernel took it. A parent
    that is already gone ends this process now: `parent` is its pid as the parent read it
    before starting this process (read here instead, a parent killed between the fork and
    this call is missed: the process was adopted already, and lived on as an orphan)."""
    if not sys.platform.startswith("linux"):
        return False
    parent = os.getppid() if parent is None else parent
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
            return False
    except (OSError, AttributeError):
        return False
    if os.getppid() != parent:  # reparented between the fork and the prctl
        os._exit(1)
    return True
