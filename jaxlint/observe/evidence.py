"""What an observation run saw, as hazards: the shim's raw events read into `Seen` records.

Each record names the rule whose hazard the event is, where to report it, a short summary for a
static finding it confirms ("compiled 6 times: static argument `lr` changed"), a message for a
finding only the run found, and the lines a static finding of that rule may sit on to count as
the same hazard.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

# A jitted function traced this often in one run is reported even when only its argument
# shapes changed (a test suite trying a few shapes is expected; twenty is a pattern).
MANY_TRACES = 20
# Traced at least this often, each time again for a reason other than new shapes (a new
# static value, a Python scalar becoming an array, a fresh function object): reported.
NEEDLESS_TRACES = 3

_STATIC = re.compile(
    r"at input path (?P<path>\S+), now <class '[\w.]*Static'> with pytree metadata "
    r"Static\(val=(?P<now>.*?)\) and before <class '[\w.]*Static'> with pytree metadata "
    r"Static\(val=(?P<before>.*?)\)(?:, so|\s*$)"
)
_WEAK = re.compile(r"\* at (?P<name>[\w.\[\]']+), now (?P<now>\S+)\{weak_type=(?P<weak>\w+)\}")
_TYPE = re.compile(r"\* at (?P<name>[\w.\[\]']+), now (?P<now>\S+) and before (?P<before>\S+)")
_OBJECT = re.compile(r"<[\w.]*?\.?(\w+) object at 0x[0-9a-f]+>")
_KEY_NAME = re.compile(r"\['(\w+)'\]$")
_INDEX = re.compile(r"\[(\d+)\]$")


@dataclass(frozen=True)
class Seen:
    """One hazard the run showed, to report under `code` at `path:line`."""

    code: str
    kind: str  # recompiles, fresh-function, key-reuse, key-in-loop, tracer-leak, float64
    path: str
    line: int
    count: int
    summary: str  # what a confirmed static finding adds: "seen at run time: <summary>"
    message: str  # the message of a finding only the run found
    # lines a static finding of `code` may sit on to be this hazard; `in_function` widens it
    # to the function defined at `line`
    near: tuple[int, ...] = ()
    in_function: bool = False
    details: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["near"] = list(self.near)
        out["details"] = dict(self.details)
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Seen:
        return cls(**{**data, "near": tuple(data.get("near", ())), "details": data["details"]})


def seen_in(raw: Mapping[str, Any]) -> list[Seen]:
    """Every hazard in one run's merged events (see `merge`)."""
    found: list[Seen] = []
    for entry in raw.get("traces", {}).values():
        found.extend(_from_traces(entry))
    for entry in raw.get("reuse", {}).values():
        found.extend(_from_reuse(entry))
    for entry in raw.get("leaks", {}).values():
        found.append(_from_leak(entry))
    for entry in raw.get("float64", {}).values():
        found.append(_from_float64(entry))
    return found


