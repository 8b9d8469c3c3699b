"""What linting one file needs from the project index (see jaxlint.analysis.project)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

from jaxlint.analysis.jax_api import TraceKind, TraceReason
from jaxlint.analysis.scope import FORWARDED, KeyConsumerSummary


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
    # methods and attributes named so are, in every class of the project that has one, a jitted
    # callable that returns before its result is computed (`model.train_step(...)` on a model
    # of another module); read only by checks made once the index is finished
    async_members: frozenset[str] = frozenset()
    # methods some class of the project calls through `self` inside a loop (a base class's
    # driver loop calls what subclasses of other modules define); read once the index is finished
    looped_methods: frozenset[str] = frozenset()
    # what an observation run (`--observe CMD`) saw this module's jitted functions called
    # with: a function's first line (its first decorator's) → parameter → "array" (an array
    # every call) or "container" (a list, tuple, dict or other pytree every call)
    observed_params: Mapping[int, Mapping[str, str]] = field(default_factory=dict)


@dataclass(frozen=True)
class Asked:
    """The project consumers an analysis asked about: `names`, and of them those asked by a call
    that passes a key keyword (`keyworded`); a call that passes none cannot hand a `key=` on
    through a callee's `**kwargs`."""

    names: frozenset[str] = frozenset()
    keyworded: frozenset[str] = frozenset()

    def informative(
        self, consumers: Mapping[str, KeyConsumerSummary]
    ) -> dict[str, KeyConsumerSummary]:
        """The consumers asked about that tell the analysis more than their absence did: one
        that takes a key and hands it to nothing consumes nothing, as a project function not
        listed does, and one that only forwards `**kwargs` consumes nothing of a call that
        passes no key keyword (an analysis that asked only of such names stands)."""
        found: dict[str, KeyConsumerSummary] = {}
        for name in sorted(self.names):
            summary = consumers.get(name)
            if summary is None:
                continue
            _, consumed, guards, weak = summary
            forwards = FORWARDED in weak and name in self.keyworded
            if consumed or guards or set(weak) - {FORWARDED} or forwards:
                found[name] = summary
        return found

    def to_json(self) -> list[list[str]]:
        return [sorted(self.names), sorted(self.keyworded)]

    @classmethod
    def from_json(cls, data: list[list[str]]) -> Asked:
        names, keyworded = data
        return cls(frozenset(names), frozenset(keyworded))


class AskedNames(Mapping[str, KeyConsumerSummary]):
    """A read-only mapping that remembers which keys were looked up, so that an analysis run
    before the project index was complete can tell whether the complete index would change
    its result: only keys that were asked can (`asked_everything` if it was iterated)."""

    def __init__(self, inner: Mapping[str, KeyConsumerSummary]) -> None:
        self._inner = inner
        self._names: set[str] = set()
        self._keyworded: set[str] = set()
        self.asked_everything = False

    @property
    def asked(self) -> Asked:
        return Asked(frozenset(self._names), frozenset(self._keyworded))

    def told(self) -> dict[str, KeyConsumerSummary]:
        """The informative answers given (`Asked.informative` of what was asked)."""
        return self.asked.informative(self._inner)

    def __getitem__(self, key: str) -> KeyConsumerSummary:
        self._names.add(key)
        self._keyworded.add(key)
        return self._inner[key]

    def get_without_key_keywords(self, key: str) -> KeyConsumerSummary | None:
        """`get` for a call that passes no key keyword (see `Asked`)."""
        self._names.add(key)
        return self._inner.get(key)

    def __iter__(self) -> Iterator[str]:
        self.asked_everything = True
        return iter(self._inner)

    def __len__(self) -> int:
        self.asked_everything = True
        return len(self._inner)


def ask_consumer(
    consumers: Mapping[str, KeyConsumerSummary], name: str, *, key_keywords: bool
) -> KeyConsumerSummary | None:
    """The project consumer `name`, for a call that does (or does not) pass a key keyword."""
    if not key_keywords and isinstance(consumers, AskedNames):
        return consumers.get_without_key_keywords(name)
    return consumers.get(name)
