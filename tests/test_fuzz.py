"""Generated programs (hypothesmith) never crash the linter or the fixer (SPEC §7).

The suite runs a few dozen examples per property (generation is slow: ~1 s each);
`python bench/fuzz.py --examples 2000` runs the same properties thousands of times.
"""

from __future__ import annotations

import ast
import os
import textwrap
import warnings

import hypothesmith
from hypothesis import HealthCheck, assume, given, settings

from jaxlint.engine.config import Config
from jaxlint.fixes.pipeline import lint_source

ALL_RULES = Config(select=("JAX",))
SETTINGS = settings(
    max_examples=int(os.environ.get("JAXLINT_FUZZ_EXAMPLES", "25")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


def compiles(source: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SyntaxWarning)
            compile(source, "<fuzz>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return False
    return True


def check_round_trip(source: str) -> None:
    """Linting never raises; fixing (unverified, so no JAX child) yields parseable code."""
    lint_source(source, "fuzz.py", ALL_RULES)
    fixed = lint_source(source, "fuzz.py", ALL_RULES, fix=True, unsafe_fixes=True, verify=False)
    if fixed.fixed_source is not None:
        ast.parse(fixed.fixed_source)


@SETTINGS
@given(hypothesmith.from_grammar())
def test_any_module_with_jax_imported(body: str) -> None:
    source = "import jax\nimport jax.numpy as jnp\n" + body
    assume(compiles(source))
    check_round_trip(source)


@SETTINGS
@given(hypothesmith.from_grammar())
def test_any_code_as_the_body_of_a_jitted_function(body: str) -> None:
    header = "import jax\n\n@jax.jit\ndef traced(x, y):\n"
    source = header + textwrap.indent(body or "pass\n", "    ")
    assume(compiles(source))
    check_round_trip(source)


@SETTINGS
@given(hypothesmith.from_node())
def test_any_libcst_generated_module_jitted(body: str) -> None:
    source = "import jax\n\n@jax.jit\ndef traced(x):\n" + textwrap.indent(body or "pass\n", "    ")
    assume(compiles(source))
    check_round_trip(source)
