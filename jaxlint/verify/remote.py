"""Verification for a process pool: the workers send their requests to one session in the parent.

So a parallel `--fix` run imports JAX once per verification child (not once per worker), keeps
one result cache (the parent's sees every request) and shows every result on the parent's
progress line.

Each worker gets a channel of its own that needs no listen backlog: it makes a connected socket
pair, keeps one end, and hands the other to the parent as a file descriptor over a datagram
socket pair the pool inherits (SCM_RIGHTS). A listening socket would refuse workers on kernels
that do not make a `connect` wait for a full backlog (gVisor, used by sandboxed CI and TPU VMs),
and every worker of a 192-core machine connects at once.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from multiprocessing.connection import Connection, wait

from jaxlint.verify import runner
from jaxlint.verify.protocol import VerifyRequest, VerifyResult, plain_result


def available() -> bool:
    """Whether workers can reach the parent's session here (Unix sockets that pass descriptors)."""
    return hasattr(socket, "AF_UNIX") and hasattr(socket, "send_fds")


@contextmanager
def served(session: runner.VerificationSession) -> Iterator[socket.socket]:
    """Within this block, workers that called `forward_to(registry)` verify with `session`."""
    registry, workers_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
    wake, waker = socket.socketpair()
    server = threading.Thread(
        target=_serve, args=(session, registry, wake), name="jaxlint-verify-server", daemon=True
    )
    server.start()
    try:
        yield workers_end
    finally:
        with contextlib.suppress(OSError):
            waker.send(b"x")
        server.join(timeout=5)
        for end in (registry, workers_end, wake, waker):
            end.close()


def _serve(
    session: runner.VerificationSession, registry: socket.socket, wake: socket.socket
) -> None:
    """Take new workers' channels from `registry`, each answered by a thread of its own (the
    session runs as many requests at once as it has children), until `wake` is written."""
    while True:
        for ready in wait([registry, wake]):
            if ready is wake:
                return
            for channel in _received_channels(registry):
                threading.Thread(
                    target=_answer_all,
                    args=(session, channel),
                    name="jaxlint-verify-channel",
                    daemon=True,
                ).start()


def _answer_all(session: runner.VerificationSession, channel: Connection) -> None:
    """Answer the requests of one worker until it goes."""
    with channel:
        while _answer(session, channel):
            pass


def _received_channels(registry: socket.socket) -> list[Connection]:
    try:
        _, descriptors, _, _ = socket.recv_fds(registry, 16, 4)
    except OSError:
        return []
    return [Connection(descriptor) for descriptor in descriptors]


def _answer(session: runner.VerificationSession, channel: Connection) -> bool:
    """Answer one request on `channel`; False when the worker has gone."""
    try:
        requests, time_limit_s = channel.recv()
    except (EOFError, OSError):
        return False
    try:
        channel.send(session.verify(requests, time_limit_s=time_limit_s))
    except OSError:
        return False
    return True


class _ForwardingSession:
    """What `verify()` uses in a worker: the parent's session, over the worker's own channel."""

    def __init__(self, channel: Connection | None) -> None:
        self._channel = channel

    def verify(
        self, requests: Sequence[VerifyRequest], *, time_limit_s: float = 60.0
    ) -> list[VerifyResult]:
        if self._channel is not None:
            try:
                self._channel.send((list(requests), time_limit_s))
                return self._channel.recv()
            except (EOFError, OSError):
                self._channel = None
        reason = "not verified: this worker lost its channel to the verification session"
        return [plain_result(request, "unverifiable", reason) for request in requests]


def forward_to(registry: socket.socket) -> None:
    """Make this process's `verify()` calls go to the session `served` with `registry` (a pool
    initializer). It never raises: a worker that cannot register still lints, unverified."""
    channel = None
    try:
        mine, theirs = socket.socketpair()
        with theirs:
            socket.send_fds(registry, [b"w"], [theirs.fileno()])
        channel = Connection(mine.detach())
    except OSError:
        pass
    finally:
        registry.close()  # the pool's copy: this worker registers once
    runner._ACTIVE = _ForwardingSession(channel)  # type: ignore[assignment]  # a session's stand-in
