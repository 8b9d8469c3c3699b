"""Run time of jaxlint's loop fixes beside the loop they replace and the form an expert writes.

For every loop fixture jaxlint fixes (`fixtures/fix/<case>.in.py`, the loop; `<case>.out.py`,
byte for byte what `jaxlint check --fix` writes on CPU, and on an accelerator
`<case>.accelerator.out.py` where the fix differs there, both checked by
tests/test_fix_fixtures.py), and a hand-written form per case (`CASES`, below: a `jnp`
reduction, `jnp.cumsum`, `lax.associative_scan`, a broadcast expression, or `lax.scan` where
the recurrence is nonlinear), at each N: top-level and
total jaxpr equations, compile time, steady-state run time (median of `--calls` calls after
compiling: `--calls` calls in 5 back-to-back batches, `block_until_ready` after each batch, the
median batch's time per call), and the largest difference from the original's output (from the
fix's, where the original is not compiled: above `--max-original`, where the unrolled loop takes
minutes to compile). Only JAX and NumPy are imported (no jaxlint, no libcst), so it runs on any
machine with JAX, the `device` tool's TPU included.

    .venv/bin/python bench/fix_runtime.py                      # CPU, N = 10, 100, 300, 10000
    .venv/bin/python bench/fix_runtime.py --sizes 10,100 --output /tmp/quick.md
"""

from __future__ import annotations

import argparse
import datetime
import importlib.util
import inspect
import math
import platform
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures" / "fix"
RESULTS = ROOT / "bench" / "results" / "fix_runtime.md"
DEFAULT_SIZES = (10, 100, 300, 10_000)
DEFAULT_MAX_ORIGINAL = 300  # the unrolled loop's compile grows with N: minutes past this
FEATURES = 8  # columns of matrix inputs, hidden size of the RNN
BATCHES = 5  # run time: the median of this many batches' mean time per call


def _vector(n: int, seed: int = 0) -> jax.Array:
    return jnp.asarray(np.random.RandomState(seed).standard_normal(n), jnp.float32)


def _matrix(rows: int, columns: int, seed: int = 0) -> jax.Array:
    return jnp.asarray(np.random.RandomState(seed).standard_normal((rows, columns)), jnp.float32)


# -- the forms an expert writes ------------------------------------------------------------------


def _cumulative_sum(x: jax.Array) -> jax.Array:
    return jnp.cumsum(x)


def _rnn(W: jax.Array, U: jax.Array, x: jax.Array) -> jax.Array:
    # a nonlinear recurrence: lax.scan is the form; the input projection batched outside it
    projected = x @ U.T

    def step(h: jax.Array, u: jax.Array) -> tuple[jax.Array, jax.Array]:
        h = jnp.tanh(W @ h + u)
        return h, h

    return jax.lax.scan(step, jnp.zeros(W.shape[0], x.dtype), projected)[1]


def _moving_average(signal: jax.Array) -> jax.Array:
    return (signal[:-2] + signal[1:-1] + signal[2:]) / 3.0


def _squared_error(X: jax.Array, y: jax.Array, w: jax.Array) -> jax.Array:
    return jnp.sum((X @ w - y[: X.shape[0]]) ** 2, axis=0)


def _normalize_rows(X: jax.Array) -> jax.Array:
    return X / (jnp.linalg.norm(X, axis=1, keepdims=True) + 1e-6)


def _affine(
    left: tuple[jax.Array, jax.Array], right: tuple[jax.Array, jax.Array]
) -> tuple[jax.Array, jax.Array]:
    """Compose x ↦ a·x + b maps, `left` applied first: the linear recurrence's combine."""
    a1, b1 = left
    a2, b2 = right
    return a2 * a1, a2 * b1 + b2


def _discounted_returns(rewards: jax.Array, gamma: float = 0.99) -> jax.Array:
    # running_t = r_t + gamma * running_{t+1}: an affine recurrence, run backwards
    a = jnp.full_like(rewards, gamma)
    return jax.lax.associative_scan(_affine, (a, rewards), reverse=True)[1]


