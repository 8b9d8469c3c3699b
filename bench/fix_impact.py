"""Measure what jaxlint's JAX101 fix buys: the seed's Python-loop cumsum vs its lax.scan rewrite."""

from __future__ import annotations

import argparse
import datetime
import functools
import platform
import statistics
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
from jax.extend.core import ClosedJaxpr, Jaxpr

# The original loop is only compiled up to this N: at N = 1000 the list-and-stack loop takes
# minutes to compile (JAX-HAZARDS.md §1a measured 375-458 s).
DEFAULT_SIZES = (10, 100, 300, 1000, 10000)
DEFAULT_MAX_ORIGINAL = 300
QUICK_SIZES = (10, 100, 1000)
QUICK_MAX_ORIGINAL = 100
# Run times closer than this ratio are reported as a tie (the machine is shared, calls are µs).
TIE_RATIO = 1.1


SEED = Path(__file__).resolve().parent.parent / "fixtures" / "seed" / "cumulative_sum.py"


def _seed_function(source: str, name: str) -> Callable[[jax.Array], jax.Array]:
    """`name` from a fresh execution of a module's source (a new object defeats jit caches)."""
    namespace: dict[str, object] = {"__name__": "fix_impact_seed"}
    exec(compile(source, str(SEED), "exec"), namespace)
    return namespace[name]  # type: ignore[return-value]


def make_original() -> Callable[[jax.Array], jax.Array]:
    """The seed article's loop cumsum, from fixtures/seed/cumulative_sum.py."""
    return _seed_function(SEED.read_text(encoding="utf-8"), "cumulative_sum")


def make_rewrite() -> Callable[[jax.Array], jax.Array]:
    """The lax.scan rewrite exactly as `jaxlint check --fix` writes it for the seed."""
    return _seed_function(_rewritten_seed(), "cumulative_sum")


@functools.cache
def _rewritten_seed() -> str:
    sys.path.insert(0, str(SEED.parent.parent.parent))
    from jaxlint.engine.config import Config
    from jaxlint.fixes.pipeline import lint_source

    # verification is what this benchmark measures, so the rewrite is taken unverified
    result = lint_source(
        SEED.read_text(encoding="utf-8"),
        str(SEED),
        Config(select=("JAX101",)),
        fix=True,
        unsafe_fixes=True,
        verify=False,
    )
    assert result.fixed_source is not None, "jaxlint did not rewrite the seed's loops"
    return result.fixed_source


def make_rewrite_data_dtype() -> Callable[[jax.Array], jax.Array]:
    """Return the rewrite with the carry cast to x.dtype (wrong for integer and bool inputs)."""

    def cumulative_sum(x: jax.Array) -> jax.Array:
        acc = 0.0

        def _scan_body(acc, x_i):
            acc += x_i
            return acc, acc

        acc, y = jax.lax.scan(_scan_body, jnp.asarray(acc, dtype=x.dtype), x)
        return y

    return cumulative_sum


VARIANTS: dict[str, Callable[[], Callable[[jax.Array], jax.Array]]] = {
    "original (loop)": make_original,
    "rewrite (scan)": make_rewrite,
}


def sub_jaxprs(value: object) -> Iterator[Jaxpr]:
    """Yield the jaxprs held by one equation parameter (a Jaxpr, ClosedJaxpr or a sequence)."""
    if isinstance(value, ClosedJaxpr):
        yield value.jaxpr
    elif isinstance(value, Jaxpr):
        yield value
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from sub_jaxprs(item)


def total_eqns(jaxpr: Jaxpr) -> int:
    """Count the equations of a jaxpr including every nested jaxpr."""
    count = 0
    for eqn in jaxpr.eqns:
        count += 1
        for param in eqn.params.values():
            count += sum(total_eqns(inner) for inner in sub_jaxprs(param))
    return count


@dataclass(frozen=True)
class Measurement:
    """One variant at one N."""

    variant: str
    n: int
    top_eqns: int
    total_eqns: int
    compile_s: float
    run_us: float
    output: np.ndarray


def measure(variant: str, n: int, calls: int) -> Measurement:
    """Trace, compile and run one variant on jnp.linspace(0, 1, n) float32."""
    factory = VARIANTS[variant]
    x = jnp.linspace(0.0, 1.0, n, dtype=jnp.float32)
    closed = jax.make_jaxpr(factory())(x)
    start = time.perf_counter()
    compiled = jax.jit(factory()).lower(x).compile()
    compile_s = time.perf_counter() - start
    output = np.asarray(compiled(x).block_until_ready())
    timings = []
    for _ in range(calls):
        start = time.perf_counter()
        compiled(x).block_until_ready()
        timings.append(time.perf_counter() - start)
    return Measurement(
        variant=variant,
        n=n,
        top_eqns=len(closed.jaxpr.eqns),
        total_eqns=total_eqns(closed.jaxpr),
        compile_s=compile_s,
        run_us=statistics.median(timings) * 1e6,
        output=output,
    )


def dtype_check() -> list[str]:
    """Compare both carry inits with the original loop on int32 and bool inputs."""
    lines = []
    inputs = {
        "float32": jnp.array([0.5, 1.5, 2.0], dtype=jnp.float32),
        "int32": jnp.array([1, 2, 3], dtype=jnp.int32),
        "bool": jnp.array([True, True, False]),
    }
    for name, x in inputs.items():
        want = make_original()(x)
        for label, factory in (
            ("asarray(acc, dtype=x.dtype)", make_rewrite_data_dtype),
            ("asarray(acc, dtype=result_type(acc, x.dtype))", make_rewrite),
        ):
            got = factory()(x)
            same = got.dtype == want.dtype and np.array_equal(np.asarray(got), np.asarray(want))
            lines.append(
                f"| {name} | `{label}` | {want.dtype} {np.asarray(want).tolist()} "
                f"| {got.dtype} {np.asarray(got).tolist()} | {'yes' if same else '**no**'} |"
            )
    return lines


