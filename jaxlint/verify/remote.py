"""Verification for a process pool: the workers send their requests to one session in the parent.

So a parallel `--fix` run still imports JAX once, verifies identical functions once (the
parent's result cache sees every request) and shows every result on the parent's progress line.
"""

from __future__ import annotations

import contextlib
import secrets
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from multiprocessing import AuthenticationError
from multiprocessing.connection import Client, Connection, Listener
from typing import Any

from jaxlint.verify import runner
from jaxlint.verify.protocol import VerifyRequest, VerifyResult

Address = tuple[Any, bytes]  # where the parent listens, and the key a worker proves itself with


@contextmanager
def served(session: runner.VerificationSession) -> Iterator[Address]:
    """Within this block, workers that called `forward_to(address)` verify with `session`."""
    authkey = secrets.token_bytes(32)
    listener = Listener(authkey=authkey)  # a socket only this user can reach, in a temp folder
    stopping = threading.Event()

    def serve(connection: Connection) -> None:
        with connection:
            while True:
                try:
                    requests, time_limit_s = connection.recv()
                except (EOFError, OSError):  # the worker is done
                    return
                connection.send(session.verify(requests, time_limit_s=time_limit_s))

    def accept() -> None:
        while not stopping.is_set():
            try:
                connection = listener.accept()
            except (
                OSError,
                AuthenticationError,
            ):  # the listener closed, or a caller without the key
                if stopping.is_set():
                    return
                continue
            threading.Thread(target=serve, args=(connection,), daemon=True).start()

    accepting = threading.Thread(target=accept, daemon=True)
    accepting.start()
    try:
        yield listener.address, authkey
    finally:
        stopping.set()
        with contextlib.suppress(OSError):
            Client(listener.address, authkey=authkey).close()  # wakes the blocked accept()
        accepting.join(timeout=5)
        listener.close()


class _ForwardingSession:
    """What `verify()` uses in a worker: the parent's session, over the socket."""

    def __init__(self, address: Address) -> None:
        self._connection = Client(address[0], authkey=address[1])

    def verify(
        self, requests: Sequence[VerifyRequest], *, time_limit_s: float = 60.0
    ) -> list[VerifyResult]:
        self._connection.send((list(requests), time_limit_s))
        return self._connection.recv()


def forward_to(address: Address) -> None:
    """Make this process's `verify()` calls go to the session `served` at `address` (a pool
    initializer)."""
    runner._ACTIVE = _ForwardingSession(address)  # type: ignore[assignment]