def _ema_with_residuals(prices: jax.Array) -> tuple[jax.Array, jax.Array]:
    decay = 0.8
    a = jnp.full_like(prices, decay)
    b = (1 - decay) * prices
    b = b.at[0].add(decay * prices[0])  # the start, ema_0 = prices[0], folded into the first step
    ema = jax.lax.associative_scan(_affine, (a, b))[1]
    return ema, prices - ema


def _bin_totals(samples: jax.Array) -> jax.Array:
    bins = jnp.arange(samples.shape[0]) % 4
    return jnp.zeros(4, samples.dtype).at[bins].add(samples)


def _gae(values: jax.Array, rewards: jax.Array, done: jax.Array, gamma: Any, lamb: Any):
    # loop_slot_list's GAE: the last slot bootstrapped, then from T - 2 down
    # adv_t = δ_t + γλ·adv_{t+1}·~done_t, δ_t = r_t + γ·v_{t+1}·~done_t - v_t: affine, reversed
    keep = ~done[:-1]
    last = jnp.where(done[-1], rewards[-1] - values[-1], rewards[-1])
    deltas = rewards[:-1] + gamma * values[1:] * keep - values[:-1]
    a = lamb * gamma * keep
    b = deltas.at[-1].add(a[-1] * last)  # adv_{T-1} folded into the last step
    head = jax.lax.associative_scan(_affine, (a.at[-1].set(0), b), reverse=True)[1]
    return jnp.concatenate([head, last[None]])


def _image(rows: int, columns: int) -> jax.Array:
    values = np.random.RandomState(rows).randint(0, 256, (rows, columns))
    return jnp.asarray(values, jnp.uint8)


def _gae_reversed_range(rewards, values, dones, gamma, lam):
    # loop_reversed_range's GAE, `values[t + 1]` clamped at the end as JAX indexing does
    n = rewards.shape[0]
    nonterminal = 1.0 - dones
    following = values[jnp.minimum(jnp.arange(n) + 1, values.shape[0] - 1)]
    delta = rewards + gamma * following * nonterminal - values[:n]
    return jax.lax.associative_scan(_affine, (gamma * lam * nonterminal, delta), reverse=True)[1]


def _mean_and_variance(x):
    n = x.shape[0]
    mean = jnp.sum(x) / n
    return mean, jnp.sum(x * x) / n - mean**2


def _moments(x):
    mean = jnp.sum(x / x.shape[0])
    return mean, jnp.sum((x - mean) ** 2)


def _running_peak(x):
    return jnp.max(x, axis=0) if x.shape[0] else jnp.zeros(x.shape[1:])


def _row_softmax(logits):
    shifted = jnp.exp(logits - logits.max(axis=1, keepdims=True))
    return shifted / shifted.sum(axis=1, keepdims=True)


@dataclass(frozen=True)
class Case:
    """A fixture's function, its arguments for N, and the expert form."""

    function: str
    arguments: Callable[[int], tuple[Any, ...]]
    expert: Callable[..., Any]
    form: str  # what the expert form is


