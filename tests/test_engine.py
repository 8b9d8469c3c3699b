"""The engine: parse errors, suppression, positions, segments, and value analysis through rules."""

from __future__ import annotations

import pytest

from jaxlint.engine.config import Config
from jaxlint.engine.lint import split_lines
from jaxlint.fixes.pipeline import lint_source
from tests.conftest import codes_and_lines, lint


def test_unparseable_file_is_jax000_not_a_crash():
    diagnostics = lint("import jax\ndef f(:\n    pass\n")
    assert [(d.code, d.line, d.severity) for d in diagnostics] == [("JAX000", 2, "error")]
    assert "cannot parse" in diagnostics[0].message


def test_jax000_is_reported_even_when_other_rules_are_selected():
    diagnostics = lint_source("import jax\nx = (\n", "bad.py", Config(select=("JAX101",)))
    assert [d.code for d in diagnostics.diagnostics] == ["JAX000"]


def test_null_byte_is_jax000():
    assert [d.code for d in lint("import jax\nx = 1\x00\n")] == ["JAX000"]


def test_files_that_never_mention_jax_are_only_parsed():
    # No rule runs on them (the text check decides), but a syntax error is still reported.
    assert [(d.code, d.message) for d in lint("def f(:\n")] == [
        ("JAX000", "cannot parse: invalid syntax")
    ]
    assert lint("for i in range(len(x)):\n    print(x[i])\n") == []


def test_skip_file_comment():
    source = """
        # jaxlint: skip-file
        import jax
        @jax.jit
        def f(x):
            print(x)
    """
    assert lint(source) == []


LOOP = """
    import jax

    @jax.jit  {decorator_comment}
    def f(x: jax.Array):  {def_comment}
        total = 0.0
        for v in x:  {line_comment}
            total = total + v
        print(total)
        return total
"""


@pytest.mark.parametrize(
    "comments, expected",
    [
        ({}, {("JAX101", 7), ("JAX201", 9)}),
        ({"line_comment": "# noqa: JAX101"}, {("JAX201", 9)}),
        ({"line_comment": "# noqa"}, {("JAX201", 9)}),
        ({"line_comment": "# noqa: JAX2"}, {("JAX101", 7), ("JAX201", 9)}),
        ({"def_comment": "# noqa: JAX101"}, {("JAX201", 9)}),
        ({"decorator_comment": "# noqa: JAX1, JAX201"}, set()),
        ({"def_comment": "# noqa"}, {("JAX101", 7), ("JAX201", 9)}),
    ],
)
def test_noqa_on_line_def_and_decorator(comments, expected):
    values = {"decorator_comment": "", "def_comment": "", "line_comment": ""} | comments
    assert codes_and_lines(lint(LOOP.format(**values))) == expected


def test_columns_count_characters_not_bytes():
    source = (
        "import jax\n\n\ng = jax.jit(lambda x: x + 1)  # ok\n"
        'π = "ünïcode"; h = jax.jit(lambda y: y * 2)\n'
    )
    diagnostics = lint(source, select=("JAX303",))
    assert [(d.line, d.column, d.end_column) for d in diagnostics] == [(4, 5, 29), (5, 20, 44)]


def test_spans_of_indented_units_map_back_to_the_file():
    source = """
        import jax

        class Model:
            def helper(self):
                def body(c, x):
                    print(x)
                    return c, x
                return jax.lax.scan(body, 0.0, self.xs)
    """
    (diagnostic,) = lint(source)
    assert (diagnostic.code, diagnostic.line, diagnostic.column) == ("JAX201", 7, 13)
    assert (diagnostic.end_line, diagnostic.end_column) == (7, 21)


def test_split_lines_matches_python_line_numbers():
    assert split_lines("a\fb\nc\r\nd\re") == ["a\fb\n", "c\r\n", "d\r", "e"]


def test_crlf_source():
    source = "import jax\r\n@jax.jit\r\ndef f(x):\r\n    print(x)\r\n    return x\r\n"
    assert codes_and_lines(lint(source)) == {("JAX201", 4)}