def cpu_model() -> str:
    """Return the CPU model name from /proc/cpuinfo (or platform.processor())."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def load_average() -> str:
    """Return the 1/5/15-minute load average as text."""
    try:
        with open("/proc/loadavg", encoding="utf-8") as loadavg:
            return " ".join(loadavg.read().split()[:3])
    except OSError:
        return "unknown"


def parse_sizes(text: str) -> tuple[int, ...]:
    """Parse '10,100,300' into a tuple of ints."""
    return tuple(int(part) for part in text.split(",") if part.strip())


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark and print a Markdown report."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=parse_sizes, help="comma-separated N values")
    parser.add_argument(
        "--max-original",
        type=int,
        help=f"largest N at which the loop version is compiled (default {DEFAULT_MAX_ORIGINAL})",
    )
    parser.add_argument("--calls", type=int, help="timed calls per compiled function (median)")
    parser.add_argument("--quick", action="store_true", help="small sizes, fewer calls")
    args = parser.parse_args(argv)
    sizes = args.sizes or (QUICK_SIZES if args.quick else DEFAULT_SIZES)
    max_original = args.max_original or (QUICK_MAX_ORIGINAL if args.quick else DEFAULT_MAX_ORIGINAL)
    calls = args.calls or (5 if args.quick else 20)

    print("# JAX101 fix impact: loop cumsum vs lax.scan rewrite\n")
    print(f"- date: {datetime.datetime.now().isoformat(timespec='seconds')}")
    print(
        f"- jax {jax.__version__}, backend {jax.default_backend()}, Python {sys.version.split()[0]}"
    )
    print(f"- CPU: {cpu_model()}; load average at start: {load_average()}")
    print("- input: `jnp.linspace(0, 1, N, dtype=float32)`; compile = wall time of")
    print("  `jax.jit(f).lower(x).compile()` with a fresh function object; run = median of")
    print(
        f"  {calls} calls of the compiled function with `.block_until_ready()` after a warm-up.\n"
    )
    print("| N | variant | top eqns | total eqns | compile s | run µs | outputs allclose to |")
    print("|---:|---|---:|---:|---:|---:|---|")
    loop_faster: list[int] = []
    scan_faster: list[int] = []
    tied: list[int] = []
    for n in sizes:
        results = [
            measure(variant, n, calls) for variant in VARIANTS if _runs(variant, n, max_original)
        ]
        if len(results) == 2:
            loop_us, scan_us = results[0].run_us, results[1].run_us
            if loop_us < scan_us / TIE_RATIO:
                loop_faster.append(n)
            elif scan_us < loop_us / TIE_RATIO:
                scan_faster.append(n)
            else:
                tied.append(n)
        loop_output = results[0].output if len(results) == 2 else None
        numpy_cumsum = np.cumsum(np.linspace(0.0, 1.0, n, dtype=np.float32), dtype=np.float64)
        for result in results:
            match = _match_text(result.output, loop_output, numpy_cumsum)
            print(
                f"| {n} | {result.variant} | {result.top_eqns} | {result.total_eqns} "
                f"| {result.compile_s:.3f} | {result.run_us:.1f} | {match} |",
                flush=True,
            )
    print(f"\nload average at end: {load_average()}\n")
    print("## Carry dtype check (why the init uses `jnp.result_type(acc, x.dtype)`)\n")
    print("| input | rewrite init | original loop | rewrite | same dtype and values |")
    print("|---|---|---|---|---|")
    for line in dtype_check():
        print(line)
    print(
        "\nNote: the loop version unrolls to 4 equations per element (slice, squeeze, add and"
        "\nthe broadcast_in_dim that `jnp.array(list)` adds; concatenates on top); the scan"
        "\nrewrite is 1 top-level equation at every N, so its trace and compile time stay flat"
        "\nwhile the loop's grow super-linearly. For short loops the unrolled version can *run*"
        "\nas fast or faster (straight-line code, no loop overhead); the rewrite's gain is compile"
        "\ntime and jaxpr size, not per-call speed at small N."
        "\nTimings are wall-clock on a shared 2-core machine."
    )
    print(
        f"In this run the compiled loop ran faster at N = {_join(loop_faster)}, the compiled scan"
        f" ran faster at N = {_join(scan_faster)}, and they were within {TIE_RATIO - 1:.0%} of"
        f" each other at N = {_join(tied)} (run µs column)."
    )
    return 0


def _match_text(
    output: np.ndarray, loop_output: np.ndarray | None, numpy_cumsum: np.ndarray
) -> str:
    """Describe whether an output matches the loop's (allclose) and numpy's float64 cumsum."""
    parts = []
    if loop_output is not None:
        parts.append("loop: " + ("yes" if np.allclose(output, loop_output) else "**NO**"))
    parts.append(
        "np.cumsum: " + ("yes" if np.allclose(output, numpy_cumsum, rtol=1e-4) else "**NO**")
    )
    return ", ".join(parts)


def _join(sizes: list[int]) -> str:
    """Format a list of sizes for the note."""
    return ", ".join(map(str, sizes)) or "none"


def _runs(variant: str, n: int, max_original: int) -> bool:
    """Return whether this variant is measured at this N."""
    return variant != "original (loop)" or n <= max_original


if __name__ == "__main__":
    raise SystemExit(main())