CASES: dict[str, Case] = {
    "loop_cumsum_seed": Case(
        "cumulative_sum", lambda n: (_vector(n),), _cumulative_sum, "`jnp.cumsum`"
    ),
    "loop_rnn": Case(
        "rnn",
        lambda n: (
            0.5 * _matrix(FEATURES, FEATURES, 1),
            _matrix(FEATURES, 3, 2),
            _matrix(n, 3),
        ),
        _rnn,
        "`lax.scan`, input projection batched",
    ),
    "loop_moving_average": Case(
        "moving_average", lambda n: (_vector(n),), _moving_average, "shifted slices"
    ),
    "loop_loss_vector_weights": Case(
        "squared_error",
        lambda n: (_matrix(n, 3), _vector(n, 1), _vector(3, 2)),
        _squared_error,
        "`jnp.sum` of the residuals",
    ),
    "loop_stack_rows": Case(
        "normalize_rows",
        lambda n: (_matrix(n, FEATURES),),
        _normalize_rows,
        "broadcast `norm(axis=1)`",
    ),
    "loop_reversed_returns": Case(
        "discounted_returns",
        lambda n: (_vector(n),),
        _discounted_returns,
        "`associative_scan`, affine, reversed",
    ),
    "loop_acc_two_lists": Case(
        "ema_with_residuals", lambda n: (_vector(n),), _ema_with_residuals, "`associative_scan`"
    ),
    "loop_counter_scatter": Case(
        "bin_totals", lambda n: (_vector(n),), _bin_totals, "one scatter-add"
    ),
    "loop_slot_list": Case(
        "gae",
        lambda n: (_vector(n), _vector(n, 1), _vector(n, 2) > 1, 0.99, 0.95),
        _gae,
        "`associative_scan`, affine, reversed",
    ),
    "loop_reversed_range": Case(
        "gae",
        lambda n: (
            _vector(n),
            _vector(n + 1, 1),
            (_vector(n, 2) > 1).astype(jnp.float32),
            0.99,
            0.95,
        ),
        _gae_reversed_range,
        "`associative_scan`, affine, reversed",
    ),
    "loop_two_accumulators": Case(
        "mean_and_variance", lambda n: (_vector(n),), _mean_and_variance, "two `jnp.sum`"
    ),
    "loop_index_arithmetic": Case(
        "total_variation",
        lambda n: (_vector(n),),
        lambda x: jnp.sum(jnp.abs(jnp.diff(x))),
        "`jnp.diff`, `jnp.sum`",
    ),
    "loop_enumerate_index": Case(
        "discounted_return",
        lambda n: (_vector(n),),
        lambda r: jnp.sum(0.9 ** jnp.arange(r.shape[0]) * r),
        "powers, `jnp.sum`",
    ),
    "loop_zip_pairs": Case(
        "hinge_loss",
        lambda n: (_vector(n), jnp.sign(_vector(n, 1))),
        lambda s, y: jnp.sum(jnp.maximum(0.0, 1.0 - y * s)),
        "`jnp.sum`",
    ),
    "loop_step_counter": Case(
        "count_rows_and_hits",
        lambda n: (_image(n, 4),),
        lambda image: (image.shape[0], jnp.sum(image > 128, dtype=jnp.float32)),
        "`jnp.sum` of the mask",
    ),
    "loop_carry_from_body": Case(
        "weighted_features",
        lambda n: (_vector(n), _vector(3, 1)),
        lambda x, w: jnp.sum(x) * w,
        "`jnp.sum`, one product",
    ),
    "loop_iter_elements": Case(
        "sum_of_squares", lambda n: (_vector(n),), lambda x: jnp.dot(x, x), "`jnp.dot`"
    ),
    "loop_len_total": Case(
        "mean_abs_error",
        lambda n: (_vector(n), _vector(n, 1)),
        lambda p, t: jnp.sum(jnp.abs(p - t)) / p.shape[0],
        "`jnp.sum`",
    ),
    "loop_int_init_float_data": Case("total_energy", lambda n: (_vector(n),), jnp.sum, "`jnp.sum`"),
    "loop_rows_scalar_init": Case(
        "column_sums",
        lambda n: (_matrix(n, 3),),
        lambda X: jnp.sum(X, axis=0),
        "`jnp.sum(axis=0)`",
    ),
    "loop_rows_scalar_init_2d": Case(
        "column_means",
        lambda n: (_matrix(n, 3),),
        lambda X: jnp.sum(X, axis=0) / X.shape[0],
        "`jnp.sum(axis=0)`",
    ),
    "loop_two_arrays": Case(
        "weighted_sum",
        lambda n: (_vector(n), _vector(n, 1)),
        lambda x, w: jnp.dot(x, w),
        "`jnp.dot`",
    ),
    "loop_two_loops_reused_name": Case(
        "moments", lambda n: (_vector(n),), _moments, "two `jnp.sum`"
    ),
    "loop_nested_in_if": Case(
        "batch_gradient",
        lambda n: (_matrix(n, 3),),
        lambda g: jnp.sum(g / g.shape[0], axis=0),
        "`jnp.sum(axis=0)`",
    ),
    "loop_stack_axis": Case(
        "time_features",
        lambda n: (_matrix(n, 3),),
        lambda frames: jnp.moveaxis(jnp.tanh(frames), 0, -1),
        "broadcast `tanh`, `moveaxis`",
    ),
    "loop_live_after_static_if": Case(
        "running_peak", lambda n: (_matrix(n, 3),), _running_peak, "`jnp.max(axis=0)`"
    ),
    "loop_builtin_sum": Case(
        "mean_gradient",
        lambda n: (_matrix(n, 3),),
        lambda g: jnp.sum(g, axis=0) / g.shape[0],
        "`jnp.sum(axis=0)`",
    ),
    "loop_comprehension_rows": Case(
        "row_softmax", lambda n: (_matrix(n, FEATURES),), _row_softmax, "broadcast softmax"
    ),
    "loop_bound_comprehension": Case(
        "centered_rows",
        lambda n: (_matrix(n, 3),),
        lambda x: x - jnp.mean(x, axis=1, keepdims=True),
        "broadcast `mean(axis=1)`",
    ),
}


