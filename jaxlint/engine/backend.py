"""Which JAX backend this machine runs, judged without importing JAX (a second of start-up).

The loop rewrite's `target = "auto"` means this backend: forms that win only on accelerators
(`lax.associative_scan` for linear recurrences) are chosen where JAX would run on one
(rules/JAX101.md, "Which form"). JAX picks a TPU or a GPU when its plugin is installed and the
device is there, else the CPU; `JAX_PLATFORMS` overrides both, as it does for JAX.
"""

from __future__ import annotations

import functools
import glob
import importlib.util
import os

Backend = str  # "cpu", "gpu" or "tpu"

_GPU_PLUGINS = ("jax_cuda13_plugin", "jax_cuda12_plugin", "jax_rocm7_plugin", "jax_rocm60_plugin")


@functools.cache
def detected_backend() -> Backend:
    """ "tpu", "gpu" or "cpu": what `jax.default_backend()` would most likely say here."""
    platforms = os.environ.get("JAX_PLATFORMS", "").strip().lower()
    if platforms:
        first = platforms.split(",")[0].strip()
        return {"cuda": "gpu", "rocm": "gpu"}.get(first, first)
    if _installed("libtpu") and (glob.glob("/dev/accel*") or glob.glob("/dev/vfio/[0-9]*")):
        return "tpu"
    if any(_installed(p) for p in _GPU_PLUGINS) and (
        glob.glob("/dev/nvidia[0-9]*") or os.path.exists("/dev/kfd")
    ):
        return "gpu"
    return "cpu"


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False