def merge(parts: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The events of every process of the run, counts added where two saw the same thing."""
    merged: dict[str, Any] = {"traces": {}, "reuse": {}, "leaks": {}, "float64": {}, "errors": []}
    for part in parts:
        for kind in ("traces", "reuse", "leaks", "float64"):
            for key, entry in (part.get(kind) or {}).items():
                kept = merged[kind].get(key)
                if kept is None:
                    merged[kind][key] = dict(entry)
                    continue
                kept["count"] += entry.get("count", 0)
                if kind == "traces":
                    kept["new_functions"] += entry.get("new_functions", 0)
                    for name in ("reasons", "signatures", "call_sites", "log"):
                        kept[name] += [x for x in entry.get(name, []) if x not in kept[name]]
        merged["errors"] += [e for e in part.get("errors", []) if e not in merged["errors"]]
    return merged


def in_tests(path: str) -> bool:
    """Is `path` test code (`test_*.py`, `*_test.py`, `conftest.py`, or under a `tests`/`test`
    folder)? A test calls the code under test the way it wants to try it: many static values,
    many shapes, one key for two implementations. The hazards a run shows are in how the
    project's own code calls."""
    parts = path.replace("\\", "/").split("/")
    name = parts[-1]
    test_file = name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py"
    return test_file or any(part in ("tests", "test") for part in parts[:-1])


def _shown(path: str) -> str:
    """A path as the report shows it: relative to the working folder when it is inside it."""
    relative = os.path.relpath(path)
    return path if relative.startswith("..") else relative


# ---------------------------------------------------------------- what functions were given


def observed_params(raw: Mapping[str, Any]) -> dict[str, dict[int, dict[str, str]]]:
    """By resolved path, then a jitted function's first line: each parameter the run saw hold
    an array on every call ("array") or a list, tuple, dict or other pytree ("container").
    JAX names a pytree argument's leaves `name[0]`, `name['w']`, `name.field`."""
    found: dict[str, dict[int, dict[str, str]]] = {}
    for entry in raw.get("traces", {}).values():
        kinds: dict[str, set[str]] = {}
        for signature in entry.get("signatures", []):
            names, types = signature.get("args", []), signature.get("types", [])
            if len(names) != len(types):
                continue
            for name in names:
                base = re.split(r"[\[.]", name, maxsplit=1)[0]
                if base.isidentifier():
                    kinds.setdefault(base, set()).add("array" if base == name else "container")
        params = {name: kind.pop() for name, kind in kinds.items() if len(kind) == 1}
        if params:
            found.setdefault(entry["path"], {})[entry["line"]] = params
    return found


# ---------------------------------------------------------------- traces


def _from_traces(entry: Mapping[str, Any]) -> Iterator[Seen]:
    count, fresh = entry["count"], entry.get("new_functions", 0)
    name, path, line = entry["name"], entry["path"], entry["line"]
    shown = "a lambda" if name == "<lambda>" else f"`{name}`"
    near = (line, line + 1, *(site[1] for site in entry.get("call_sites", []) if site[0] == path))
    details = {
        "function": name,
        "traces": count,
        "new_function_objects": fresh,
        "signatures": entry.get("signatures", []),
        "call_sites": entry.get("call_sites", []),
    }
    if _fresh_in_place(entry.get("log", [])):
        yield Seen(
            "JAX302",
            "fresh-function",
            path,
            line,
            count,
            f"traced and compiled {count} times, each time for a new function object",
            f"`jax.jit` of {shown} traced and compiled {count} times in one run: each call "
            f"made a new function object, which misses JAX's cache",
            near,
            details=details,
        )
        return
    reasons = [_reason(r) for r in entry.get("reasons", [])]
    needless = [r for r in reasons if not r.startswith("argument types")]
    log = entry.get("log", [])
    in_project = sum(1 for site, *_ in log if site and not in_tests(site[0]))
    unbounded = any(_unbounded(r) for r in reasons)
    if in_project >= MANY_TRACES or (unbounded and _retraced_in_place(log)):
        why = _joined(needless or reasons)
        yield Seen(
            "JAX308",
            "recompiles",
            path,
            line,
            count,
            f"compiled {count} times" + (f": {why}" if why else ""),
            f"jitted {shown} was traced and compiled {count} times in one run"
            + (f": {why}" if why else "")
            + f"; {_advice(needless or reasons)}",
            near,
            details={**details, "reasons": reasons},
        )


def _unbounded(reason: str) -> bool:
    """A retrace whose cause takes a new value on every step rather than one per configuration:
    a float static argument (a decaying step size, a temperature), a static object that hashes
    by identity (new on each call), a Python scalar turned array, a changed tracing context. A
    static int, string or tuple (a size, a depth, a mode) compiles once per configuration: a
    sweep over a few of them is how static arguments are meant to be used."""
    if "Python scalar" in reason or "tracing context" in reason or "object on each call" in reason:
        return True
    static = re.match(r"static argument \S+ changed: (?P<before>.*) → (?P<now>.*)$", reason)
    return static is not None and any(_is_float(static[part]) for part in ("before", "now"))


def _is_float(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return not text.lstrip("-").isdigit()


def _fresh_in_place(log: list[list[Any]]) -> bool:
    """Did one call site trace the function at least twice, each time as a new function object
    (`jax.jit(lambda ...)(x)` in a loop, a jit made per call of a step)? Tests that each jit
    the same function once compile apart by design."""
    fresh: dict[str, int] = {}
    for site, _, new, *_ in (entry + [False] for entry in log):
        if new and site and not in_tests(site[0]):
            where = repr(site)
            fresh[where] = fresh.get(where, 0) + 1
            if fresh[where] >= 2:
                return True
    return False


def _retraced_in_place(log: list[list[Any]]) -> bool:
    """Did one call site trace the function again with the argument types it traced it with
    before: at least twice (a new static value, a changed config: three compiles), or once when
    only a Python scalar became an array or back (`decay(x, 0.5)`, then `decay(x, rate)` with
    `rate` an array from the second step on)?

    Calls from different places (a test passing Python numbers, the library passing arrays
    under `vmap`) compile apart by design; so do new shapes.
    """
    previous: dict[str, list[str]] = {}
    same_types: dict[str, int] = {}
    for site, types, *_ in log:
        if not site or in_tests(site[0]):
            continue
        where = repr(site)
        before = previous.get(where)
        previous[where] = types
        if before is None:
            continue
        if types == before:
            same_types[where] = same_types.get(where, 0) + 1
            if same_types[where] >= NEEDLESS_TRACES - 1:
                return True
        elif [t.rstrip("~") for t in types] == [t.rstrip("~") for t in before]:
            return True  # only weak types changed
    return False


def _reason(text: str) -> str:
    """One cache-miss explanation of JAX's, shortened to what changed: `what: example`."""
    static = _STATIC.search(text)
    if static:
        where = static["path"]
        named = _KEY_NAME.search(where)
        index = _INDEX.search(where)
        argument = f"`{named[1]}`" if named else (f"#{index[1]}" if index else where)
        before, now = _OBJECT.sub(r"`\1`", static["before"]), _OBJECT.sub(r"`\1`", static["now"])
        if before == now:  # two objects of a class that hashes by identity
            return (
                f"static argument {argument} is a new {now} object on each call: one compile each"
            )
        return f"static argument {argument} changed: {before} → {now}"
    weak = _WEAK.search(text)
    if weak:
        name = weak["name"]
        return f"argument `{name}` switched between a Python scalar and an array: {weak['now']}"
    typed = _TYPE.search(text)
    if typed:
        return f"argument types changed: `{typed['name']}` {typed['before']} → {typed['now']}"
    if "Tracing context" in text:
        return "the tracing context changed (a config option or context manager)"
    if "different input pytree" in text:
        return "the structure of an argument changed"
    return "argument types changed"


def _joined(reasons: list[str]) -> str:
    """`static argument `lr` changed (0.5 → 0.25, …)`: reasons of one kind folded."""
    kinds: dict[str, list[str]] = {}
    for reason in reasons:
        head, _, example = reason.partition(": ")
        kinds.setdefault(head, []).append(example)
    parts = []
    for head, examples in kinds.items():
        shown = ", ".join(e for e in examples[:1] if e) + (", …" if len(examples) > 1 else "")
        parts.append(f"{head} ({shown})" if shown else head)
    return "; ".join(parts[:3])


def _advice(reasons: list[str]) -> str:
    """What to do about the commonest cause."""
    if any("object on each call" in r for r in reasons):
        return (
            "a static object hashes by identity unless its class says otherwise: give it "
            "value equality (a frozen dataclass), or pass its arrays as traced arguments"
        )
    if any(r.startswith("static argument") for r in reasons):
        return (
            "a static argument compiles once per value: pass a value that changes as a traced "
            "argument (drop it from static_argnames), or keep its values few"
        )
    if any("Python scalar" in r for r in reasons):
        return "pass it as an array (or as a Python scalar) on every call, not both"
    return "keep argument shapes and dtypes fixed across calls (pad or bucket them)"


# ---------------------------------------------------------------- keys


def _from_reuse(entry: Mapping[str, Any]) -> list[Seen]:
    first, second = entry["first"], entry["second"]
    apis = f"`jax.random.{entry['first_api']}`", f"`jax.random.{entry['second_api']}`"
    details = {
        "first_use": first,
        "second_use": second,
        "first_api": entry["first_api"],
        "second_api": entry["second_api"],
        "traced": entry.get("traced", False),
        "times": entry["count"],
    }
    split = next(
        (i for i, (a, b) in enumerate(zip(first, second, strict=False)) if a[:2] != b[:2]),
        None,
    )
    if split is None or (len(first) != len(second) and split >= min(len(first), len(second))):
        path, line = second[-1][0], second[-1][1]
        return [
            Seen(
                "JAX502",
                "key-in-loop",
                path,
                line,
                entry["count"],
                f"the same key drawn from again on a later pass ({entry['count'] + 1} draws)",
                f"this draw used the same PRNG key on {entry['count'] + 1} passes in one run: "
                f"every pass got the same random numbers",
                (line,),
                details=details,
            )
        ]
    here, before = second[split], first[split]
    deeper = len(first) > split + 1 or len(second) > split + 1
    if deeper and (in_tests(here[0]) or in_tests(before[0])):
        return []  # a test fed one key to the code under test twice: the reuse is the point
    where = f"line {before[1]}" if before[0] == here[0] else f"{_shown(before[0])}:{before[1]}"
    near = {frame[1] for frame in (*first, *second) if frame[0] == here[0]}
    return [
        Seen(
            "JAX501",
            "key-reuse",
            here[0],
            here[1],
            entry["count"],
            f"the key {apis[0]} consumed at {where} was consumed again here by {apis[1]}",
            f"a PRNG key already consumed by {apis[0]} (reached from {where}) was consumed "
            f"again by {apis[1]} at run time: the two draws are correlated",
            tuple(sorted(near)),
            details=details,
        )
    ]


# ---------------------------------------------------------------- leaks and dtypes


def _from_leak(entry: Mapping[str, Any]) -> Seen:
    name, created = entry["function"], entry.get("created")
    made = f" (made on line {created[1]})" if created and created[0] == entry["path"] else ""
    if entry.get("how") == "used":
        used = entry.get("used")
        at = f" at {_shown(used[0])}:{used[1]}" if used else ""
        what = f"a tracer of `{name}`{made} escaped its trace and was used later{at}"
    else:
        what = f"a tracer of `{name}`{made} outlived its trace: something kept a reference"
    return Seen(
        "JAX202",
        "tracer-leak",
        entry["path"],
        entry["line"],
        entry.get("count", 1),
        what,
        f"{what} (UnexpectedTracerError when it is used)",
        (entry["line"],),
        in_function=True,
        details={k: entry[k] for k in ("function", "created", "used", "type", "how") if k in entry},
    )


def _from_float64(entry: Mapping[str, Any]) -> Seen:
    api = f"`{entry['api']}`" if entry.get("api") else "a call"
    times = f" ({entry['count']} times)" if entry["count"] > 1 else ""
    return Seen(
        "JAX401",
        "float64",
        entry["path"],
        entry["line"],
        entry["count"],
        f"{api} asked for {entry['dtype']} and got float32{times}",
        f"{api} asked JAX for {entry['dtype']} at run time and silently got float32{times}: "
        f"jax_enable_x64 was off",
        (entry["line"],),
        details={"dtype": entry["dtype"], "api": entry.get("api", "")},
    )
