"""`jaxlint server` end to end (issue 14): a real LSP client (pygls's) starts the server as a
process and speaks JSON-RPC to it over stdio: initialize, didOpen, publishDiagnostics,
codeAction, executeCommand (a verified fix, with real JAX), didChange, shutdown, exit."""

from __future__ import annotations

import ast
import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pygls")

from lsprotocol import types  # noqa: E402
from pygls.lsp.client import LanguageClient  # noqa: E402

from jaxlint.verify import jax_available  # noqa: E402
from tests.conftest import ROOT  # noqa: E402

SAFE = """import jax.numpy as jnp


def mark(n, picked):
    free = jnp.ones(n)
    free.at[picked].set(0.0)
    return free
"""
SEED = (ROOT / "fixtures" / "seed" / "cumulative_sum.py").read_text()


class Session:
    """A client talking to one `python -m jaxlint server` process; records what it is sent."""

    def __init__(self) -> None:
        self.client = LanguageClient("jaxlint-test-client", "1")
        self.diagnostics: dict[str, asyncio.Queue[list[types.Diagnostic]]] = {}
        self.messages: list[str] = []
        self.applied: list[types.WorkspaceEdit] = []

        @self.client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def published(params: types.PublishDiagnosticsParams) -> None:
            self.queue(params.uri).put_nowait(params.diagnostics)

        @self.client.feature(types.WINDOW_SHOW_MESSAGE)
        def shown(params: types.ShowMessageParams) -> None:
            self.messages.append(params.message)

        @self.client.feature(types.WORKSPACE_APPLY_EDIT)
        def apply(params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
            self.applied.append(params.edit)
            return types.ApplyWorkspaceEditResult(applied=True)

    def queue(self, uri: str) -> asyncio.Queue[list[types.Diagnostic]]:
        return self.diagnostics.setdefault(uri, asyncio.Queue())

    async def next_diagnostics(self, uri: str) -> list[types.Diagnostic]:
        return list(await asyncio.wait_for(self.queue(uri).get(), timeout=60))


def run_session(folder: Path, body) -> None:
    async def main() -> None:
        session = Session()
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        await session.client.start_io(
            sys.executable, "-m", "jaxlint", "server", cwd=str(folder), env=env
        )
        result = await session.client.initialize_async(
            types.InitializeParams(
                capabilities=types.ClientCapabilities(),
                root_uri=folder.as_uri(),
                process_id=os.getpid(),
            )
        )
        assert result.server_info is not None and result.server_info.name == "jaxlint"
        session.client.initialized(types.InitializedParams())
        try:
            await body(session)
        finally:
            await session.client.shutdown_async(None)
            session.client.exit(None)
            await session.client.stop()

    asyncio.run(main())


def open_document(session: Session, path: Path, text: str) -> str:
    uri = path.as_uri()
    item = types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)
    session.client.text_document_did_open(types.DidOpenTextDocumentParams(item))
    return uri


async def actions_for(
    session: Session, uri: str, diagnostic: types.Diagnostic
) -> list[types.CodeAction | types.Command]:
    """The code actions offered; lsprotocol reads a CodeAction that carries only a command (no
    edit) back as a Command, as the union allows."""
    params = types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri),
        range=diagnostic.range,
        context=types.CodeActionContext(diagnostics=[diagnostic]),
    )
    found = await session.client.text_document_code_action_async(params)
    return list(found or [])


def new_text(edit: types.WorkspaceEdit, uri: str) -> str:
    assert edit.changes is not None
    (change,) = edit.changes[uri]
    assert change.range.start == types.Position(0, 0)
    return change.new_text


def test_diagnostics_safe_fix_and_noqa_actions(tmp_path: Path) -> None:
    path = tmp_path / "mark.py"
    path.write_text(SAFE)

    async def body(session: Session) -> None:
        uri = open_document(session, path, SAFE)
        (diagnostic,) = await session.next_diagnostics(uri)
        assert (diagnostic.code, diagnostic.source) == ("JAX205", "jaxlint")
        assert diagnostic.severity == types.DiagnosticSeverity.Error
        assert diagnostic.range.start == types.Position(5, 4)
        assert diagnostic.code_description is not None
        assert diagnostic.code_description.href.endswith("/JAX205.md")
        fix, noqa = await actions_for(session, uri, diagnostic)
        assert isinstance(fix, types.CodeAction) and isinstance(noqa, types.CodeAction)
        assert fix.title.startswith("Fix: ") and fix.is_preferred
        assert fix.edit is not None
        fixed = new_text(fix.edit, uri)
        assert fixed == SAFE.replace("    free.at[", "    free = free.at[")
        assert noqa.edit is not None
        silenced = new_text(noqa.edit, uri)
        assert "    free.at[picked].set(0.0)  # noqa: JAX205\n" in silenced
        # the editor applies the fix: the finding goes away
        change = types.TextDocumentContentChangeWholeDocument(text=fixed)
        session.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                types.VersionedTextDocumentIdentifier(uri=uri, version=2), [change]
            )
        )
        assert await session.next_diagnostics(uri) == []

    run_session(tmp_path, body)


