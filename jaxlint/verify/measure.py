"""Count jaxpr equations and time compilation and runs: done where the checked code runs (the
verification child), reported to jaxlint as numbers."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Iterator
from typing import Any

import jax

from jaxlint.verify.compile_settings import timed_compile_options

# A single call wrapping the whole function (the rewritten function is usually jitted): count what
# is inside it, so a jitted rewrite is measured like the undecorated original.
_WRAPPERS = frozenset({"jit", "pjit", "closed_call", "core_call", "checkpoint", "remat"})


def count_eqns(fn: Callable[..., Any], args: tuple[Any, ...]) -> tuple[int, int]:
    """(top-level, total including nested jaxprs) equation counts of `fn` traced on `args`."""
    jaxpr = jax.make_jaxpr(fn)(*args).jaxpr
    while len(jaxpr.eqns) == 1 and jaxpr.eqns[0].primitive.name in _WRAPPERS:
        inner = list(_sub_jaxprs(jaxpr.eqns[0]))
        if len(inner) != 1:
            break
        jaxpr = inner[0]
    return len(jaxpr.eqns), _total_eqns(jaxpr)


def _total_eqns(jaxpr: Any) -> int:
    return sum(1 + sum(_total_eqns(sub) for sub in _sub_jaxprs(eqn)) for eqn in jaxpr.eqns)


def _sub_jaxprs(eqn: Any) -> Iterator[Any]:
    # `jax.core.jaxprs_in_params` is gone in newer JAX: walk the params by shape instead.
    for value in eqn.params.values():
        yield from _jaxprs_in(value)


def _jaxprs_in(value: Any) -> Iterator[Any]:
    if isinstance(value, (list, tuple)):
        for item in value:
            yield from _jaxprs_in(item)
    elif hasattr(value, "eqns"):  # Jaxpr
        yield value
    elif hasattr(getattr(value, "jaxpr", None), "eqns"):  # ClosedJaxpr
        yield value.jaxpr


RUN_CALLS = 7  # timed calls of a compiled function, after one untimed call


def compile_and_run_seconds(
    fn: Callable[..., Any], args: tuple[Any, ...]
) -> tuple[float, float | None]:
    """Wall time of `jax.jit(fn).lower(*args).compile()`, with the settings the user's code
    compiles with (not the child's cheap ones: `compile_settings`), and the steady-state time
    of one call of the compiled function (the median of RUN_CALLS calls, each until its outputs
    are ready; None when calling it raises)."""
    start = time.perf_counter()
    options: Any = timed_compile_options() or None  # int values: jax's alias says str | bool
    compiled = jax.jit(fn).lower(*args).compile(compiler_options=options)
    compile_s = time.perf_counter() - start
    try:
        jax.block_until_ready(compiled(*args))
        times = []
        for _ in range(RUN_CALLS):
            start = time.perf_counter()
            jax.block_until_ready(compiled(*args))
            times.append(time.perf_counter() - start)
    except Exception:  # noqa: BLE001 - user code: the run time is then not measured
        return compile_s, None
    return compile_s, statistics.median(times)
