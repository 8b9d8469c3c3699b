"""Shared test helpers: lint a snippet, read `# expect:` annotations from fixtures."""

from __future__ import annotations

import os
import re
import sys
import textwrap
import types
from pathlib import Path

import pytest

from jaxlint.diagnostics import Diagnostic
from jaxlint.engine.config import Config
from jaxlint.fixes.pipeline import lint_source
from jaxlint.verify.compile_settings import cheap_compile_environment, installed_jaxlib

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
EXPECT = re.compile(r"#\s*expect:\s*(?P<codes>JAX\d{3}(?:\s*,\s*JAX\d{3})*)")


def lint(
    source: str, select: tuple[str, ...] | None = ("JAX",), path: str = "snippet.py", **config
) -> list[Diagnostic]:
    """Lint a (dedented) snippet with every rule selected unless told otherwise."""
    return lint_source(textwrap.dedent(source), path, Config(select=select, **config)).diagnostics


def codes_and_lines(diagnostics: list[Diagnostic]) -> set[tuple[str, int]]:
    return {(d.code, d.line) for d in diagnostics}


def expected_findings(source: str) -> set[tuple[str, int]]:
    """(code, line) pairs written as `# expect: JAX101, JAX201` comments in a fixture."""
    found = set()
    for number, line in enumerate(source.splitlines(), start=1):
        match = EXPECT.search(line)
        if match:
            for code in match["codes"].split(","):
                found.add((code.strip(), number))
    return found


@pytest.fixture
def lint_snippet():
    return lint


def module_from_source(source: str, name: str, filename: str = "<source>") -> types.ModuleType:
    """Execute `source` as a module registered as `name` (a fixture, or its fixed text)."""
    module = types.ModuleType(name)
    module.__file__ = filename
    sys.modules[name] = module
    exec(compile(source, filename, "exec"), module.__dict__)
    return module


def _compile_cheaply_in_this_process() -> None:
    """The JAX work tests do here (running fixtures, originals and their fixes, the adversarial
    suite's references) compiles with the verification child's cheaper XLA settings
    (`compile_settings`: the same statuses where they were compared, a third less compile
    time: the pair of slowest PRNG tests 27.3 s → 17.9 s). XLA reads
    XLA_FLAGS once, when the first backend starts: start it now, then put the variable back
    so the jaxlint and verification processes tests start see the user's environment."""
    try:
        import jax
    except ImportError:  # checking alone needs no JAX: neither do the tests that run then
        return
    saved = os.environ.get("XLA_FLAGS")
    cheap = cheap_compile_environment(os.environ, installed_jaxlib())
    os.environ["XLA_FLAGS"] = cheap.get("XLA_FLAGS", "")
    try:
        jax.jit(lambda x: x + 1).lower(1.0).compile()
    finally:
        if saved is None:
            del os.environ["XLA_FLAGS"]
        else:
            os.environ["XLA_FLAGS"] = saved


_compile_cheaply_in_this_process()


def pytest_xdist_auto_num_workers(config) -> int:
    """`-n auto`: one worker more than the cores. Tests wait on subprocesses (a JAX child's
    start, a CLI run, a timeout being reached); a third worker on the 2-core CI machine kept
    both cores busy (194% CPU). Clean-clone `.ci/run` on that machine: 20:59 serial; 13:31 and
    14:58 with three workers and the adversarial suite in two halves, 14:34 with it in one."""
    return (os.cpu_count() or 1) + 1