def test_configuration_comes_from_pyproject(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.jaxlint]\nignore = ["JAX205"]\n')
    path = tmp_path / "mark.py"
    path.write_text(SAFE)

    async def body(session: Session) -> None:
        uri = open_document(session, path, SAFE)
        assert await session.next_diagnostics(uri) == []

    run_session(tmp_path, body)


@pytest.mark.skipif(not jax_available(), reason="JAX is not installed")
def test_a_verified_fix_is_verified_with_jax_then_applied(tmp_path: Path) -> None:
    path = tmp_path / "cumulative_sum.py"
    path.write_text(SEED)

    async def body(session: Session) -> None:
        uri = open_document(session, path, SEED)
        diagnostics = await session.next_diagnostics(uri)
        first = next(d for d in diagnostics if d.code == "JAX101")
        actions = await actions_for(session, uri, first)
        (verify,) = [a for a in actions if isinstance(a, types.Command)]
        assert verify.title.startswith("Verify with JAX and apply: Python loop → running sum")
        assert actions[1].title == "Silence JAX101 on this line (# noqa)"
        # lsprotocol's client takes the CodeAction {title, kind, diagnostics, command: {...}}
        # for a Command, and its nested command object for that Command's name (as a repr)
        inner = ast.literal_eval(verify.command)
        assert inner["command"] == "jaxlint.applyVerifiedFix"
        result = await session.client.workspace_execute_command_async(
            types.ExecuteCommandParams(inner["command"], inner["arguments"])
        )
        assert result["applied"] is True, result
        assert result["verification"]["status"] == "verified"
        (edit,) = session.applied
        assert "lax.cumsum(acc_terms, axis=0)" in new_text(edit, uri)
        assert session.messages == []

    run_session(tmp_path, body)


def _frame(message: dict) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"processId": None, "rootUri": None, "capabilities": {}},
}
MALFORMED_HEADERS = {
    b"Content-Type: application/vscode-jsonrpc\r\n\r\n{}": "a message header without a",
    b"Content-Length: abc\r\n\r\n{}": "an invalid Content-Length field 'Content-Length: abc'",
    b"Content-Length: -5\r\n\r\n": "an invalid Content-Length field 'Content-Length: -5'",
    b"Content-Length: 99999999999\r\n\r\n{}": "a Content-Length of 99999999999 bytes",
    b"hello world\r\n\r\n": "'hello world' where a message header was expected",
}


@pytest.mark.parametrize("header", list(MALFORMED_HEADERS))
def test_a_malformed_header_stops_the_server_with_a_message(tmp_path: Path, header: bytes) -> None:
    """Before, the server read on with its framing lost and never answered again (or died of
    MemoryError): now it stops at once, saying why, even with the client's pipe still open."""
    server = subprocess.Popen(
        [sys.executable, "-m", "jaxlint", "server"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=tmp_path,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
    )
    assert server.stdin is not None and server.stderr is not None
    server.stdin.write(header + _frame(INITIALIZE))
    server.stdin.flush()
    try:
        code = server.wait(timeout=60)
    finally:
        server.kill()
    error = server.stderr.read().decode()
    assert code == 1
    assert f"jaxlint server: the client sent {MALFORMED_HEADERS[header]}" in error
    assert "Traceback" not in error


def test_a_body_that_is_not_json_is_answered_and_the_server_goes_on(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "jaxlint", "server"],
        input=b"Content-Length: 5\r\n\r\n{{{{{" + _frame(INITIALIZE),
        capture_output=True,
        cwd=tmp_path,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        timeout=120,
    )
    replies = [json.loads(part.split(b"\r\n\r\n", 1)[1]) for part in _messages(done.stdout)]
    assert replies[0]["method"] == "window/showMessage"  # pygls says so to the user
    assert "Expecting property name" in replies[0]["params"]["message"]
    assert replies[1]["id"] == 1 and replies[1]["result"]["serverInfo"]["name"] == "jaxlint"
    assert done.returncode == 0 and b"Traceback" not in done.stderr


def _messages(stream: bytes) -> list[bytes]:
    """The framed messages of a server's output, each with its header."""
    messages = []
    while stream:
        header, _, rest = stream.partition(b"\r\n\r\n")
        length = int(header.split(b"Content-Length: ")[1].split(b"\r\n")[0])
        messages.append(header + b"\r\n\r\n" + rest[:length])
        stream = rest[length:]
    return messages
