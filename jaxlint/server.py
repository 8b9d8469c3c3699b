"""`jaxlint server`: a language server over stdio (pygls, the `server` extra).

Diagnostics on open, change and save (the rule code linking to its page); code actions: the
safe fix of one finding, `# noqa` for it, and for a verified-kind fix a command that verifies
the rewrite with real JAX and applies it only when it passes. Configuration is the file's
`[tool.jaxlint]`, as on the command line. Checking never imports JAX; only the verify command
starts the verification child.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from jaxlint.analysis.project_view import ProjectView
from jaxlint.cache import project_root
from jaxlint.diagnostics import Diagnostic
from jaxlint.engine.config import Config, ConfigError, load_config
from jaxlint.engine.edits import Edit
from jaxlint.engine.lint import analyze_module, enabled_rules
from jaxlint.engine.registry import rule_pages_dir
from jaxlint.engine.rule import Finding
from jaxlint.engine.suppression import with_noqa_code
from jaxlint.fixes.apply import edited_source
from jaxlint.fixes.pipeline import attempt_fix, lint_source
from jaxlint.lsp_input import FramedInput
from jaxlint.output.escape import to_stderr
from jaxlint.output.names import tool_version
from jaxlint.session import Session
from jaxlint.verify import shared_session

SOURCE = "jaxlint"
VERIFY_COMMAND = "jaxlint.applyVerifiedFix"
_SEVERITY = {
    "error": types.DiagnosticSeverity.Error,
    "warning": types.DiagnosticSeverity.Warning,
    "info": types.DiagnosticSeverity.Information,
}

_VERIFIER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="jaxlint-verify")
# the workspace's project indexes, kept while no module of a project changes
_SESSION = Session()
server = LanguageServer(
    SOURCE, tool_version(), text_document_sync_kind=types.TextDocumentSyncKind.Full
)


# ---------------------------------------------------------------- documents and configuration


@dataclass(frozen=True)
class _Document:
    uri: str
    path: str
    source: str
    config: Config
    project: ProjectView | None  # what the workspace's index says about it


def _document(uri: str) -> _Document | None:
    """The open document, its configuration and its project view; None (after saying why) for
    a bad config. The index reads every open document as the editor has it, saved or not."""
    text = server.workspace.get_text_document(uri).source
    path = to_fs_path(uri) or uri  # an untitled buffer is linted under its URI
    folder = Path(path).parent if os.path.isabs(path) else Path.cwd()
    try:
        config = load_config(start=folder)
    except ConfigError as error:
        server.window_show_message(
            types.ShowMessageParams(types.MessageType.Error, f"jaxlint: {error}")
        )
        return None
    project = _SESSION.view(path, config.jit_decorators, _open_buffers())
    return _Document(uri, path, text, config, project)


def _open_buffers() -> dict[str, bytes]:
    """The text of every open document with a file path, by path."""
    buffers = {}
    for uri, document in server.workspace.text_documents.items():
        path = to_fs_path(uri)
        if path and os.path.isabs(path):
            buffers[path] = document.source.encode("utf-8")
    return buffers


def _position(lines: list[str], line: int, column: int) -> types.Position:
    """jaxlint's 1-based line and character column → LSP's 0-based line and UTF-16 offset."""
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    prefix = text[: max(column - 1, 0)]
    return types.Position(max(line - 1, 0), len(prefix.encode("utf-16-le")) // 2)


def _to_lsp(diagnostic: Diagnostic, lines: list[str]) -> types.Diagnostic:
    span = diagnostic.span
    start = _position(lines, span.line, span.column)
    end = _position(lines, span.end_line, span.end_column)
    page = rule_pages_dir() / f"{diagnostic.code}.md"
    fix = diagnostic.fix
    return types.Diagnostic(
        range=types.Range(start, end),
        message=diagnostic.message,
        severity=_SEVERITY.get(diagnostic.severity, types.DiagnosticSeverity.Warning),
        code=diagnostic.code,
        code_description=types.CodeDescription(page.as_uri()) if page.is_file() else None,
        source=SOURCE,
        data={"fix_kind": fix.kind, "fix_note": fix.note} if fix is not None else None,
    )


def publish(uri: str) -> None:
    """Lint the document as it is now and publish its diagnostics."""
    document = _document(uri)
    if document is None:
        return
    if os.path.isabs(document.path) and document.config.is_excluded(document.path):
        diagnostics: list[types.Diagnostic] = []
    else:
        result = lint_source(
            document.source, document.path, document.config, project=document.project
        )
        lines = document.source.splitlines()
        diagnostics = [_to_lsp(d, lines) for d in result.diagnostics]
    server.text_document_publish_diagnostics(
        types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics)
    )


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(params: types.DidOpenTextDocumentParams) -> None:
    publish(params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
def did_change(params: types.DidChangeTextDocumentParams) -> None:
    publish_all(first=params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_SAVE)
def did_save(params: types.DidSaveTextDocumentParams) -> None:
    publish_all(first=params.text_document.uri)


def publish_all(first: str) -> None:
    """Publish `first`, then every other open document: a change in one module can change what
    the project index says about the others (a helper jitted from the edited one)."""
    publish(first)
    for uri in list(server.workspace.text_documents):
        if uri != first:
            publish(uri)


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def did_close(params: types.DidCloseTextDocumentParams) -> None:
    server.text_document_publish_diagnostics(
        types.PublishDiagnosticsParams(uri=params.text_document.uri, diagnostics=[])
    )


# ---------------------------------------------------------------- code actions


def _findings_at(document: _Document, line: int, code: str) -> tuple[Any, list[Finding]]:
    """The whole-module analysis (for edits) and its findings of `code` on 1-based `line`."""
    rules = [r for r in enabled_rules(document.config, document.path) if r.code == code]
    analyzed, module = analyze_module(
        document.source, document.path, document.config, rules, document.project
    )
    return module, [f for f in analyzed.findings if f.span.line == line]


def _whole_document_edit(document: _Document, new_text: str) -> types.WorkspaceEdit:
    lines = document.source.splitlines(keepends=True)
    end = types.Position(len(lines), 0)
    edit = types.TextEdit(types.Range(types.Position(0, 0), end), new_text)
    return types.WorkspaceEdit(changes={document.uri: [edit]})


def _with_noqa(source: str, line: int, code: str) -> str:
    """`source` with `code` in the noqa comment ending `line` (added when there is none)."""
    lines = source.splitlines(keepends=True)
    text = lines[line - 1]
    body = text.rstrip("\r\n")
    lines[line - 1] = with_noqa_code(body, code) + text[len(body) :]
    return "".join(lines)


@server.feature(
    types.TEXT_DOCUMENT_CODE_ACTION,
    types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]),
)
def code_actions(params: types.CodeActionParams) -> list[types.CodeAction]:
    document = _document(params.text_document.uri)
    if document is None:
        return []
    actions: list[types.CodeAction] = []
    for diagnostic in params.context.diagnostics:
        if diagnostic.source != SOURCE or not isinstance(diagnostic.code, str):
            continue
        line, code = diagnostic.range.start.line + 1, diagnostic.code
        actions.extend(_fix_actions(document, diagnostic, line, code))
        silenced = _with_noqa(document.source, line, code)
        if _silences(document, silenced, line, code):
            edit = _whole_document_edit(document, silenced)
            actions.append(
                _quick_fix(f"Silence {code} on this line (# noqa)", diagnostic, edit=edit)
            )
    return actions


def _quick_fix(title: str, diagnostic: types.Diagnostic, **fields: Any) -> types.CodeAction:
    return types.CodeAction(
        title=title, kind=types.CodeActionKind.QuickFix, diagnostics=[diagnostic], **fields
    )


def _silences(document: _Document, silenced: str, line: int, code: str) -> bool:
    """The noqa comment parses and takes the finding away (not inside a string, say)."""
    result = lint_source(silenced, document.path, document.config, project=document.project)
    left = result.diagnostics
    return not any(d.code == "JAX000" or (d.code == code and d.line == line) for d in left)


def _fix_actions(
    document: _Document, diagnostic: types.Diagnostic, line: int, code: str
) -> list[types.CodeAction]:
    module, findings = _findings_at(document, line, code)
    actions = []
    for finding in findings:
        if module is None or not isinstance(finding.fix, Edit):
            continue
        if finding.fix_kind == "verified":
            arguments = [document.uri, line, finding.span.column, code]
            title = f"Verify with JAX and apply: {finding.fix.description}"
            command = types.Command(title=title, command=VERIFY_COMMAND, arguments=arguments)
            actions.append(_quick_fix(title, diagnostic, command=command))
        elif finding.fix_kind == "safe":
            edit = _whole_document_edit(
                document, edited_source(module, [finding.fix], document.source)
            )
            title = f"Fix: {finding.fix.description}"
            actions.append(_quick_fix(title, diagnostic, edit=edit, is_preferred=True))
    return actions


@server.command(VERIFY_COMMAND)
async def apply_verified_fix(uri: str, line: int, column: int, code: str) -> dict[str, Any]:
    """Verify one finding's rewrite with JAX; apply it (workspace/applyEdit) only if it passes."""
    document = _document(uri)
    if document is None:
        return {"applied": False, "reason": "the configuration cannot be read"}
    module, findings = _findings_at(document, line, code)
    finding = next((f for f in findings if f.span.column == column), None)
    if module is None or finding is None or not isinstance(finding.fix, Edit):
        return {"applied": False, "reason": "the finding is gone: the document changed"}
    edit = finding.fix
    # seconds of JAX work in the verification child: the server keeps answering meanwhile
    attempt = await asyncio.get_running_loop().run_in_executor(
        _VERIFIER, attempt_fix, finding, edit, module, document.source, document.path
    )
    if not attempt.applied:
        message = f"jaxlint: {code} not applied: {attempt.note}"
        server.window_show_message(types.ShowMessageParams(types.MessageType.Warning, message))
        return {"applied": False, "reason": attempt.note, "verification": attempt.verification}
    new_text = edited_source(module, [edit], document.source)
    label = f"jaxlint: {code} (verified)"
    await server.workspace_apply_edit_async(
        types.ApplyWorkspaceEditParams(edit=_whole_document_edit(document, new_text), label=label)
    )
    return {"applied": True, "verification": attempt.verification}


