"""Apply a set of non-overlapping edits to a module with one transform, adding imports once."""

from __future__ import annotations

import os
from collections.abc import Iterable

import libcst as cst

from jaxlint.engine.edits import Edit, ImportSpec, Replacement


class _Replace(cst.CSTTransformer):
    def __init__(self, replacements: dict[cst.CSTNode, Replacement]) -> None:
        super().__init__()
        self.replacements = replacements

    def on_leave(  # type: ignore[override]  # a node's replacement may be of another kind
        self, original_node: cst.CSTNode, updated_node: cst.CSTNode
    ) -> Replacement:
        return self.replacements.get(original_node, updated_node)


def apply_edits(module: cst.Module, edits: Iterable[Edit]) -> cst.Module:
    """The module with every edit's replacements made and its imports added (once each)."""
    replacements: dict[cst.CSTNode, Replacement] = {}
    imports: list[ImportSpec] = []
    for edit in edits:
        replacements.update(edit.replacements)
        imports.extend(edit.imports)
    updated = module.visit(_Replace(replacements))
    if imports:
        # Here, not at the top: libcst.codemod (and the matchers it imports) is a third of a
        # second every `jaxlint check` would pay, fix or no fix.
        from libcst.codemod import CodemodContext
        from libcst.codemod.visitors import AddImportsVisitor

        context = CodemodContext()
        for spec in dict.fromkeys(imports):
            AddImportsVisitor.add_needed_import(context, spec.module, spec.name)
        updated = AddImportsVisitor(context).transform_module(updated)
    return updated


def edited_source(module: cst.Module, edits: Iterable[Edit], source: str) -> str:
    """The text of `source` (parsed as `module`) after applying edits.

    libcst does not give back every file's trailing whitespace: it drops a lone `\r` ending
    the file (a CRLF file cut after its last CR) and a blank line before a last line of spaces
    with no newline; the source's own ending is kept, so an edit changes no byte outside the
    lines it replaces."""
    code = apply_edits(module, edits).code
    if source[len(source.rstrip()) :] in ("", "\n"):
        return code  # the usual ending, which libcst gives back as it was
    unedited = module.code
    common = os.path.commonprefix([unedited, source])
    source_tail, unedited_tail = source[len(common) :], unedited[len(common) :]
    if not source_tail.strip() and not unedited_tail.strip() and code.endswith(unedited_tail):
        code = code[: len(code) - len(unedited_tail)] + source_tail
    return code
