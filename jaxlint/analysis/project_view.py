"""What linting one file needs from the project index (see jaxlint.analysis.project)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import TypeVar

from jaxlint.analysis.jax_api import TraceKind, TraceReason
from jaxlint.analysis.scope import KeyConsumerSummary

V = TypeVar("V")


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
    key_consumers: Mapping[str, KeyConsumerSummary] = field(default_factory=dict)
    # the project's top-level packages: what they define is summarised in `key_consumers`
    packages: frozenset[str] = frozenset()


class AskedNames(Mapping[str, V]):
    """A read-only mapping that remembers which keys were looked up, so that an analysis run
    before the project index was complete can tell whether the complete index would change
    its result: only keys that were asked can (`asked_everything` if it was iterated)."""

    def __init__(self, inner: Mapping[str, V]) -> None:
        self._inner = inner
        self.asked: set[str] = set()
        self.asked_everything = False

    def __getitem__(self, key: str) -> V:
        self.asked.add(key)
        return self._inner[key]

    def __iter__(self) -> Iterator[str]:
        self.asked_everything = True
        return iter(self._inner)

    def __len__(self) -> int:
        self.asked_everything = True
        return len(self._inner)