def serve() -> int:
    """Speak LSP on stdin/stdout until the client says exit; one verification child (one JAX
    import, results kept in the project's cache) serves every verify command, one at a time."""
    root = os.environ.get("JAXLINT_CACHE_DIR")
    cache_root = Path(root) if root else project_root(Path.cwd())
    _SESSION.cache_root = cache_root  # unchanged modules are not parsed again per keystroke
    framed = FramedInput(sys.stdin.buffer)
    _quiet_pygls_tracebacks()
    with shared_session(cache_root=cache_root):
        server.start_io(stdin=framed)  # type: ignore[arg-type]  # readline/read is all it uses
    _VERIFIER.shutdown()
    if framed.problem is not None:
        to_stderr(f"jaxlint server: {framed.problem}: stopping")
        return 1
    return 0


def _quiet_pygls_tracebacks() -> None:
    """pygls logs a traceback for a message it cannot handle (a body that is not JSON) and
    answers it with an error; the one line of its message is enough on stderr."""

    def drop_traceback(record: logging.LogRecord) -> bool:
        record.exc_info = None
        record.exc_text = None
        return True

    handler = logging.StreamHandler(sys.stderr)
    handler.setLevel(logging.WARNING)
    handler.setFormatter(logging.Formatter("jaxlint server: %(message)s"))
    handler.addFilter(drop_traceback)  # a handler's filter sees the records of child loggers too
    pygls = logging.getLogger("pygls")
    pygls.addHandler(handler)
    pygls.propagate = False
