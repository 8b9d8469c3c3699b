"""JAX-flavoured mutations of the fixtures (issue 13): whatever the mutation, `check` never
raises, every fix result parses, a second `--fix` changes nothing, and each edit leaves the
bytes outside the lines it replaces as they were (imports it adds aside).

The suite runs JAXLINT_MUTATIONS cases (default 300); `python bench/fuzz.py` runs 10,000.
"""

from __future__ import annotations

import ast
import os
import random
import re
import warnings
from collections.abc import Callable
from dataclasses import replace

import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from jaxlint.engine.config import Config
from jaxlint.engine.edits import Edit
from jaxlint.engine.lint import analyze_module, enabled_rules
from jaxlint.fixes.apply import edited_source
from jaxlint.fixes.pipeline import lint_source
from tests.conftest import ROOT

CASES = int(os.environ.get("JAXLINT_MUTATIONS", "300"))
ALL_RULES = Config(select=("JAX",))
FIXTURES = sorted(p for p in (ROOT / "fixtures").rglob("*.py") if ".out." not in p.name)

Mutation = Callable[[list[str], random.Random], list[str]]


def _indent_of(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


def _pick(lines: list[str], rng: random.Random, pattern: str) -> int | None:
    found = [i for i, line in enumerate(lines) if re.search(pattern, line)]
    return rng.choice(found) if found else None


def swap_transform(lines: list[str], rng: random.Random) -> list[str]:
    """`@jax.jit` ↔ `@jax.vmap`, `@jax.grad`, `@partial(jax.jit, static_argnums=0)`, nothing."""
    i = _pick(lines, rng, r"^\s*@")
    if i is None:
        return lines
    choice = rng.choice(
        ["@jax.jit", "@jax.vmap", "@jax.grad", "@partial(jax.jit, static_argnums=0)", ""]
    )
    return lines[:i] + ([_indent_of(lines[i]) + choice + "\n"] if choice else []) + lines[i + 1 :]


def swap_iteration(lines: list[str], rng: random.Random) -> list[str]:
    """One loop's iterable made another a real loop has."""
    i = _pick(lines, rng, r"^\s*for .* in .*:\s*$")
    if i is None:
        return lines
    head, _, _ = lines[i].partition(" in ")
    name = rng.choice(["x", "xs", "params", "self.w"])
    iterable = rng.choice(
        [
            f"range({name}.shape[0])",
            f"range(len({name}))",
            "range(3)",
            f"range(1, {name}.shape[0], 2)",
            f"enumerate({name})",
            f"zip({name}, {name})",
            f"reversed(range({name}.shape[0]))",
            name,
        ]
    )
    return lines[:i] + [f"{head} in {iterable}:\n"] + lines[i + 1 :]


def insert_statement(lines: list[str], rng: random.Random) -> list[str]:
    """A hazard-prone statement at the indentation of a line inside a function."""
    inside = [i for i, line in enumerate(lines) if line.startswith((" ", "\t")) and line.strip()]
    if not inside:
        return lines
    i = rng.choice(inside)
    statement = rng.choice(
        [
            "print(x)",
            'print("step", x.shape, x)',
            "x[0] = 1.0",
            "x.at[0].set(2.0)",
            "key = jax.random.PRNGKey(0)",
            "y = jax.random.normal(key, (3,)) + jax.random.normal(key, (3,))",
            "if x.sum() > 0:\n{indent}    x = -x",
            "total = float(x.sum())",
            "self.count += 1",
            "return x",
            "global counter",
            "yield x",
        ]
    )
    indent = _indent_of(lines[i])
    text = indent + statement.format(indent=indent) + "\n"
    return lines[:i] + [text] + lines[i:]


def drop_or_repeat(lines: list[str], rng: random.Random) -> list[str]:
    """A line deleted or repeated (half-finished edits)."""
    if not lines:
        return lines
    i = rng.randrange(len(lines))
    return lines[:i] + lines[i + 1 :] if rng.random() < 0.5 else lines[: i + 1] + lines[i:]


def rename(lines: list[str], rng: random.Random) -> list[str]:
    """`jnp` ↔ `np`, `x` → `self`, `jax` → `jax2`: the resolution of names changes."""
    old, new = rng.choice([("jnp.", "np."), ("np.", "jnp."), ("(x", "(self"), ("jax.", "jax2.")])
    return [line.replace(old, new) for line in lines]


def truncate(lines: list[str], rng: random.Random) -> list[str]:
    """The file cut at a random character (a save in progress)."""
    text = "".join(lines)
    cut = rng.randrange(len(text) + 1) if text else 0
    return text[:cut].splitlines(keepends=True)


def line_endings(lines: list[str], rng: random.Random) -> list[str]:
    """CRLF everywhere, on some lines, or tabs for indentation."""
    style = rng.choice(["crlf", "mixed", "tabs"])
    if style == "tabs":
        return [line.replace("    ", "\t") for line in lines]
    return [
        line[:-1] + "\r\n"
        if line.endswith("\n") and (style == "crlf" or rng.random() < 0.5)
        else line
        for line in lines
    ]


MUTATIONS: list[Mutation] = [
    swap_transform,
    swap_iteration,
    insert_statement,
    drop_or_repeat,
    rename,
    truncate,
    line_endings,
]


def mutated(case: int) -> tuple[str, str]:
    """Case number → (fixture name and mutations, mutated source); the same for a number."""
    rng = random.Random(case)
    fixture = FIXTURES[case % len(FIXTURES)]
    lines = fixture.read_text(encoding="utf-8").splitlines(keepends=True)
    names = []
    for _ in range(rng.randint(1, 3)):
        mutation = rng.choice(MUTATIONS)
        lines = mutation(lines, rng)
        names.append(mutation.__name__)
    return f"{fixture.relative_to(ROOT)} + {' + '.join(names)}", "".join(lines)


def parses(source: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SyntaxWarning)
            ast.parse(source)
    except (SyntaxError, ValueError, RecursionError):
        return False
    return True


def check_properties(source: str) -> None:
    # never raises: fixing checks the text first (the check alone is that same call's start)
    fixed = lint_source(source, "mutant.py", ALL_RULES, fix=True, unsafe_fixes=True, verify=False)
    if fixed.fixed_source is None:
        return
    assert parses(fixed.fixed_source), "a fix result does not parse"
    again = lint_source(
        fixed.fixed_source, "mutant.py", ALL_RULES, fix=True, unsafe_fixes=True, verify=False
    )
    assert again.fixed_source is None, "a second --fix changed the file again"
    check_edits_stay_in_their_lines(source)


def check_edits_stay_in_their_lines(source: str) -> None:
    """Each edit alone, without the imports it adds (libcst's AddImportsVisitor places those),
    leaves every line before and after the nodes it replaces as it was."""
    rules = enabled_rules(ALL_RULES, "mutant.py")
    analyzed, module = analyze_module(source, "mutant.py", ALL_RULES, rules)
    if module is None:
        return
    positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    before = source.splitlines(keepends=True)
    for finding in analyzed.findings:
        edit = finding.fix
        if not isinstance(edit, Edit):
            continue
        nodes = [node for node in edit.replacements if node in positions]
        if not nodes:
            continue
        ranges = [positions[node] for node in nodes]
        # a statement's comment and blank lines above it are part of its node in libcst
        first = min(
            positions[node].start.line - len(getattr(node, "leading_lines", ())) for node in nodes
        )
        last = max(r.end.line for r in ranges)
        while last < len(before) and not before[last].strip():
            last += 1  # blank lines after a replaced statement belong to the next in libcst
        after = edited_source(module, [replace(edit, imports=())], source)
        after = after.splitlines(keepends=True)
        tail = len(before) - last
        where = f"{finding.rule.code} edit for lines {first}-{last}"
        assert after[: first - 1] == before[: first - 1], f"{where} changed a line above"
        assert after[len(after) - tail :] == before[last:], f"{where} changed a line below"


@pytest.mark.parametrize("case", range(CASES))
def test_mutated_fixture(case: int) -> None:
    name, source = mutated(case)
    try:
        check_properties(source)
    except AssertionError as error:
        raise AssertionError(f"case {case} ({name}): {error}") from None


def test_the_mutations_reach_every_fixture_and_change_it() -> None:
    names = {mutated(case)[0].split(" + ")[0] for case in range(len(FIXTURES))}
    assert names == {str(p.relative_to(ROOT)) for p in FIXTURES}
    unchanged = [
        case for case in range(50) if mutated(case)[1] == FIXTURES[case % len(FIXTURES)].read_text()
    ]
    assert len(unchanged) < 10
