"""JAX501 prng-key-reuse: one PRNG key consumed twice on one path."""

from __future__ import annotations

import re

import libcst as cst

from jaxlint.analysis.cst_walk import walk
from jaxlint.analysis.host_queries.prng_anchors import prng_anchor_calls
from jaxlint.analysis.prng import KeyFinding
from jaxlint.diagnostics import Span
from jaxlint.engine.edits import Edit, Refusal, Replacement
from jaxlint.engine.rule import UnitContext
from jaxlint.rules._prng_rule import KeyFindingRule, key_argument, random_module


class PrngKeyReuse(KeyFindingRule):
    code = "JAX501"
    name = "prng-key-reuse"
    severity = "warning"
    fix_kind = "suggestion"
    summary = "one PRNG key consumed twice: the two draws are identical or correlated"
    host_query = prng_anchor_calls(code)

    def __init__(self, context: UnitContext) -> None:
        super().__init__(context)
        self.firsts = {
            context.index.span_of(f.first.func): f for f in self.findings.values() if f.first
        }
        self.statement: cst.SimpleStatementLine | None = None
        self.blocks: list[cst.CSTNode] = []
        self.scopes = 0  # lambdas and comprehensions around the current node
        # the earlier consumer of each finding: (its call, its statement, the block it is in)
        self.seen: dict[int, tuple[cst.Call, cst.SimpleStatementLine | None, cst.CSTNode]] = {}

    def visit_Module(self, node: cst.Module) -> None:
        self.blocks.append(node)

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self.blocks.append(node)

    def leave_IndentedBlock(self, original_node: cst.IndentedBlock) -> None:
        self.blocks.pop()

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        self.statement = node

    def leave_SimpleStatementLine(self, original_node: cst.SimpleStatementLine) -> None:
        self.statement = None

    def visit_Lambda(self, node: cst.Lambda) -> None:
        self.scopes += 1

    def leave_Lambda(self, original_node: cst.Lambda) -> None:
        self.scopes -= 1

    def visit_ListComp(self, node: cst.ListComp) -> None:
        self.scopes += 1

    def leave_ListComp(self, original_node: cst.ListComp) -> None:
        self.scopes -= 1

    def visit_GeneratorExp(self, node: cst.GeneratorExp) -> None:
        self.scopes += 1

    def leave_GeneratorExp(self, original_node: cst.GeneratorExp) -> None:
        self.scopes -= 1

    def visit_SetComp(self, node: cst.SetComp) -> None:
        self.scopes += 1

    def leave_SetComp(self, original_node: cst.SetComp) -> None:
        self.scopes -= 1

    def visit_DictComp(self, node: cst.DictComp) -> None:
        self.scopes += 1

    def leave_DictComp(self, original_node: cst.DictComp) -> None:
        self.scopes -= 1

    def seen_call(self, node: cst.Call, span: Span) -> None:
        first = self.firsts.get(span)
        if first is not None and self.scopes == 0:
            self.seen[id(first)] = (node, self.statement, self.blocks[-1])

    def fix(self, second: cst.Call, finding: KeyFinding) -> Edit | Refusal:
        name = finding.key_name
        if finding.seed:
            return Refusal("an integer seed, not a key: give each consumer its own seed by hand")
        if finding.tree:
            return Refusal(
                "a tree of keys, mapped leaf by leaf: give each mapping keys of its own (split "
                "the key they come from into more) by hand"
            )
        if finding.in_closure:
            return Refusal(
                f"a local function draws from `{name}`, which it closes over: give it a key "
                "parameter and split the key by hand"
            )
        if name is None or finding.first_key_name is None:
            return Refusal("the key is not a plain local name: split it by hand")
        assert finding.key is not None  # (a Name: `name` is its id)
        if finding.carried:
            return self._carried_fix(second, finding, name)
        if finding.consumers > 2:
            return Refusal(
                f"`{name}` has {finding.consumers} consumers: split it into that many keys by hand"
            )
        function = self.context.function
        if (
            function is not None
            and finding.first_line is not None
            and not function.start_line <= finding.first_line <= function.end_line
        ):
            # a branch or closure drawing again what its enclosing function drew
            return Refusal("the two consumers are in different functions: split the key by hand")
        earlier = self.seen.get(id(finding))
        if earlier is None or earlier[1] is None or self.scopes:
            return Refusal(
                "the two consumers are not plain statements of one block: split the key by hand"
            )
        first, statement, block = earlier
        assert statement is not None  # (tested above)
        if not any(b is block for b in self.blocks):
            return Refusal(
                "the first consumer runs only on some paths to the second: split the key where "
                "both can see it"
            )
        names = self._fresh_names(name)
        if names is None:
            return Refusal(f"`{name}1` and `{name}2` are taken: split the key by hand")
        first_key = key_argument(self.context, first, finding, first=True)
        second_key = key_argument(self.context, second, finding)
        if not isinstance(first_key, cst.Name) or not isinstance(second_key, cst.Name):
            return Refusal("the key is not passed as a plain argument: split it by hand")
        if self._batch_of_keys(first_key):
            return Refusal(
                f"`{name}` holds a batch of keys (`split(key, n)` kept whole), which `split` "
                "does not take: split the key it comes from into more by hand"
            )
        random, imports = random_module(self.context, first)
        line = cst.parse_statement(f"{names[0]}, {names[1]} = {random}.split({name})")
        new_statement = statement.deep_replace(first_key, cst.Name(names[0]))
        replacements: dict[cst.CSTNode, Replacement] = {}
        if _contains(statement, second_key):
            new_statement = new_statement.deep_replace(second_key, cst.Name(names[1]))
        else:
            replacements[second_key] = cst.Name(names[1])
        replacements[statement] = cst.FlattenSentinel(
            [
                line.with_changes(leading_lines=statement.leading_lines),
                new_statement.with_changes(leading_lines=[]),
            ]
        )
        return Edit(
            replacements=replacements,
            description=f"split `{name}` into `{names[0]}` and `{names[1]}`, one per consumer",
            imports=imports,
        )

    def _batch_of_keys(self, key: cst.Name) -> bool:
        """Is the name bound, where it is read, to a whole `jax.random.split(...)` (an array of
        keys, not one key)?"""
        return any(
            kind == "assign"
            and isinstance(value, cst.Call)
            and self.context.resolve(value.func) == "jax.random.split"
            for kind, value in self.context.reaching_values(key)
        )

    def _carried_fix(self, split: cst.Call, finding: KeyFinding, name: str) -> Edit | Refusal:
        """`key, _ = split(key)` … `choice(key, n)` in a loop → `key, key_sub = split(key)` …
        `choice(key_sub, n)`: the carried key is only split, the draw gets the subkey. Only
        when the split's other half is `_` or never read: then nothing else sees the change."""
        statement = self.statement
        assign = statement.body[0] if statement is not None and len(statement.body) == 1 else None
        if not isinstance(assign, cst.Assign) or assign.value is not split:
            return Refusal(f"`{name}` is not split by a plain `{name}, sub = split({name})`")
        target = assign.targets[0].target if len(assign.targets) == 1 else None
        elements = target.elements if isinstance(target, (cst.Tuple, cst.List)) else ()
        names = [e.value.value if isinstance(e.value, cst.Name) else None for e in elements]
        if len(names) != 2 or names[0] != name or names[1] is None:
            return Refusal(f"`{name}` is not split by a plain `{name}, sub = split({name})`")
        other = names[1]
        if other != "_" and self._reads(other) > 1:
            return Refusal(f"`{other}` is used as well: give the draw a subkey of its own by hand")
        fresh = other if other != "_" else self._fresh_name(f"{name}_sub")
        if fresh is None:
            return Refusal(f"`{name}_sub` is taken: split the key by hand")
        # a JAX501 finding: it has its first consumer, and `fix` saw its key is a Name
        assert finding.first is not None and finding.first_key is not None
        consumer = self._call_at(self.context.index.span_of(finding.first.func))
        first_key = (
            key_argument(self.context, consumer, finding, first=True)
            if consumer is not None
            else None
        )
        if not isinstance(first_key, cst.Name) or first_key.value != name:
            return Refusal("the key is not passed as a plain argument: split it by hand")
        replacements: dict[cst.CSTNode, cst.CSTNode] = {first_key: cst.Name(fresh)}
        if other == "_":
            replacements[elements[1].value] = cst.Name(fresh)
        return Edit(
            replacements=replacements,
            description=f"draw from the subkey `{fresh}`; `{name}` is only split, once a step",
        )

    def _call_at(self, span: Span) -> cst.Call | None:
        """The call of this unit whose callee has `span` (a consumer later in the loop)."""
        found: list[cst.Call] = []

        class _Find(cst.CSTVisitor):
            def visit_Call(inner, node: cst.Call) -> None:  # noqa: N805 — the visitor's self
                if not found and self.context.span(node.func) == span:
                    found.append(node)

        walk(self.context.wrapper.module, _Find())
        return found[0] if found else None

    def _function_text(self) -> str:
        function = self.context.function
        lines = self.context.index.lines
        if function is not None:
            return "".join(lines[function.start_line - 1 : function.end_line])
        return "".join(lines)

    def _reads(self, name: str) -> int:
        return len(re.findall(rf"\b{re.escape(name)}\b", self._function_text()))

    def _fresh_name(self, name: str) -> str | None:
        return None if self._reads(name) else name

    def _fresh_names(self, name: str) -> tuple[str, str] | None:
        text = self._function_text()
        for first, second in ((f"{name}1", f"{name}2"), (f"{name}_a", f"{name}_b")):
            if not re.search(rf"\b(?:{first}|{second})\b", text):
                return first, second
        return None


def _contains(tree: cst.CSTNode, target: cst.CSTNode) -> bool:
    found = False

    class _Find(cst.CSTVisitor):
        def on_visit(self, node: cst.CSTNode) -> bool:
            nonlocal found
            if node is target:
                found = True
            return not found

    walk(tree, _Find())
    return found