# -- measuring ------------------------------------------------------------------------------------


def _has(case: str, side: str) -> bool:
    return (FIXTURES / f"{case}.{side}.py").exists()


# how jaxlint's fix computes the loop, read from the fixed function's code (most telling first)
_FORMS = (
    ("associative_scan", "`associative_scan`"),
    ("lax.scan", "`lax.scan`"),
    ("lax.map", "`lax.map`"),
    (".add(", "scatter-add"),
    ("jnp.sum(", "reduction"),  # before `cumsum(`: a weakly typed loop counter is one
    ("jnp.prod(", "reduction"),
    ("jnp.max(", "reduction"),
    ("cumsum(", "running sum"),
    ("cumprod(", "running product"),
    ("vmap", "`vmap`"),
)


def _form_of(module: ModuleType, function: str) -> str:
    source = inspect.getsource(_unjitted(getattr(module, function)))
    return next((label for text, label in _FORMS if text in source), "other")


def _load(case: str, side: str) -> ModuleType:
    path = FIXTURES / f"{case}.{side}.py"
    spec = importlib.util.spec_from_file_location(f"fix_runtime_{case}_{side}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _unjitted(function: Any) -> Callable[..., Any]:
    return getattr(function, "__wrapped__", function)


def _total_eqns(jaxpr: Any) -> int:
    count = 0
    for eqn in jaxpr.eqns:
        count += 1
        for value in eqn.params.values():
            for inner in value if isinstance(value, (list, tuple)) else (value,):
                inner = getattr(inner, "jaxpr", inner)
                if hasattr(inner, "eqns"):
                    count += _total_eqns(inner)
    return count


@dataclass(frozen=True)
class Timing:
    top_eqns: int
    total_eqns: int
    compile_s: float
    run_us: float
    output: Any


def _time(function: Callable[..., Any], arguments: tuple[Any, ...], calls: int) -> Timing:
    arrays = [i for i, a in enumerate(arguments) if isinstance(a, jax.Array)]

    def traced(*values: Any) -> Any:
        full = list(arguments)
        for position, value in zip(arrays, values, strict=True):
            full[position] = value
        return function(*full)

    inputs = tuple(arguments[i] for i in arrays)
    jaxpr = jax.make_jaxpr(traced)(*inputs).jaxpr
    while len(jaxpr.eqns) == 1 and jaxpr.eqns[0].primitive.name in ("jit", "pjit"):
        jaxpr = jaxpr.eqns[0].params["jaxpr"].jaxpr
    start = time.perf_counter()
    compiled = jax.jit(traced).lower(*inputs).compile()
    compile_s = time.perf_counter() - start
    output = jax.block_until_ready(compiled(*inputs))
    # calls back to back, as a training loop makes them, waiting once per batch: a wait per call
    # adds the host's round trip to the device (450 µs on the TPU VM), which hides the program
    timings = []
    per_batch = max(1, calls // BATCHES)
    for _ in range(BATCHES):
        start = time.perf_counter()
        for _ in range(per_batch):
            result = compiled(*inputs)
        jax.block_until_ready(result)
        timings.append((time.perf_counter() - start) / per_batch)
    return Timing(
        len(jaxpr.eqns), _total_eqns(jaxpr), compile_s, statistics.median(timings) * 1e6, output
    )


def _max_diff(want: Any, got: Any) -> float:
    worst = 0.0
    for a, b in zip(jax.tree_util.tree_leaves(want), jax.tree_util.tree_leaves(got), strict=True):
        a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
        if a.shape != b.shape:
            return math.inf
        if a.size:
            worst = max(worst, float(np.max(np.abs(a - b))))
    return worst


def _fmt_us(value: float | None) -> str:
    if value is None:
        return "—"
    return f"{value / 1000:.2f} ms" if value >= 1000 else f"{value:.0f} µs"


def run(sizes: Sequence[int], max_original: int, calls: int) -> list[str]:
    rows = [
        "| case | fix form | expert form | N | eqns loop / fix / expert "
        "| compile s loop / fix / expert | run loop | run fix | run expert | fix ÷ loop "
        "| fix ÷ expert | max abs Δ fix, expert |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    fix_vs_loop: list[float] = []
    fix_vs_expert: dict[int, list[float]] = {n: [] for n in sizes}
    accelerator = jax.default_backend() != "cpu"
    for name, case in CASES.items():
        loop = _unjitted(getattr(_load(name, "in"), case.function))
        side = "accelerator.out" if accelerator and _has(name, "accelerator.out") else "out"
        fix_module = _load(name, side)
        fix = _unjitted(getattr(fix_module, case.function))
        form = _form_of(fix_module, case.function)
        for n in sizes:
            arguments = case.arguments(n)
            original = _time(loop, arguments, calls) if n <= max_original else None
            fixed = _time(fix, arguments, calls)
            expert = _time(case.expert, arguments, calls)
            reference = original.output if original else fixed.output
            timings = (original, fixed, expert)
            eqns = "/".join(str(t.total_eqns) if t else "—" for t in timings)
            compile_s = " / ".join(f"{t.compile_s:.2f}" if t else "—" for t in timings)
            ratio_loop = fixed.run_us / original.run_us if original else None
            ratio_expert = fixed.run_us / expert.run_us
            if ratio_loop is not None:
                fix_vs_loop.append(ratio_loop)
            fix_vs_expert[n].append(ratio_expert)
            rows.append(
                f"| {name} | {form} | {case.form} | {n} | {eqns} | {compile_s} "
                f"| {_fmt_us(original.run_us if original else None)} | {_fmt_us(fixed.run_us)} "
                f"| {_fmt_us(expert.run_us)} "
                f"| {f'{ratio_loop:.2f}×' if ratio_loop is not None else '—'} "
                f"| {ratio_expert:.2f}× "
                f"| {_max_diff(reference, fixed.output):.2g}, "
                f"{_max_diff(reference, expert.output):.2g} |"
            )
    summary = ["", "| | geomean |", "|---|---|"]
    if fix_vs_loop:
        summary.append(
            f"| fix ÷ loop, N ≤ {max_original} | {_geomean(fix_vs_loop):.2f}× "
            f"(worst {max(fix_vs_loop):.2f}×) |"
        )
    for n, ratios in fix_vs_expert.items():
        summary.append(
            f"| fix ÷ expert, N = {n} | {_geomean(ratios):.2f}× (worst {max(ratios):.1f}×) |"
        )
    return rows + summary


def _geomean(values: Sequence[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default=",".join(map(str, DEFAULT_SIZES)))
    parser.add_argument("--max-original", type=int, default=DEFAULT_MAX_ORIGINAL)
    parser.add_argument("--calls", type=int, default=50)
    parser.add_argument("--output", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    sizes = tuple(int(s) for s in args.sizes.split(",") if s.strip())
    device = jax.devices()[0]
    head = [
        "# fix_runtime — jaxlint's loop fixes beside the loop and the expert's form",
        "",
        f"Run {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC by "
        f"`bench/fix_runtime.py --sizes {args.sizes} --calls {args.calls}`; JAX "
        f"{jax.__version__} on {device.platform} ({device.device_kind}), Python "
        f"{platform.python_version()}. Run times: {args.calls} calls after compiling, in "
        f"{BATCHES} back-to-back batches waited for once each, the median batch's time per call; "
        "the loop is compiled up to "
        f"N = {args.max_original}; Δ is against the loop's output (the fix's above that).",
        "",
    ]
    table = run(sizes, args.max_original, args.calls)
    text = "\n".join(head + table) + "\n"
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(text, encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
