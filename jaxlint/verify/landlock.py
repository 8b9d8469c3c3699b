"""Fence the verification child with Linux's Landlock (5.13+): the second fence beside the
sandbox's namespaces, and the only one where the kernel refuses namespaces but has Landlock.

Creating, writing, truncating, renaming or deleting files is allowed only beneath the given
folders; with `readable`, reading too is allowed only beneath those and the readable paths (the
project, the Python installation, the system's libraries); where the kernel's Landlock handles
them, TCP connections and binds are refused (6.7+) and signals and abstract Unix sockets
reach no process outside the child's own tree (6.12+). Already-open files (the protocol pipes,
stderr) are not affected. Elsewhere, or on a kernel without Landlock, nothing is confined and
`confine` says so.
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
_WRITE_FILE, _READ_FILE, _READ_DIR = 1 << 1, 1 << 2, 1 << 3
_REMOVE_DIR, _REMOVE_FILE = 1 << 4, 1 << 5
_READ = _READ_FILE | _READ_DIR
_MAKE = sum(1 << bit for bit in range(6, 13))  # char, dir, reg, sock, fifo, block, sym
_REFER, _TRUNCATE = 1 << 13, 1 << 14
_BIND_TCP, _CONNECT_TCP = 1 << 0, 1 << 1  # network rights (ABI 4)
_SCOPE_ABSTRACT_UNIX_SOCKET, _SCOPE_SIGNAL = 1 << 0, 1 << 1  # scopes (ABI 6)


def _write_rights(abi: int) -> int:
    rights = _WRITE_FILE | _REMOVE_DIR | _REMOVE_FILE | _MAKE
    if abi >= 2:
        rights |= _REFER
    if abi >= 3:
        rights |= _TRUNCATE
    return rights


def confine_writes(allowed: Iterable[str]) -> bool:
    """Allow this process (and what it starts) to write only beneath `allowed`; True when done."""
    return confine(allowed)["landlock_writes"]


def confine(allowed: Iterable[str], readable: Iterable[str] | None = None) -> dict[str, bool]:
    """Fence this process and what it starts with every right this kernel's Landlock handles:
    writes only beneath `allowed`; with `readable`, reads only beneath `allowed` and `readable`;
    no TCP connect or bind (ABI 4, Linux 6.7); no signal to, and no abstract Unix socket of, any
    process outside (ABI 6, Linux 6.12). What held, by name."""
    held = {"landlock_writes": False, "landlock_network": False, "landlock_scopes": False}
    if readable is not None:
        held["landlock_reads"] = False
    if not sys.platform.startswith("linux"):
        return held
    try:
        libc = ctypes.CDLL(None, use_errno=True)
    except OSError:
        return held
    syscall = libc.syscall
    syscall.restype = ctypes.c_long
    abi = syscall(
        _CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(_CREATE_RULESET_VERSION)
    )
    if abi < 1:
        return held
    rights = _write_rights(abi) | (_READ if readable is not None else 0)
    # struct landlock_ruleset_attr: handled_access_fs, handled_access_net (4+), scoped (6+)
    fields = [rights]
    if abi >= 4:
        fields.append(_BIND_TCP | _CONNECT_TCP)  # handled, and no rule allows any port
    if abi >= 6:
        fields.append(_SCOPE_ABSTRACT_UNIX_SOCKET | _SCOPE_SIGNAL)
    attr = struct.pack(f"={len(fields)}Q", *fields)
    ruleset = syscall(_CREATE_RULESET, attr, ctypes.c_size_t(len(attr)), ctypes.c_uint32(0))
    if ruleset < 0:
        return held
    rules = [(path, rights) for path in allowed]
    rules += [(path, _READ) for path in readable or ()]
    try:
        for path, granted in rules:
            try:
                fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue
            if not os.path.isdir(path):  # a file's rule may grant only what applies to files
                granted &= _READ_FILE | _WRITE_FILE | _TRUNCATE
            try:
                beneath = struct.pack("=Qi", granted, fd)
                if syscall(_ADD_RULE, ctypes.c_int(ruleset), _RULE_PATH_BENEATH, beneath, 0) != 0:
                    return held
            finally:
                os.close(fd)
        if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            return held
        if syscall(_RESTRICT_SELF, ctypes.c_int(ruleset), ctypes.c_uint32(0)) != 0:
            return held
    finally:
        os.close(ruleset)
    held = {"landlock_writes": True, "landlock_network": abi >= 4, "landlock_scopes": abi >= 6}
    if readable is not None:
        held["landlock_reads"] = True
    return held
