"""XLA's cheaper compile settings for the verification child; the user's for what it times.

Verification compiles a program for every input set it tries: each eager primitive of the
original on each new shape and dtype, and the rewrite (jitted as written) on each of them.
The longest verifications were XLA's LLVM back end optimising code that runs once on a few
elements: the flax nnx module fixture took 22.9 s with XLA's defaults and 12.2 s with
`--xla_backend_optimization_level=1` and the expensive LLVM passes off (the 69 fixes of the
fix fixtures: 310 s in all against 262 s, every status the same).

Level 1, not 0: unoptimised (level 0, 243 s) a scan's loop body rounds otherwise than the
user's compiled code does (an RNN's `h @ W_hh` in a scan 1.4e-5 from the eager original where
the optimised scan is 6.9e-7), and the compiled original it is judged against no longer shows
that rounding, so two right fixes of the adversarial suite were refused (v2_rnn_dict_params,
while_power_iteration); level 1 verifies both, as the defaults do. The original and the
rewrite are compiled with the same settings; the timings reported to the user (`measure`)
compile with XLA's defaults. A user who sets any of these flags in `XLA_FLAGS` keeps their
value.

The parent sets CHEAP (every jaxlib knows those flags); the child adds FUSION_EMITTERS before
it imports JAX, from the version of the jaxlib it will import (the parent never imports JAX, and
the child's interpreter may not be the parent's).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from importlib import metadata

# What the child compiles with, and what XLA's defaults for the same options are.
CHEAP = {"xla_backend_optimization_level": "1", "xla_llvm_disable_expensive_passes": "true"}
# XLA:CPU's MLIR fusion emitters cost a third of a small program's compile (the median of 20:
# 55 → 38 ms for `a * 2 + 1`, 121 → 86 ms for a scan), and turning them off changed no status
# or reason of the 69 fixes of the fix fixtures. XLA ends a process whose XLA_FLAGS name a flag
# it does not define, so the child adds it only under the jaxlib versions known to define it.
FUSION_EMITTERS = {"xla_cpu_use_fusion_emitters": "false"}
FUSION_EMITTERS_JAXLIB = ((0, 10), (0, 11))  # [first, last) (major, minor): 0.10.2 checked
DEFAULTS: dict[str, int | bool] = {
    "xla_backend_optimization_level": 3,
    "xla_llvm_disable_expensive_passes": False,
    "xla_cpu_use_fusion_emitters": True,
}
# Set in the child's environment when it compiles with CHEAP: the options `measure` restores.
LOWERED_NAME = "JAXLINT_VERIFY_LOWERED_XLA_OPTIONS"


def cheap_compile_environment(
    env: Mapping[str, str], jaxlib_version: str | None = None
) -> dict[str, str]:
    """`env` with CHEAP added to XLA_FLAGS (and FUSION_EMITTERS, under a `jaxlib_version`
    known to define it), except the options the user's flags already name."""
    cheap = dict(CHEAP)
    if jaxlib_version is not None and _defines_fusion_emitters(jaxlib_version):
        cheap.update(FUSION_EMITTERS)
    flags = env.get("XLA_FLAGS", "")
    lowered = [name for name in cheap if f"--{name}" not in flags]
    if not lowered:
        return dict(env)
    added = " ".join(f"--{name}={cheap[name]}" for name in lowered)
    earlier = [name for name in env.get(LOWERED_NAME, "").split(",") if name]
    return {
        **env,
        "XLA_FLAGS": f"{flags} {added}".strip(),
        LOWERED_NAME: ",".join(earlier + lowered),
    }


def installed_jaxlib() -> str | None:
    """The version of the jaxlib this interpreter would import, without importing it."""
    try:
        return metadata.version("jaxlib")
    except metadata.PackageNotFoundError:
        return None


def _defines_fusion_emitters(jaxlib_version: str) -> bool:
    numbers = re.match(r"(\d+)\.(\d+)", jaxlib_version)
    if numbers is None:
        return False
    first, last = FUSION_EMITTERS_JAXLIB
    return first <= (int(numbers[1]), int(numbers[2])) < last


def timed_compile_options() -> dict[str, int | bool]:
    """The compiler options that undo, for a timed compile, what this child lowered."""
    lowered = os.environ.get(LOWERED_NAME, "")
    return {name: DEFAULTS[name] for name in lowered.split(",") if name in DEFAULTS}
