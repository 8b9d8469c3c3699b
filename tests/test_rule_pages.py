"""Every rule's page in rules/: Ruff's sections in order, and code blocks that lint as they claim.

The Example block must report exactly the (code, line) pairs its `# expect:` comments mark, all
of them the page's own code; the Use-instead block must report nothing. Both are linted with
every rule selected, opt-in rules included.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import pytest

from jaxlint.engine.config import Config
from jaxlint.engine.registry import ENGINE_CODES, all_rules
from jaxlint.fixes.pipeline import lint_source
from tests.conftest import ROOT, codes_and_lines, expected_findings

PAGES = ROOT / "rules"
REQUIRED_SECTIONS = ("What it does", "Why is this bad?", "Example", "Use instead", "Fix safety")
# Every heading a page may use, in the order Ruff's rule documentation puts them.
SECTION_ORDER = (
    "What it does",
    "Why is this bad?",
    "Known problems",
    "Example",
    "Use instead",
    "Fix safety",
    "Options",
    "References",
)
PYTHON_BLOCK = re.compile(r"^```python[ \t]*\n(?P<code>.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)
EVERYTHING = Config(select=("JAX",))


@dataclass
class Page:
    """A rule page split at its `## ` headings (headings inside code fences do not count)."""

    title: str | None
    headings: list[str] = field(default_factory=list)
    sections: dict[str, str] = field(default_factory=dict)
    unclosed_fence: bool = False


def parse_page(text: str) -> Page:
    """Split a page into its `# ` title and the text under each `## ` heading."""
    page = Page(title=None)
    lines: dict[str, list[str]] = {}
    current: str | None = None
    in_fence = False
    for line in text.splitlines():
        if line.startswith("```"):
            in_fence = not in_fence
        elif not in_fence and line.startswith("## "):
            current = line[3:].strip()
            page.headings.append(current)
            lines.setdefault(current, [])
            continue
        elif not in_fence and line.startswith("# ") and page.title is None and current is None:
            page.title = line[2:].strip()
            continue
        if current is not None:
            lines[current].append(line)
    page.sections = {heading: "\n".join(body) + "\n" for heading, body in lines.items()}
    page.unclosed_fence = in_fence
    return page


def python_blocks(section: str) -> list[str]:
    """The contents of the ```python fences in a section (```text and others are skipped)."""
    return [match["code"] for match in PYTHON_BLOCK.finditer(section)]


def page_codes() -> list[str]:
    return sorted([*ENGINE_CODES, *all_rules()])


def rule_name(code: str) -> str:
    return ENGINE_CODES[code][0] if code in ENGINE_CODES else all_rules()[code].name


def load(code: str) -> Page:
    path = PAGES / f"{code}.md"
    assert path.is_file(), f"{code} has no page: expected {path.relative_to(ROOT)}"
    return parse_page(path.read_text(encoding="utf-8"))


def the_block(page: Page, heading: str, code: str) -> str:
    blocks = python_blocks(page.sections.get(heading, ""))
    assert len(blocks) == 1, f"{code}: `## {heading}` needs exactly one ```python block"
    return blocks[0]


def lint_block(source: str, code: str):
    return lint_source(source, f"{code}_page_block.py", EVERYTHING).diagnostics


def describe(diagnostics) -> list[str]:
    return [f"{d.line}: {d.code} {d.message}" for d in diagnostics]


# --- the page parser itself -------------------------------------------------------------------


def test_parser_splits_sections_and_skips_headings_in_code() -> None:
    page = parse_page(
        "# JAX999: made-up\n\n## What it does\n\ntext\n\n## Example\n\n"
        "```python\n## not a heading\nx = 1  # expect: JAX999\n```\n\n```text\nignored\n```\n\n"
        "## Use instead\n\n```python\nx = 2\n```\n"
    )
    assert page.title == "JAX999: made-up"
    assert page.headings == ["What it does", "Example", "Use instead"]
    example = "## not a heading\nx = 1  # expect: JAX999\n"
    assert python_blocks(page.sections["Example"]) == [example]
    assert python_blocks(page.sections["Use instead"]) == ["x = 2\n"]
    assert not page.unclosed_fence
    assert parse_page("# T\n\n## Example\n\n```python\nx = 1\n").unclosed_fence


# --- every page -----------------------------------------------------------------------------


def test_every_page_belongs_to_a_known_rule() -> None:
    orphans = sorted(p.stem for p in PAGES.glob("*.md") if p.stem not in page_codes())
    assert not orphans, f"pages for unknown codes: {orphans}"


@pytest.mark.parametrize("code", page_codes())
def test_page_title_names_the_rule(code: str) -> None:
    page = load(code)
    assert page.title == f"{code}: {rule_name(code)}"


@pytest.mark.parametrize("code", page_codes())
def test_page_has_ruffs_sections_in_order(code: str) -> None:
    page = load(code)
    assert not page.unclosed_fence, f"{code}: a code fence is never closed"
    unknown = [h for h in page.headings if h not in SECTION_ORDER]
    assert not unknown, f"{code}: unknown sections {unknown}; allowed: {SECTION_ORDER}"
    missing = [h for h in REQUIRED_SECTIONS if h not in page.headings]
    assert not missing, f"{code}: missing sections {missing}"
    assert len(page.headings) == len(set(page.headings)), f"{code}: a section appears twice"
    positions = [SECTION_ORDER.index(h) for h in page.headings]
    assert positions == sorted(positions), f"{code}: sections out of order: {page.headings}"
    for heading in page.headings:
        assert page.sections[heading].strip(), f"{code}: `## {heading}` is empty"


@pytest.mark.parametrize("code", page_codes())
def test_example_reports_exactly_its_expectations(code: str) -> None:
    source = the_block(load(code), "Example", code)
    if code not in ENGINE_CODES and all_rules()[code].observed_only:
        # seen only at run time (tests/test_observe.py runs the same shape): the page marks it
        # `# seen:`, and reading the text finds nothing
        assert f"# seen: {code}" in source, f"{code}: the Example marks no `# seen: {code}`"
        assert describe(lint_block(source, code)) == []
        return
    expected = expected_findings(source)
    assert expected, f"{code}: the Example marks no line with `# expect: {code}`"
    foreign = sorted({c for c, _ in expected} - {code})
    assert not foreign, f"{code}: the Example expects other rules' codes {foreign}"
    diagnostics = lint_block(source, code)
    assert codes_and_lines(diagnostics) == expected, describe(diagnostics)


@pytest.mark.parametrize("code", page_codes())
def test_use_instead_is_clean(code: str) -> None:
    source = the_block(load(code), "Use instead", code)
    assert not expected_findings(source), f"{code}: the Use-instead block expects findings"
    assert describe(lint_block(source, code)) == []


@pytest.mark.parametrize("code", page_codes())
def test_fix_safety_names_the_fix_kind(code: str) -> None:
    text = load(code).sections["Fix safety"].lower()
    kind = None if code in ENGINE_CODES else all_rules()[code].fix_kind
    if kind is None:
        assert "no fix" in text, f"{code} has no fix; its Fix safety section must say so"
    else:
        assert kind in text, f"{code}'s fix is {kind!r}; its Fix safety section must say so"


@pytest.mark.parametrize("code", sorted(c for c, rule in all_rules().items() if rule.opt_in))
def test_opt_in_rule_pages_say_how_to_enable_them(code: str) -> None:
    text = (PAGES / f"{code}.md").read_text(encoding="utf-8")
    assert "opt-in" in text.lower(), f"{code} is opt-in; its page must say so"
    assert f"--select {code}" in text, f"{code}'s page must show `--select {code}`"


def test_jax101_page_says_the_scan_rewrite_trades_run_time_for_compile_time() -> None:
    """SPEC §3: the rewrite is a compile-time fix; scan can be slower for short trip counts."""
    text = " ".join(load("JAX101").sections["Fix safety"].split()).lower()
    assert "compile-time" in text
    assert "slower than the unrolled loop for short trip counts" in text
