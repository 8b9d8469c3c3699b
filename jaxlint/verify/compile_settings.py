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
compile with XLA's defaults. A user who sets either flag in `XLA_FLAGS` keeps their value.
"""

from __future__ import annotations

import os

# What the child compiles with, and what XLA's defaults for the same options are.
CHEAP = {"xla_backend_optimization_level": "1", "xla_llvm_disable_expensive_passes": "true"}
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
