"""Apply a set of non-overlapping edits to a module with one transform, adding imports once."""

from __future__ import annotations

from collections.abc import Iterable

import libcst as cst
from libcst.codemod import CodemodContext
from libcst.codemod.visitors import AddImportsVisitor

from jaxlint.engine.edits import Edit, Replacement


class _Replace(cst.CSTTransformer):
    def __init__(self, replacements: dict[cst.CSTNode, Replacement]) -> None:
        super().__init__()
        self.replacements = replacements

    def on_leave(self, original_node: cst.CSTNode, updated_node: cst.CSTNode):  # type: ignore[override]
        return self.replacements.get(original_node, updated_node)


def apply_edits(module: cst.Module, edits: Iterable[Edit]) -> cst.Module:
    """The module with every edit's replacements made and its imports added (once each)."""
    replacements: dict[cst.CSTNode, Replacement] = {}
    imports = []
    for edit in edits:
        replacements.update(edit.replacements)
        imports.extend(edit.imports)
    updated = module.visit(_Replace(replacements))
    if imports:
        context = CodemodContext()
        for spec in dict.fromkeys(imports):
            AddImportsVisitor.add_needed_import(context, spec.module, spec.name)
        updated = AddImportsVisitor(context).transform_module(updated)
    return updated


def edited_source(module: cst.Module, edits: Iterable[Edit], source: str) -> str:
    """The text of `source` (parsed as `module`) after applying edits.

    libcst drops a lone `\r` ending the file (a CRLF file cut after its last CR); it is kept,
    so an edit changes no byte outside the lines it replaces."""
    code = apply_edits(module, edits).code
    if source.endswith("\r") and not code.endswith("\r"):
        unedited = module.code
        if source.startswith(unedited):
            code += source[len(unedited) :]
    return code
