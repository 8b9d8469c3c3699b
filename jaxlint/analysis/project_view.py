"""What linting one file needs from the project index (see jaxlint.analysis.project)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from jaxlint.analysis.jax_api import TraceKind, TraceReason


@dataclass(frozen=True)
class ProjectView:
    """A file's package and the functions traced code in other modules reaches (picklable)."""

    package: str | None = None
    # function name (or `Class.method`) → trace kind and reason
    traced_from_outside: Mapping[str, tuple[TraceKind, TraceReason]] = field(default_factory=dict)
    # some module or configuration file of the project turns on jax_enable_x64 (JAX401)
    enables_x64: bool = False
    # functions of the project that consume a PRNG key parameter, by qualified name:
    # (positional parameters, the consumed ones) (JAX501/JAX502)
    key_consumers: Mapping[str, tuple[tuple[str, ...], tuple[str, ...]]] = field(
        default_factory=dict
    )
