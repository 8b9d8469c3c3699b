"""noqa comments and `# jaxlint: skip-file` (jaxlint.engine.suppression)."""

from __future__ import annotations

import pytest

from jaxlint.engine.suppression import (
    ALL,
    file_is_skipped,
    is_suppressed,
    noqa_codes,
    with_noqa_code,
)


@pytest.mark.parametrize(
    "line, expected",
    [
        ("print(x)  # noqa\n", ALL),
        ("print(x)  # NoQA\n", ALL),
        ("print(x)  # noqa:JAX101\n", ("JAX101",)),
        ("print(x)  # noqa: JAX101,JAX2\n", ("JAX101", "JAX2")),
        ("print(x)  #noqa : JAX101 , JAX2\n", ("JAX101", "JAX2")),
        ("print(x)  # NOQA: jax201 E501\n", ("JAX201", "E501")),
        ("print(x)  # noqa: JAX\n", ("JAX",)),
        ("print(x)  # noqa: JAX201 because it is a demo\n", ("JAX201",)),
        ("print(x)  # type: ignore  # noqa: JAX201\n", ("JAX201",)),
        # flake8 reads a colon followed by no code as a bare noqa.
        ("print(x)  # noqa: see the docs\n", ALL),
        ("print(x)\n", None),
        ("print(x)  # this mentions noqa in passing\n", None),
        ("print(x)  # mynoqa\n", None),
        ("print(x)  # noqanything\n", None),
        ("print(x)  # noqa-like comment\n", None),
        ("print('noqa')\n", None),
    ],
)
def test_noqa_codes(line: str, expected: tuple[str, ...] | None) -> None:
    assert noqa_codes(line) == expected


LINES = [
    "@jax.jit  # noqa: JAX3\n",  # 1
    "def f(x):  # noqa: JAX101\n",  # 2
    "    print(x)  # noqa\n",  # 3
    "    print(x)  # noqa: JAX101\n",  # 4
    "    y = x  # noqa:JAX2\n",  # 5
    "    return y\n",  # 6
    "def g(x):  # noqa\n",  # 7
    "    print(x)\n",  # 8
    "#noqa : JAX101 , JAX2\n",  # 9
]


@pytest.mark.parametrize(
    "code, line, header_lines, expected",
    [
        ("JAX201", 3, (), True),  # bare noqa covers every code on its line
        ("JAX201", 4, (), False),  # other code named
        ("JAX101", 4, (), True),
        ("JAX201", 5, (), True),  # prefix
        ("JAX301", 5, (), False),
        ("JAX201", 9, (), True),  # loose spacing
        ("JAX101", 9, (), True),
        ("JAX301", 9, (), False),
        ("JAX201", 6, (), False),
        # A def line with explicit codes covers the whole function...
        ("JAX101", 6, (1, 2), True),
        ("JAX303", 6, (1, 2), True),  # ... and so does a decorator line
        ("JAX201", 6, (1, 2), False),  # ... but only for the codes it names.
        # A bare noqa on a def line covers that line only.
        ("JAX201", 8, (7,), False),
        ("JAX201", 7, (), True),
        # Lines outside the file never suppress.
        ("JAX201", 0, (), False),
        ("JAX201", 99, (99,), False),
    ],
)
def test_is_suppressed(code: str, line: int, header_lines: tuple[int, ...], expected: bool) -> None:
    assert is_suppressed(code, line, LINES, header_lines) is expected


def test_lowercase_codes_in_the_comment_still_match() -> None:
    assert is_suppressed("JAX201", 1, ["print(x)  # noqa: jax201\n"], ())


@pytest.mark.parametrize(
    "source",
    [
        "# jaxlint: skip-file\nimport jax\n",
        "import jax\n#jaxlint:skip-file\n",
        "import jax\n    # JAXLINT: Skip-File  (generated code)\n",
        "import jax\r\n# jaxlint: skip-file\r\n",
    ],
)
def test_file_is_skipped(source: str) -> None:
    assert file_is_skipped(source)


@pytest.mark.parametrize(
    "source",
    [
        "import jax\n",
        "x = '# jaxlint: skip-file'\n",
        "import jax  # jaxlint: skip-file\n",  # must be a comment line of its own
        "# jaxlint: skip-files\n",
        "# jaxlint: skip-file-later\n",
        "# flake8: noqa\n",
        "# jaxlint: skip\n",
    ],
)
def test_file_is_not_skipped(source: str) -> None:
    assert not file_is_skipped(source)


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("x = f(y)", "x = f(y)  # noqa: JAX101"),
        ("x = f(y)  # noqa: JAX2  because", "x = f(y)  # noqa: JAX2, JAX101  because"),
        ("x = f(y)  # why", "x = f(y)  # why  # noqa: JAX101"),
    ],
)
def test_with_noqa_code_adds_a_code_where_a_comment_would_read_it(line: str, expected: str) -> None:
    assert with_noqa_code(line, "JAX101") == expected
    assert "JAX101" in (noqa_codes(expected) or ())