VALUE_CASES = [
    # (loop header inside a jitted f(x, n) with static n, flagged?)
    ("for i in range(x.shape[0]):", True),
    ("for i in range(len(x)):", True),
    ("for i in range(x.size):", True),
    ("for i in range(x.shape[-1] - 1):", True),
    ("for row in x:", True),
    ("for i, row in enumerate(x):", True),
    ("for a, b in zip(x, x[1:]):", True),
    ("for row in reversed(x):", True),
    ("for row in jnp.tanh(x):", True),
    ("for row in x.T:", True),
    ("for i in range(3):", False),
    ("for i in range(n):", False),
    ("for i in range(x.ndim):", False),
    ("for d in x.shape:", False),
    ("for k in ('a', 'b'):", False),
    ("for i in range(len(LAYERS)):", False),
    ("for layer in LAYERS:", False),
    ("for i in range(int(np.prod((2, 3)))):", False),
]


@pytest.mark.parametrize("header, flagged", VALUE_CASES)
def test_loop_trip_counts_from_arrays(header, flagged):
    source = f"""
import jax
import jax.numpy as jnp
import numpy as np
from functools import partial

LAYERS = [1, 2, 3]

@partial(jax.jit, static_argnames="n")
def f(x, n):
    acc = 0.0
    {header}
        acc = acc + jnp.sum(x)
    return acc
"""
    found = codes_and_lines(lint(source, select=("JAX101",)))
    assert found == ({("JAX101", 12)} if flagged else set())


def test_a_loop_body_without_traced_work_unrolls_nothing():
    # Python arithmetic on shapes (`n_blocks += 1`) adds no equation to the jaxpr per iteration
    source = """
        import jax

        @jax.jit
        def f(x):
            n_blocks, sizes = 0, []
            for i in range(x.shape[0]):
                n_blocks += 1
                sizes.append(i * 2)
            return x * n_blocks
    """
    assert lint(source, select=("JAX101",)) == []


def test_shape_derived_names_flow_through_assignments():
    source = """
        import jax
        @jax.jit
        def f(x):
            n, d = x.shape
            half = n // 2
            for i in range(half):
                x = x + 1
            for j in range(d):
                x = x * 2
            return x
    """
    assert codes_and_lines(lint(source, select=("JAX101",))) == {("JAX101", 7), ("JAX101", 9)}


def test_pytree_parameters_are_not_arrays():
    source = """
        import jax
        import jax.numpy as jnp
        @jax.jit
        def mlp(params, x):
            for w, b in params:
                x = jnp.tanh(x @ w + b)
            for name in params_dict.keys():
                pass
            return x
        @jax.jit
        def g(state, batch):
            for layer in state.layers:
                batch = layer(batch)
            for key in batch:
                pass
            return batch["x"]
    """
    assert lint(source, select=("JAX101",)) == []


def test_python_syntax_warnings_about_user_code_stay_quiet():
    import warnings

    source = "import jax\n@jax.jit\ndef f(x):\n    if x is 1:\n        pass\n    return x\n"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        lint(source)
    assert not [w for w in caught if issubclass(w.category, SyntaxWarning)]


def test_a_loop_sees_the_bindings_that_reach_it_not_later_ones():
    source = """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def f(x):
            feats = [x, x * 2, x ** 2]
            out = []
            for v in feats:
                out.append(jnp.sin(v))
            feats = jnp.stack(out)
            for row in feats:
                x = x + row
            return x
    """
    assert codes_and_lines(lint(source, select=("JAX101",))) == {("JAX101", 12)}


def test_names_unpacked_from_a_lax_loop_carry_are_arrays():
    source = """
        from jax import lax

        def run(x0):
            def body(state):
                i, x = state
                for r in x:
                    i = i + r
                return i + 1, x / 2

            def step(carry, x):
                w, layers = carry
                for layer in layers:
                    x = layer(x)
                return carry, x

            def adam(carry, t):
                m, v = carry  # lists of per-parameter moments: no array use
                m = [0.9 * mi for mi in m]
                v = [0.99 * vi for vi in v]
                return (m, v), t

            loops = lax.while_loop(lambda s: s[0] < 3, body, (0, x0)), lax.scan(step, x0, x0)
            return loops, lax.scan(adam, ([x0], [x0]), x0)
    """
    assert codes_and_lines(lint(source, select=("JAX101",))) == {("JAX101", 7)}


def test_nonlocal_counter_in_a_jitted_closure_is_state_mutation():
    source = """
        import jax

        def make_counter():
            calls = 0

            @jax.jit
            def f(x):
                nonlocal calls
                calls += 1
                return x * 2

            return f

        def describe(fun, *args):
            out = None

            def capture(*a):
                nonlocal out
                out = str(fun)

            jax.eval_shape(capture, *args)  # trace-time capture is the point here
            return out
    """
    assert codes_and_lines(lint(source, select=("JAX202",))) == {("JAX202", 10)}
