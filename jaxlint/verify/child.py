"""The verification child: `python -m jaxlint.verify.child`; JSON lines in on stdin, out on stdout.

Protocol (one JSON object per line):
  child → parent  {"type": "ready", "jax_version": "..."}  once JAX is imported
                  {"type": "jax-missing", "error": "..."}  when it cannot be, then exits
  parent → child  {"request": {...VerifyRequest...}}
  child → parent  {"type": "result", "result": {...VerifyResult...}}
The protocol streams are private copies of fds 0 and 1: user code reads /dev/null on fd 0 and its
prints (and JAX's) land on stderr, so nothing it does can corrupt the protocol.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any, TextIO


def _claim_protocol_streams() -> tuple[TextIO, TextIO]:
    """Move the protocol onto private fds; point fd 0 at /dev/null and fd 1 at stderr."""
    sys.stdout.flush()
    protocol_in = os.fdopen(os.dup(0), "r", encoding="utf-8")
    protocol_out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(2, 1)
    return protocol_in, protocol_out


def _send(stream: TextIO, message: dict[str, Any]) -> None:
    stream.write(json.dumps(message) + "\n")
    stream.flush()


def main() -> int:
    """Serve verification requests until stdin closes."""
    protocol_in, protocol_out = _claim_protocol_streams()
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    try:
        import jax
    except Exception as exc:  # noqa: BLE001 — a broken install is as good as a missing one
        _send(protocol_out, {"type": "jax-missing", "error": f"{type(exc).__name__}: {exc}"})
        return 0
    from jaxlint.verify.check import run_check
    from jaxlint.verify.protocol import request_from_wire, result_to_wire

    # XLA's first compilation in a process pays one-off set-up costs: keep them out of the timings.
    jax.jit(lambda x: x + 1).lower(1.0).compile()
    _send(protocol_out, {"type": "ready", "jax_version": jax.__version__})
    for line in protocol_in:
        if not line.strip():
            continue
        request = request_from_wire(json.loads(line)["request"])
        result = run_check(request)
        sys.stdout.flush()
        sys.stderr.flush()
        _send(protocol_out, {"type": "result", "result": result_to_wire(result)})
    return 0


if __name__ == "__main__":
    sys.exit(main())
