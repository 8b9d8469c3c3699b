"""Jupyter notebooks (jaxlint.notebook): cell-by-cell positions, IPython syntax, fixes, the CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from jaxlint import notebook as nb_module
from jaxlint.engine.config import Config
from jaxlint.engine.lint import LintResult
from jaxlint.notebook import dump_notebook, lint_notebook, mask_ipython

ROOT = Path(__file__).resolve().parent.parent


def code_cell(source: str, **extra: Any) -> dict[str, Any]:
    return {
        "cell_type": "code",
        "execution_count": extra.pop("execution_count", None),
        "id": extra.pop("id", "x"),
        "metadata": {},
        "outputs": extra.pop("outputs", []),
        "source": source.splitlines(keepends=True),
    }


def markdown_cell(source: str) -> dict[str, Any]:
    return {"cell_type": "markdown", "id": "md", "metadata": {}, "source": source.splitlines(True)}


def notebook_text(cells: list[dict[str, Any]], indent: int = 1, ensure_ascii: bool = False) -> str:
    """Notebook JSON as Jupyter writes it (indent 1, non-ASCII kept, final newline)."""
    notebook = {
        "cells": cells,
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "language_info": {"name": "python", "version": "3.11.7"},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    return json.dumps(notebook, indent=indent, ensure_ascii=ensure_ascii) + "\n"


# Cell numbers count every cell, markdown included (as Ruff does): cell 3 is `cells[2]`.
TRAINING_CELLS = [
    code_cell("import jax\nimport jax.numpy as jnp", id="imports"),
    markdown_cell("# Cumulative sums\nWhy does this compile so slowly? 🐢"),
    code_cell("%load_ext autoreload\ndef scale(x):\n    print(x)\n    return 2.0 * x", id="scale"),
    code_cell(
        "!nvidia-smi\nscale_jit = jax.jit(scale)\nscale_jit(jnp.ones(3))\njax.jit?",
        id="jit",
        execution_count=3,
        outputs=[{"name": "stdout", "output_type": "stream", "text": ["Traced<float32[3]>\n"]}],
    ),
    code_cell(
        "def total(x):\n"
        "    acc = 0.0\n"
        "    for i in range(x.shape[0]):\n"
        "        acc += x[i]\n"
        "    return acc\n"
        "\n"
        "\n"
        "total_jit = jax.jit(total)",
        id="total",
    ),
    code_cell("%%timeit\nfor v in jnp.ones(3):\n    print(v)", id="timeit"),
]


def positions(result: LintResult) -> set[tuple[int | None, int, int, str]]:
    return {(d.cell, d.line, d.column, d.code) for d in result.diagnostics}


def lint(text: str, **options: Any) -> LintResult:
    """Lint notebook text as `train.ipynb` with the default config.

    Tests where verification is not the point pass `verify=False, unsafe_fixes=True`: the same
    rewrites, without starting JAX.
    """
    return lint_notebook(text, "train.ipynb", Config(), **options)


# ---------------------------------------------------------------- positions


def test_diagnostics_name_the_cell_and_the_line_in_it() -> None:
    result = lint(notebook_text(TRAINING_CELLS))
    assert positions(result) == {(3, 3, 5, "JAX201"), (5, 3, 5, "JAX101")}
    assert all(d.path == "train.ipynb" for d in result.diagnostics)
    print_diagnostic = next(d for d in result.diagnostics if d.code == "JAX201")
    assert (print_diagnostic.end_line, print_diagnostic.end_column) == (3, 13)


def test_later_cells_see_earlier_definitions() -> None:
    # `scale` is only traced because cell 4 jits it: without that cell, no JAX201.
    cells = [c for c in TRAINING_CELLS if c.get("id") != "jit"]
    assert (3, 3, 5, "JAX201") not in positions(lint(notebook_text(cells)))


def test_markdown_and_cell_magic_cells_are_not_linted() -> None:
    cells = [
        code_cell("import jax"),
        markdown_cell("@jax.jit\ndef f(x):\n    print(x)\n"),
        code_cell("%%time\n@jax.jit\ndef g(x):\n    print(x)\n    return x"),
    ]
    assert lint(notebook_text(cells)).diagnostics == []


def test_noqa_in_a_cell_is_honoured() -> None:
    cells = [code_cell("import jax\n\n@jax.jit\ndef f(x):\n    print(x)  # noqa: JAX201\n")]
    assert lint(notebook_text(cells)).diagnostics == []


def test_a_cell_that_does_not_parse_is_reported_and_the_others_still_linted() -> None:
    cells = [*TRAINING_CELLS, code_cell("def broken(:\n    pass")]
    result = lint(notebook_text(cells))
    assert (7, 1, 12, "JAX000") in positions(result)
    assert {(3, 3, 5, "JAX201"), (5, 3, 5, "JAX101")} <= positions(result)


def test_top_level_await_cell_is_skipped_quietly() -> None:
    cells = [*TRAINING_CELLS, code_cell("result = await fetch()")]
    assert positions(lint(notebook_text(cells))) == {(3, 3, 5, "JAX201"), (5, 3, 5, "JAX101")}


def test_not_a_notebook_is_jax000() -> None:
    result = lint('{"cells": [')
    assert [d.code for d in result.diagnostics] == ["JAX000"]
    assert "not valid notebook JSON" in result.diagnostics[0].message
    assert [d.code for d in lint('{"nbformat": 3, "worksheets": []}').diagnostics] == ["JAX000"]


def test_other_kernel_languages_are_skipped() -> None:
    notebook = json.loads(notebook_text(TRAINING_CELLS))
    notebook["metadata"] = {"kernelspec": {"language": "julia", "name": "julia-1.10"}}
    assert lint(json.dumps(notebook)).diagnostics == []


def test_skip_file_comment_in_any_cell_skips_the_notebook() -> None:
    cells = [code_cell("# jaxlint: skip-file"), *TRAINING_CELLS]
    assert lint(notebook_text(cells)).diagnostics == []


# ---------------------------------------------------------------- IPython syntax


def test_ipython_lines_become_placeholders_of_the_same_count() -> None:
    source = (
        "%matplotlib inline\n"
        "files = !ls data\n"
        "jnp.sum?\n"
        "??jnp.mean\n"
        "if files:\n"
        "    !echo found\n"
        "!long command \\\n"
        "    --flag\n"
        "x = 1  # really?\n"
    )
    lines, ipython = mask_ipython(source)  # type: ignore[misc]
    assert len(lines) == 9
    assert ipython == {
        0: "%matplotlib inline\n",
        1: "files = !ls data\n",
        2: "jnp.sum?\n",
        3: "??jnp.mean\n",
        4: "    !echo found\n",
        5: "!long command \\\n",
        6: "    --flag\n",
    }
    assert lines[4:6] == ["if files:\n", "    pass  # jaxlint-ipython-line-4\n"]
    assert lines[8] == "x = 1  # really?\n"
    compile("".join(lines), "<cell>", "exec")


def test_python_that_looks_like_ipython_is_left_alone() -> None:
    source = (
        'x = (a\n     % b)\ndoc = """\nIs this a question?\n%d items\n"""\ny = a != b\nz = 7 % 3\n'
    )
    lines, ipython = mask_ipython(source)  # type: ignore[misc]
    assert ipython == {}
    assert "".join(lines) == source


def test_cell_magic_cell_is_skipped_whole() -> None:
    assert mask_ipython("\n%%timeit\nf(x)") is None


# ---------------------------------------------------------------- fixes


def changed_cells(before: str, after: str) -> list[int]:
    old, new = json.loads(before), json.loads(after)
    assert len(old["cells"]) == len(new["cells"])
    changed = [
        number
        for number, (a, b) in enumerate(zip(old["cells"], new["cells"], strict=True), start=1)
        if a != b
    ]
    # Only `source` differs in those cells; everything else in the notebook is equal.
    for number in changed:
        old["cells"][number - 1]["source"] = new["cells"][number - 1]["source"]
    assert old == new
    return changed


def test_fix_rewrites_only_the_changed_cells_sources() -> None:
    before = notebook_text(TRAINING_CELLS)
    result = lint(before, fix=True)
    assert result.fixed_source is not None
    assert changed_cells(before, result.fixed_source) == [3, 5]
    cells = json.loads(result.fixed_source)["cells"]
    assert cells[2]["source"] == [
        "%load_ext autoreload\n",
        "def scale(x):\n",
        '    jax.debug.print("{x!s}", x=x)\n',
        "    return 2.0 * x",
    ]
    assert "jax.vmap(_step_terms)" in "".join(cells[4]["source"])
    assert cells[4]["source"][-1] == "total_jit = jax.jit(total)"  # still no final newline
    # Same JSON style as Jupyter's: the whole text is the re-dumped notebook.
    restyled = json.dumps(json.loads(result.fixed_source), indent=1, ensure_ascii=False) + "\n"
    assert result.fixed_source == restyled
    assert {(d.cell, d.line, d.code, d.fix.applied) for d in result.diagnostics if d.fix} == {
        (3, 3, "JAX201", True),
        (5, 3, "JAX101", True),
    }
    # Idempotent: a second --fix finds nothing to change.
    again = lint(result.fixed_source, fix=True)
    assert again.fixed_source is None
    assert again.diagnostics == []


def test_added_import_lands_in_the_imports_cell() -> None:
    cells = [
        code_cell("from jax import jit\nimport jax.numpy as jnp"),
        code_cell("@jit\ndef f(x):\n    print(x)\n    return x * 2"),
    ]
    before = notebook_text(cells)
    result = lint(before, fix=True, verify=False, unsafe_fixes=True)
    assert result.fixed_source is not None
    assert changed_cells(before, result.fixed_source) == [1, 2]
    new = json.loads(result.fixed_source)["cells"]
    assert new[0]["source"] == ["from jax import jit\n", "import jax.numpy as jnp\n", "import jax"]
    assert new[1]["source"][2] == '    jax.debug.print("{x!s}", x=x)\n'


def test_fixes_are_reported_where_they_were_in_the_notebook_as_read() -> None:
    # The print fix adds `import jax` to cell 1 in a first round; the loop in cell 2 is still
    # reported on its original line, not one line lower.
    cells = [
        code_cell("from jax import jit\nimport jax.numpy as jnp"),
        code_cell(
            "@jit\ndef f(x):\n    print(x)\n    return x\n\n"
            "@jit\ndef g(x):\n    acc = 0.0\n    for i in range(x.shape[0]):\n"
            "        acc += x[i]\n    return acc"
        ),
    ]
    result = lint(notebook_text(cells), fix=True, verify=False, unsafe_fixes=True)
    assert result.fixed_source is not None
    assert positions(result) == {(2, 3, 5, "JAX201"), (2, 9, 5, "JAX101")}
    assert all(d.fix is not None and d.fix.applied for d in result.diagnostics)


def test_byte_order_mark_is_kept() -> None:
    before = "\ufeff" + notebook_text(TRAINING_CELLS)
    assert positions(lint(before)) == {(3, 3, 5, "JAX201"), (5, 3, 5, "JAX101")}
    result = lint(before, fix=True, verify=False, unsafe_fixes=True)
    assert result.fixed_source is not None and result.fixed_source.startswith("\ufeff{")
    assert changed_cells(before[1:], result.fixed_source[1:]) == [3, 5]


def test_fix_keeps_the_original_json_style() -> None:
    before = notebook_text(TRAINING_CELLS, indent=2, ensure_ascii=True).rstrip("\n")
    result = lint(before, fix=True, verify=False, unsafe_fixes=True)
    assert result.fixed_source is not None
    assert result.fixed_source == json.dumps(
        json.loads(result.fixed_source), indent=2, ensure_ascii=True
    )
    assert changed_cells(before, result.fixed_source) == [3, 5]


def test_dump_notebook_reproduces_an_unchanged_notebook() -> None:
    text = notebook_text(TRAINING_CELLS)
    assert dump_notebook(json.loads(text), text) == text


def test_fix_that_would_span_cells_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    real_lint_source = nb_module.lint_source

    def merging_lint_source(source: str, path: str, config: Config, **options: Any):
        result = real_lint_source(source, path, config, **options)
        if result.fixed_source is None:
            return result
        # A rewrite that swallowed the boundary between two cells.
        merged = result.fixed_source.replace("# jaxlint-notebook-cell-boundary-2\n", "")
        return LintResult(result.diagnostics, fixed_source=merged)

    monkeypatch.setattr(nb_module, "lint_source", merging_lint_source)
    result = lint(notebook_text(TRAINING_CELLS), fix=True, verify=False, unsafe_fixes=True)
    assert result.fixed_source is None
    assert positions(result) == {(3, 3, 5, "JAX201"), (5, 3, 5, "JAX101")}
    for diagnostic in result.diagnostics:
        assert diagnostic.fix is not None and not diagnostic.fix.applied
        assert "more than one notebook cell" in (diagnostic.fix.note or "")


# ---------------------------------------------------------------- the command line


def jaxlint(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "jaxlint", "check", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_cli_end_to_end(tmp_path: Path) -> None:
    path = tmp_path / "train.ipynb"
    before = notebook_text(TRAINING_CELLS)
    path.write_text(before, encoding="utf-8")

    checked = jaxlint("train.ipynb", cwd=tmp_path)
    assert checked.returncode == 1, checked.stderr
    assert "train.ipynb:cell 3:3:5: JAX201" in checked.stdout
    assert "train.ipynb:cell 5:3:5: JAX101" in checked.stdout

    as_json = json.loads(jaxlint("--output-format", "json", "train.ipynb", cwd=tmp_path).stdout)
    assert {(d["cell"], d["line"], d["column"], d["code"]) for d in as_json} == {
        (3, 3, 5, "JAX201"),
        (5, 3, 5, "JAX101"),
    }

    fixed = jaxlint("--fix", "train.ipynb", cwd=tmp_path)
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    after = path.read_text(encoding="utf-8")
    assert changed_cells(before, after) == [3, 5]
    assert jaxlint("train.ipynb", cwd=tmp_path).returncode == 0

    # Folders are searched for notebooks too.
    path.write_text(before, encoding="utf-8")
    assert "train.ipynb:cell 3:3:5: JAX201" in jaxlint(".", cwd=tmp_path).stdout
