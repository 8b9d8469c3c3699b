"""Confine the verification child's writes to its own folder with Linux's Landlock (5.13+).

Reading stays open everywhere (the module, its package, JAX); creating, writing, truncating,
renaming or deleting files is allowed only beneath the given folders. Already-open files (the
protocol pipes, stderr) are not affected. Elsewhere, or on a kernel without Landlock, nothing
is confined and `confine_writes` says so by returning False.
"""

from __future__ import annotations

import ctypes
import os
import struct
import sys
from collections.abc import Iterable

# Syscall numbers are the same on every Linux architecture (the generic table).
_CREATE_RULESET, _ADD_RULE, _RESTRICT_SELF = 444, 445, 446
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1
_PR_SET_NO_NEW_PRIVS = 38
# Write-side filesystem rights per Landlock ABI version; reads and execution are not handled.
_WRITE_FILE, _REMOVE_DIR, _REMOVE_FILE = 1 << 1, 1 << 4, 1 << 5
_MAKE = sum(1 << bit for bit in range(6, 13))  # char, dir, reg, sock, fifo, block, sym
_REFER, _TRUNCATE = 1 << 13, 1 << 14


def _write_rights(abi: int) -> int:
    rights = _WRITE_FILE | _REMOVE_DIR | _REMOVE_FILE | _MAKE
    if abi >= 2:
        rights |= _REFER
    if abi >= 3:
        rights |= _TRUNCATE
    return rights


def confine_writes(allowed: Iterable[str]) -> bool:
    """Allow this process (and what it starts) to write only beneath `allowed`; True when done."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
    except OSError:
        return False
    syscall = libc.syscall
    syscall.restype = ctypes.c_long
    abi = syscall(
        _CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(_CREATE_RULESET_VERSION)
    )
    if abi < 1:
        return False
    rights = _write_rights(abi)
    attr = struct.pack("=Q", rights)
    ruleset = syscall(_CREATE_RULESET, attr, ctypes.c_size_t(len(attr)), ctypes.c_uint32(0))
    if ruleset < 0:
        return False
    try:
        for folder in allowed:
            try:
                fd = os.open(folder, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue
            try:
                beneath = struct.pack("=Qi", rights, fd)
                if syscall(_ADD_RULE, ctypes.c_int(ruleset), _RULE_PATH_BENEATH, beneath, 0) != 0:
                    return False
            finally:
                os.close(fd)
        if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            return False
        return syscall(_RESTRICT_SELF, ctypes.c_int(ruleset), ctypes.c_uint32(0)) == 0
    finally:
        os.close(ruleset)
