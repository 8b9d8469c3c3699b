"""JAX201's print rewrite prints, jitted, the text the original prints under `jax.disable_jit()`.

Each case is a small traced function with a `print`. The rewrite comes from the real pipeline
(`fix_source` with only JAX201, verification off); both versions run with real JAX, their
stdout captured: the original un-jitted (`jax.disable_jit()`, where `print` sees concrete
arrays), the rewrite jitted and called twice, so a rewrite that prints at trace time (a tracer's
text, once) fails. Refused cases must keep the source and say why.
"""

from __future__ import annotations

import contextlib
import functools
import io
import re
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from jaxlint.engine.config import Config
from jaxlint.fixes.pipeline import fix_source
from jaxlint.rules.jax201_print_in_traced import PrintInTraced
from tests.test_fix_fixtures import CHECKS, FIX_FIXTURES, SHORT

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")

HEADER = "import jax\nimport jax.numpy as jnp\n\n\n"


def _f32(*values: float) -> Any:
    return jnp.asarray(values if len(values) != 1 else values[0], jnp.float32)


@dataclass(frozen=True)
class Case:
    """`body` defines `function`; it is called with `calls[0]`, then `calls[1]`."""

    body: str
    calls: tuple[tuple, tuple]
    function: str = "f"
    rewrite: str | None = None  # a line the rewrite must contain


def _scalars() -> tuple[tuple, tuple]:
    return (_f32(0.1),), (_f32(1.0) / 3,)


def _vectors() -> tuple[tuple, tuple]:
    return (_f32(0.1, 2.0, -3.5),), (jnp.arange(3, dtype=jnp.float32) / 7,)


CASES = {
    "plain_scalar": Case(
        "@jax.jit\ndef f(x):\n    loss = x * 2\n    print('loss', loss)\n    return loss\n",
        _scalars(),
        rewrite='jax.debug.print("loss {loss!s}", loss=loss)',
    ),
    "plain_vector": Case(
        "@jax.jit\ndef f(x):\n    print('x =', x, 'sum', jnp.sum(x))\n    return x\n", _vectors()
    ),
    "int_and_bool": Case(
        "@jax.jit\ndef f(x):\n    n = jnp.sum(x > 0)\n    print(n, x > 0, jnp.all(x > 0))\n"
        "    return x\n",
        _vectors(),
    ),
    "percent_s": Case(
        "@jax.jit\ndef f(pred):\n    err = jnp.sqrt(jnp.mean(pred ** 2))\n"
        "    print('rmse = %s' % err)\n    return err\n",
        _scalars(),
        rewrite='jax.debug.print("rmse = {err!s}", err=err)',
    ),
    "percent_specs": Case(
        "@jax.jit\ndef f(x):\n    m = jnp.mean(x)\n"
        "    print('loss %.3f (%+.2e) %.4g| %10s|%-6s|%%' % (m, m * 1e5, -m, m, m))\n"
        "    return m\n",
        _scalars(),
    ),
    "percent_static_int": Case(
        "@jax.jit\ndef f(x):\n    loss = jnp.mean(x)\n"
        "    print('step %d/%03d: loss %.4f' % (x.shape[0], 7, loss))\n    return loss\n",
        _vectors(),
    ),
    "str_concat": Case(
        "@jax.jit\ndef f(x):\n    loss = jnp.mean(x ** 2)\n"
        "    print('loss: ' + str(loss) + ' max: ' + repr(jnp.max(x)))\n    return loss\n",
        _vectors(),
    ),
    "format_method": Case(
        "@jax.jit\ndef f(x):\n    loss = jnp.mean(x)\n"
        "    print('{} items, loss {:.3f}, {name!r}'.format(x.shape[0], loss, name=jnp.min(x)))\n"
        "    return loss\n",
        _vectors(),
    ),
    "format_builtin": Case(
        "@jax.jit\ndef f(x):\n    print('norm', format(jnp.linalg.norm(x), '.3f'))\n    return x\n",
        _vectors(),
    ),
    "fstring_plain_field": Case(
        # f"{x}" is format(x, ""), which for a 0-d float32 differs from str(x): kept as `{x}`.
        "@jax.jit\ndef f(x):\n    print(f'x={x} x!s={x!s} x:.2f={x:.2f} {x.shape} {{braces}}')\n"
        "    return x\n",
        _scalars(),
    ),
    "fstring_nested_in_concat": Case(
        "@jax.jit\ndef f(x):\n    g = jnp.linalg.norm(x)\n"
        "    print('grad ' + f'{g:.2e}' + ' at ' + str(x.shape))\n    return g\n",
        _vectors(),
    ),
    "implicit_concatenation": Case(
        "@jax.jit\ndef f(x):\n    m = jnp.mean(x)\n"
        "    print('mean ' f'{m:.3f}' ' of ' f'{x.size}')\n    return x\n",
        _vectors(),
    ),
    "percent_zero_padded": Case(
        "@jax.jit\ndef f(x):\n    print('%08.3f|%+010.2e|%#.0f' % (x, -x, x))\n    return x\n",
        _scalars(),
    ),
    "self_documenting_fstring": Case(
        # of a computed value: `{p=}` of a parameter is refused (a Python number eagerly)
        "@jax.jit\ndef f(x):\n    y = x + 0\n    print(f'{y=} {y = :.3f}|{y.shape=}|{y*2=!s}')\n"
        "    return x\n",
        _scalars(),
        rewrite='jax.debug.print("y={y!r} y = {y:.3f}|y.shape={}|y*2={!s}"',
    ),
    "end_ending_in_newline": Case(
        "@jax.jit\ndef f(x):\n    print('mu', jnp.max(x), sep=', ', end='!\\n')\n    return x\n",
        _vectors(),
    ),
    "several_prints_keep_their_order": Case(
        "@jax.jit\ndef f(x):\n    print('before', x.sum())\n    y = x * 2\n"
        "    print('after', y.sum())\n    print('final', (y + 1).sum())\n    return y\n",
        _vectors(),
        rewrite='jax.debug.print("before {!s}", x.sum(), ordered=True)',
    ),
    "sep": Case(
        "@jax.jit\ndef f(x):\n    print('max', jnp.max(x), 'min', jnp.min(x), sep=' | ')\n"
        "    return x\n",
        _vectors(),
    ),
    "sep_empty_end_newline": Case(
        "@jax.jit\ndef f(x):\n    print('[', x, ']', sep='', end='\\n', flush=True)\n"
        "    return x\n",
        _vectors(),
    ),
    "static_tuple_and_float": Case(
        # print shows a shape as `(3,)` and a Python float in full; as arguments of
        # jax.debug.print they would become arrays.
        "@jax.jit\ndef f(x):\n    print('shape', x.shape, 1 / 3, 2.5e-3, x.dtype, x.ndim, x)\n"
        "    return x\n",
        _vectors(),
    ),
    "leading_brace": Case(
        "@jax.jit\ndef f(x):\n    print('{', x, '}')\n    return x\n",
        _vectors(),
    ),
    "name_of_debug_print_parameter": Case(
        "@jax.jit\ndef f(x):\n    ordered = jnp.sort(x)\n    print(ordered)\n    return ordered\n",
        _vectors(),
    ),
    "tuple_of_arrays": Case(
        "@jax.jit\ndef f(x):\n    print((jnp.min(x), jnp.max(x)))\n    return x\n", _vectors()
    ),
    "static_arg": Case(
        "from functools import partial\n\n\n@partial(jax.jit, static_argnames='tag')\n"
        "def f(x, tag):\n    print(tag, 'x', x)\n    return x\n",
        ((_f32(1.0), "train"), (_f32(2.0), "train")),
    ),
    "scan_body": Case(
        "def f(xs):\n    def step(carry, x):\n        carry = carry + x\n"
        "        print('carry %.2f x %s' % (carry, x))\n        return carry, carry\n"
        "    return jax.lax.scan(step, 0.0, xs)\n",
        ((_f32(1.0, 2.0),), (_f32(0.5, 0.25),)),
    ),
}

