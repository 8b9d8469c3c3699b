"""Rules' `may_apply` prefilters rule units out before libcst parses them: a sharper one must
never rule out a unit where the rule finds something."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from jaxlint.analysis.ast_walk import walk_ast
from jaxlint.analysis.names import ImportTable
from jaxlint.analysis.unit_summary import UnitSummary, _plain_bool
from jaxlint.engine.config import Config
from jaxlint.engine.lint import check_source
from jaxlint.rules.jax102_traced_bool import TRUTH_BUILTINS, TracedBool
from jaxlint.rules.jax103_traced_concretize import TracedConcretize
from jaxlint.rules.jax105_value_dependent_shape import SIZED_BY_VALUES, ValueDependentShape
from jaxlint.rules.jax304_bad_static_args import BadStaticArgs

REPO = Path(__file__).resolve().parent.parent
SOURCES = sorted((REPO / "fixtures").rglob("*.py")) + sorted(
    (REPO / "bench" / "examples").rglob("*.py")
)


def _staged(unit: UnitSummary) -> bool:
    return any(f.staged for f in unit.functions)


def _staged_or_vmapped(unit: UnitSummary) -> bool:
    return any(f.staged or f.batched_params for f in unit.functions)


# what each prefilter was before it was sharpened: every unit holding a node of a kind the
# rule visits (in staged code; JAX102 in vmapped code too)
BROAD = {
    TracedBool: lambda unit: (
        _staged_or_vmapped(unit)
        and bool(
            unit.node_types
            & {"If", "While", "Assert", "IfExp", "BoolOp", "UnaryOp", "comprehension"}
            or unit.called & TRUTH_BUILTINS
        )
    ),
    TracedConcretize: lambda unit: _staged(unit) and bool(unit.node_types & {"Call", "Subscript"}),
    ValueDependentShape: lambda unit: (
        _staged(unit)
        and bool("Subscript" in unit.node_types or unit.called & SIZED_BY_VALUES.keys())
    ),
    # every unit: traced code may hand a tracer to a static parameter wherever it is
    BadStaticArgs: lambda unit: True,
}


def _codes(path: Path) -> list[tuple[str, int, str]]:
    config = Config(select=("JAX",))
    result = check_source(path.read_text(encoding="utf-8"), str(path), config)
    return [(d.code, d.span.line, d.message) for d in result.diagnostics]


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(REPO)))
def test_sharp_prefilters_find_what_the_broad_ones_did(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sharp = _codes(path)
    for rule, broad in BROAD.items():
        monkeypatch.setattr(rule, "may_apply", classmethod(lambda cls, unit, b=broad: b(unit)))
    assert sharp == _codes(path)


@pytest.mark.parametrize(
    ("test", "plain"),
    [
        ("x is None", True),
        ("isinstance(x, tuple) and y is not None", True),
        ("len(xs) > 1", True),
        ("not hasattr(m, 'bias')", True),
        ("x > 0", False),
        ("x", False),
        ("not x", False),
        ("a is None or b", False),
        ("len(xs) > n", False),
        ("bool(x)", False),
    ],
)
def test_a_truth_test_is_plain_only_when_no_array_can_reach_it(test: str, plain: bool) -> None:
    imports = ImportTable.from_ast(ast.parse("import jax"), None)
    assert _plain_bool(ast.parse(test, mode="eval").body, imports) is plain


def test_walk_ast_is_ast_walk_without_contexts_and_operators() -> None:
    operators = (ast.expr_context, ast.operator, ast.unaryop, ast.cmpop, ast.boolop)
    for path in SOURCES:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        expected = [n for n in ast.walk(tree) if not isinstance(n, operators)]
        assert list(walk_ast(tree)) == expected
