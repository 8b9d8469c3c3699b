"""The package's layers, read from its own imports (every import, TYPE_CHECKING and function-
level ones included): no import cycles, and no layer imports one above it."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import ROOT

PACKAGE = ROOT / "jaxlint"
# lowest first; a module may import its own layer and the ones before it
LAYERS = [
    ("jaxlint.diagnostics", "jaxlint.cache"),
    ("jaxlint.analysis",),
    ("jaxlint.engine",),
    ("jaxlint.rules", "jaxlint.verify"),
    ("jaxlint.rewrites",),
    ("jaxlint.fixes",),
    ("jaxlint.session", "jaxlint.observe"),
    (
        "jaxlint.output",
        "jaxlint.discovery",
        "jaxlint.files",
        "jaxlint.notebook",
        "jaxlint.flake8_plugin",
        "jaxlint.verify_command",
        "jaxlint.watch",
        "jaxlint.lsp_input",
        "jaxlint.server",
        "jaxlint.cli",
        "jaxlint.__main__",
    ),
]


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        name = module_name(path)
        found = graph.setdefault(name, set())
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                found.add(node.module)
                found.update(f"{node.module}.{alias.name}" for alias in node.names)
            elif isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
    modules = set(graph)
    modules.discard("jaxlint")  # the empty package: `from jaxlint import x` names a module
    return {name: {i for i in found if i in modules and i != name} for name, found in graph.items()}


def layer_of(module: str) -> int:
    for number, prefixes in enumerate(LAYERS):
        if any(module == p or module.startswith(p + ".") for p in prefixes):
            return number
    raise AssertionError(f"{module} belongs to no layer: add it to LAYERS")


def test_every_module_belongs_to_a_layer_and_imports_none_above_it() -> None:
    upward = [
        f"{module} imports {target}"
        for module, targets in imports().items()
        if module != "jaxlint"
        for target in targets
        if layer_of(target) > layer_of(module)
    ]
    assert upward == []


def test_no_import_cycles() -> None:
    graph = imports()
    state: dict[str, int] = {}  # 1: on the current path, 2: done

    def visit(module: str, path: list[str]) -> None:
        state[module] = 1
        for target in sorted(graph[module]):
            if state.get(target) == 1:
                cycle = path[path.index(target) :] + [target]
                raise AssertionError("import cycle: " + " -> ".join(cycle))
            if target not in state:
                visit(target, path + [target])
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])


def test_rules_hold_rules_and_the_rewrites_layer_answers_every_request() -> None:
    """`jaxlint/rules/` holds one module per rule (and `_helpers` of their detection); the
    rewrite engines live in `jaxlint/rewrites/`, which answers every request a rule can make,
    and every request it answers is made by a rule; `verify/` imports no rule or rewrite."""
    from jaxlint.engine import requests
    from jaxlint.engine.registry import all_rules
    from jaxlint.engine.rule import rewrite_answers

    rule_modules = {rule.__module__ for rule in all_rules().values()}
    modules = {module_name(p) for p in (PACKAGE / "rules").glob("*.py")}
    helpers = {m for m in modules if m.rsplit(".", 1)[1].startswith("_")} | {"jaxlint.rules"}
    assert modules - helpers == rule_modules
    declared = {
        value
        for value in vars(requests).values()
        if isinstance(value, type) and issubclass(value, requests.RewriteRequest)
    } - {requests.RewriteRequest}
    assert set(rewrite_answers()) == declared
    rules_text = "\n".join(p.read_text(encoding="utf-8") for p in (PACKAGE / "rules").glob("*.py"))
    assert {r.__name__ for r in declared if f"{r.__name__}(" not in rules_text} == set()
    graph = imports()
    into_rules = {
        f"{module} imports {target}"
        for module, targets in graph.items()
        if module.startswith("jaxlint.verify")
        for target in targets
        if target.startswith(("jaxlint.rules", "jaxlint.rewrites"))
    }
    assert into_rules == set()


def test_a_rule_module_imports_no_other_rule() -> None:
    """A rule is one module (`jaxlint/rules/jaxNNN_*.py`); what two rules share lives in the rules
    package's own helper modules (`_codegen`, `_printed_values`, …), never in one of them."""
    rule = "jaxlint.rules.jax"
    crossing = [
        f"{module} imports {target}"
        for module, targets in imports().items()
        if module.startswith(rule)
        for target in targets
        if target.startswith(rule) and target.split(".")[2] != module.split(".")[2]
    ]
    assert crossing == []


def test_a_rule_module_reads_code_through_the_analysis_layer() -> None:
    """Rules see code one way: libcst nodes and the analysis layer's queries. No module of
    `jaxlint/rules/` imports `ast` (any form), or `ModuleIndex` (from wherever, as a name or an
    attribute): what a rule needs of the `ast` index is a query or fact of jaxlint.analysis
    (its host pass: `Rule.host_query`, one of jaxlint.analysis.host_queries)."""
    found = []
    for path in sorted((PACKAGE / "rules").rglob("*.py")):
        module = module_name(path)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found += [
                    f"{module} imports {alias.name}"
                    for alias in node.names
                    if alias.name == "ast" or alias.name.startswith("ast.")
                ]
            elif isinstance(node, ast.ImportFrom):
                source = node.module or ""
                if node.level == 0 and (source == "ast" or source.startswith("ast.")):
                    found.append(f"{module} imports from {source}")
                found += [
                    f"{module} imports ModuleIndex from {source}"
                    for alias in node.names
                    if alias.name == "ModuleIndex"
                ]
            elif isinstance(node, ast.Attribute) and node.attr == "ModuleIndex":
                found.append(f"{module} reads .ModuleIndex")
    assert found == []