REFUSED = {
    "percent_d_traced": (
        "@jax.jit\ndef f(x):\n    print('count %d' % jnp.sum(x))\n    return x\n",
        "`%d` of a traced value",
    ),
    "end_without_newline": (
        "@jax.jit\ndef f(x):\n    print('x', x, end='')\n    return x\n",
        "end=",
    ),
    "file": (
        "import sys\n\n\n@jax.jit\ndef f(x):\n    print(x, file=sys.stderr)\n    return x\n",
        "file=",
    ),
    "text_made_in_a_variable": (
        "@jax.jit\ndef f(x):\n    message = f'x is {x}'\n    print(message)\n    return x\n",
        "makes text from a traced value",
    ),
    "percent_text_variable": (
        "@jax.jit\ndef f(x):\n    message = 'x is %s' % x\n    print(message)\n    return x\n",
        "text made at trace time",
    ),
    "join": (
        "@jax.jit\ndef f(x):\n    print(', '.join(str(v) for v in x))\n    return x\n",
        "makes text from a traced value",
    ),
    "mixed_tuple": (
        "@jax.jit\ndef f(x):\n    print((x.shape, x))\n    return x\n",
        "mixing static and traced",
    ),
    "dict": (
        "@jax.jit\ndef f(x):\n    print({'b': x, 'a': x})\n    return x\n",
        "dict or set",
    ),
    "static_only": (
        "@jax.jit\ndef f(x):\n    print('compiling f for', len(x), 'items', 0.5)\n    return x\n",
        "prints only static values",
    ),
    "container_variable": (
        "@jax.jit\ndef f(x):\n    parts = [x.shape, x]\n    print('parts', parts)\n    return x\n",
        "a container holding arrays",
    ),
    "concatenation_with_a_non_string": (
        "@jax.jit\ndef f(x):\n    print(str(x) + 1)\n    return x\n",
        "makes text from a traced value",
    ),
    "format_mixed_numbering": (
        "@jax.jit\ndef f(x):\n    print('{} {1}'.format(x, x))\n    return x\n",
        "mixes automatic and manual field numbering",
    ),
    "percent_width": (
        "@jax.jit\ndef f(x):\n    print('loss %8.3f' % jnp.mean(x))\n    return x\n",
        "a width without the `0` flag",
    ),
    "percent_x": (
        "@jax.jit\ndef f(x):\n    print('%x' % jnp.sum(x).astype(int))\n    return x\n",
        "no exact format-string equivalent",
    ),
}


