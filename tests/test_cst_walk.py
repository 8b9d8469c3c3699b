"""`walk` visits what libcst's `visit` visits, in the same order, less the trivia."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest

from jaxlint.analysis.cst_walk import TRIVIA, walk

FIXTURES = sorted((Path(__file__).parent.parent / "fixtures").rglob("*.py"))


class _Record(cst.CSTVisitor):
    def __init__(self) -> None:
        super().__init__()
        self.events: list[tuple[str, int]] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        self.events.append(("visit", id(node)))
        return not isinstance(node, cst.Lambda)  # a pruned subtree is left out by both

    def on_leave(self, original_node: cst.CSTNode) -> None:
        self.events.append(("leave", id(original_node)))


def _without_trivia(module: cst.Module, events: list[tuple[str, int]]) -> list[tuple[str, int]]:
    trivia = set()

    class _Trivia(cst.CSTVisitor):
        def on_visit(self, node: cst.CSTNode) -> bool:
            if type(node) in TRIVIA:
                trivia.add(id(node))
                inside = _Record()
                node.visit(inside)
                trivia.update(i for _, i in inside.events)
                return False
            return True

    module.visit(_Trivia())
    return [event for event in events if event[1] not in trivia]


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_walk_visits_what_libcst_visits_in_its_order(path: Path) -> None:
    module = cst.parse_module(path.read_text(encoding="utf-8"))
    by_libcst, by_walk = _Record(), _Record()
    module.visit(by_libcst)
    walk(module, by_walk)
    assert by_walk.events == _without_trivia(module, by_libcst.events)
    assert len(by_walk.events) > 20
