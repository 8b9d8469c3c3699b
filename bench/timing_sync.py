"""JAX307's claim measured: a timing without block_until_ready reads dispatch, not compute.

Times the JAX307 fixture's `matmul_chain` (4 × tanh(a @ b) on 1024² float32) as its flagged
`bench_matmul` does and as its fixed form does, medians of 15 runs after a warm-up.

    .venv/bin/python bench/timing_sync.py            # prints a markdown line; add --write
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import jax
import jax.numpy as jnp

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "fixtures" / "rules"))
import jax307_benchmarks as fixture  # noqa: E402


def _median(run, repeat: int = 15) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
        jax.effects_barrier()
        jax.block_until_ready(jnp.zeros(()))
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--write", action="store_true", help="append to results/timing_sync.md")
    options = parser.parse_args()
    key = jax.random.PRNGKey(0)
    a = jax.random.normal(key, (1024, 1024))
    b = jax.random.normal(jax.random.PRNGKey(1), (1024, 1024)) / 32
    jax.block_until_ready(fixture.matmul_chain(a, b))
    unsynced = _median(lambda: fixture.matmul_chain(a, b))
    synced = _median(lambda: jax.block_until_ready(fixture.matmul_chain(a, b)))
    line = (
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}: jax {jax.__version__}, "
        f"{jax.devices()[0].platform}: unsynced {unsynced * 1e3:.3f} ms, synced "
        f"{synced * 1e3:.2f} ms ({unsynced / synced:.1%} of the compute time)"
    )
    print(line)
    if options.write:
        path = ROOT / "bench" / "results" / "timing_sync.md"
        if not path.exists():
            path.write_text("# timing_sync — what an unsynced timing reads (JAX307)\n\n")
        with path.open("a") as out:
            out.write(f"- {line}\n")


if __name__ == "__main__":
    main()