def _fix(body: str) -> tuple[str | None, list]:
    result = fix_source(
        HEADER + body, "case.py", Config(), [PrintInTraced], unsafe_fixes=True, verify=False
    )
    return result.fixed_source, result.diagnostics


def _printed(source: str, function: str, calls: tuple, run: Callable[[Callable], Any]) -> str:
    namespace: dict[str, Any] = {"__name__": "case"}
    exec(compile(source, "case.py", "exec"), namespace)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        for arguments in calls:
            run(functools.partial(namespace[function], *arguments))
    return out.getvalue()


def _eager(call: Callable) -> None:
    with jax.disable_jit():
        call()


def _jitted(call: Callable) -> None:
    call()
    jax.effects_barrier()


@pytest.mark.parametrize("name", sorted(CASES))
def test_rewrite_prints_what_print_prints_without_jit(name):
    case = CASES[name]
    original = HEADER + case.body
    fixed, _ = _fix(case.body)
    assert fixed is not None, f"{name}: not rewritten"
    assert "print(" not in fixed.replace("jax.debug.print(", ""), fixed
    if case.rewrite is not None:
        assert case.rewrite in fixed, fixed
    expected = _printed(original, case.function, case.calls, _eager)
    assert "Tracer" not in expected
    assert _printed(fixed, case.function, case.calls, _jitted) == expected, fixed


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_refused_print_is_left_alone_and_says_why(name):
    body, reason = REFUSED[name]
    fixed, diagnostics = _fix(body)
    assert fixed is None
    (diagnostic,) = diagnostics
    assert diagnostic.fix is not None and not diagnostic.fix.applied
    assert reason in (diagnostic.fix.note or ""), diagnostic.fix


def test_the_comparison_catches_a_print_at_trace_time():
    """The harness itself: the old rewrite of `"%s" % err` printed the tracer once."""
    body = "@jax.jit\ndef f(x):\n    print('rmse = %s' % x)\n    return x\n"
    wrong = HEADER + body.replace("print(", 'jax.debug.print("{}", ')
    calls = _scalars()
    expected = _printed(HEADER + body, "f", calls, _eager)
    assert _printed(wrong, "f", calls, _jitted) != expected


def test_static_text_is_exact_for_static_only_parts():
    """A static `%d` part is made by `%` itself; literals need no argument."""
    fixed, _ = _fix(textwrap.dedent(CASES["percent_static_int"].body))
    assert '"%d" % (x.shape[0],)' in fixed
    assert fixed.count("jax.debug.print(") == 1


def test_percent_float_specs_reject_complex_values_as_percent_does():
    """`"%.3f" % z` raises for a complex z; the rewrite's `{:=.3f}` must not print it."""
    body = "@jax.jit\ndef f(x):\n    print('loss %.3f' % x)\n    return x\n"
    fixed, _ = _fix(body)
    assert fixed is not None and "{x:=.3f}" in fixed
    calls = ((jnp.complex64(1 + 2j),),)
    with pytest.raises(TypeError):
        _printed(HEADER + body, "f", calls, _eager)
    with pytest.raises(Exception, match="complex"):
        _printed(fixed, "f", calls, _jitted)


NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?|nan|inf")


def _same_text(expected: str, actual: str) -> bool:
    """Equal text, numbers allowed to differ as jitted and eager arithmetic may (an ulp)."""
    if NUMBER.split(expected) != NUMBER.split(actual):
        return False
    pairs = zip(NUMBER.findall(expected), NUMBER.findall(actual), strict=True)
    return all(
        a == b or abs(float(a) - float(b)) <= 1e-5 * max(1.0, abs(float(a))) for a, b in pairs
    )


PRINT_FIXTURES = sorted(c for c in CHECKS if c.startswith("print_"))


@pytest.mark.parametrize("case", PRINT_FIXTURES)
def test_fixture_rewrite_prints_what_the_original_printed(case):
    """fixtures/fix/print_*: `.out.py` jitted prints what `.in.py` prints without jit."""
    (check,) = CHECKS[case]
    calls = (check.args(SHORT), check.args(SHORT + 1))
    original = (FIX_FIXTURES / f"{case}.in.py").read_text(encoding="utf-8")
    rewritten = (FIX_FIXTURES / f"{case}.out.py").read_text(encoding="utf-8")
    expected = _printed(original, check.target, calls, _eager)
    actual = _printed(rewritten, check.target, calls, _jitted)
    assert expected.count("\n") >= 2 and "Tracer" not in expected
    assert _same_text(expected, actual), (expected, actual)
