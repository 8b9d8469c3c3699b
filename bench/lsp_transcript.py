"""Print a whole LSP session with `jaxlint server`, message by message, as JSON-RPC goes over stdio.

    .venv/bin/python bench/lsp_transcript.py [FILE.py]   # default: fixtures/seed/cumulative_sum.py

A bare client (no LSP library: Content-Length framing by hand, so the transcript is what goes
over the pipe): initialize, initialized, didOpen, the diagnostics the server publishes,
codeAction on the first finding, executeCommand of its "Verify with JAX and apply" action (real
JAX; the server asks the client to apply the edit), shutdown, exit. Long strings are cut.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CUT = 160  # characters of a long string shown


def _cut(value: Any) -> Any:
    if isinstance(value, str) and len(value) > CUT:
        return value[:CUT] + f"… ({len(value)} chars)"
    if isinstance(value, list):
        return [_cut(item) for item in value]
    if isinstance(value, dict):
        return {key: _cut(item) for key, item in value.items()}
    return value


class Client:
    def __init__(self, folder: Path) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "jaxlint", "server"],
            cwd=folder,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        self.next_id = 0
        self.started = time.monotonic()

    def _show(self, arrow: str, message: dict[str, Any]) -> None:
        clock = time.monotonic() - self.started
        print(f"[{clock:6.2f} s] {arrow} {json.dumps(_cut(message), ensure_ascii=False)}")

    def send(self, message: dict[str, Any]) -> None:
        message = {"jsonrpc": "2.0", **message}
        self._show("→", message)
        body = json.dumps(message).encode()
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def receive(self) -> dict[str, Any]:
        length = 0
        while (line := self.process.stdout.readline().strip()) != b"":
            name, _, value = line.partition(b":")
            if name.lower() == b"content-length":
                length = int(value)
        message = json.loads(self.process.stdout.read(length))
        self._show("←", message)
        return message

    def request(self, method: str, params: Any) -> Any:
        """Send a request; answer what the server asks meanwhile; return the response's result."""
        self.next_id += 1
        wanted = self.next_id
        self.send({"id": wanted, "method": method, "params": params})
        while True:
            message = self.receive()
            if message.get("id") == wanted and "method" not in message:
                return message.get("result")
            if "id" in message and message.get("method") == "workspace/applyEdit":
                self.send({"id": message["id"], "result": {"applied": True}})

    def notify(self, method: str, params: Any) -> None:
        self.send({"method": method, "params": params})

    def until(self, method: str) -> dict[str, Any]:
        while (message := self.receive()).get("method") != method:
            pass
        return message


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", nargs="?", default=str(ROOT / "fixtures/seed/cumulative_sum.py"))
    path = Path(parser.parse_args().file).resolve()
    uri = path.as_uri()
    client = Client(path.parent)
    client.request(
        "initialize",
        {"processId": None, "rootUri": path.parent.as_uri(), "capabilities": {}},
    )
    client.notify("initialized", {})
    client.notify(
        "textDocument/didOpen",
        {
            "textDocument": {
                "uri": uri,
                "languageId": "python",
                "version": 1,
                "text": path.read_text(),
            }
        },
    )
    diagnostics = client.until("textDocument/publishDiagnostics")["params"]["diagnostics"]
    if diagnostics:
        first = diagnostics[0]
        actions = client.request(
            "textDocument/codeAction",
            {
                "textDocument": {"uri": uri},
                "range": first["range"],
                "context": {"diagnostics": [first]},
            },
        )
        commands = [a["command"] for a in actions or [] if a.get("command")]
        if commands:
            client.request(
                "workspace/executeCommand",
                {"command": commands[0]["command"], "arguments": commands[0].get("arguments")},
            )
    client.request("shutdown", None)
    client.notify("exit", None)
    return client.process.wait(timeout=30)


if __name__ == "__main__":
    sys.exit(main())
