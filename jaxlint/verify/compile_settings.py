"""XLA's cheap compile settings for the verification child; the user's for what it times.

Verification compiles a program for every input set it tries: each eager primitive of the
original on each new shape and dtype, and the rewrite (jitted as written) on each of them.
Most of a verification's time was XLA's LLVM back end optimising code that runs once on a
few elements: the flax nnx module fixture took 27.7 s with XLA's defaults and 15.8 s with
`--xla_backend_optimization_level=0` (14.3 s with expensive passes off too), the same 20
input sets verified. The original and the rewrite are compiled with the same settings, so they
are compared as before; only the timings reported to the user (`measure`) compile with XLA's
defaults, the settings their code runs with. A user who sets either flag in `XLA_FLAGS` keeps
their value everywhere.
"""

from __future__ import annotations

import os

# What the child compiles with, and what XLA's defaults for the same options are.
CHEAP = {"xla_backend_optimization_level": "0", "xla_llvm_disable_expensive_passes": "true"}
DEFAULTS: dict[str, int | bool] = {
    "xla_backend_optimization_level": 3,
    "xla_llvm_disable_expensive_passes": False,
}
# Set in the child's environment when it compiles with CHEAP: the options `measure` restores.
LOWERED_NAME = "JAXLINT_VERIFY_LOWERED_XLA_OPTIONS"


def cheap_compile_environment(env: dict[str, str]) -> dict[str, str]:
    """`env` with CHEAP added to XLA_FLAGS, except the options the user's flags already name."""
    flags = env.get("XLA_FLAGS", "")
    lowered = [name for name in CHEAP if f"--{name}" not in flags]
    if not lowered:
        return env
    added = " ".join(f"--{name}={CHEAP[name]}" for name in lowered)
    return {
        **env,
        "XLA_FLAGS": f"{flags} {added}".strip(),
        LOWERED_NAME: ",".join(lowered),
    }


def timed_compile_options() -> dict[str, int | bool]:
    """The compiler options that undo, for a timed compile, what this child lowered."""
    lowered = os.environ.get(LOWERED_NAME, "")
    return {name: DEFAULTS[name] for name in lowered.split(",") if name in DEFAULTS}
