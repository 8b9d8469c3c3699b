"""PRNG keys through a function: which places hold which keys, where each is consumed, and the
reuses that follow — a key consumed twice on one path (JAX501), a key consumed unchanged on every
iteration of a loop (JAX502).

Flow-sensitive over `ast`, per function and for the module's top level. Every value a place
(`key`, `state.rng`, `keys[0]`) holds is an abstract object; a consumer (a `jax.random` sampler,
`split`, a function of the module that consumes its key parameter, a `key=` argument) consumes
the objects of its key argument. Branches merge: an object consumed in one arm only is "maybe"
consumed, which is reported again only at the nesting depth of that merge (two uses under two
unrelated `if`s may never both run). Loops: a consumption of an object made before the loop,
whose place still holds it at the back edge, repeats every iteration.
"""

from __future__ import annotations

import ast
import bisect
import builtins
import functools
import itertools
import re
import weakref
from collections import Counter
from collections.abc import Callable, Collection, Container, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import cast

from jaxlint.analysis.alternatives import Selections
from jaxlint.analysis.ast_walk import own_nodes, walk_ast
from jaxlint.analysis.names import (
    ImportTable,
    absolute_module,
    ast_int_literal,
    ast_target_names,
    dotted_ast,
)
from jaxlint.analysis.project_view import ask_consumer
from jaxlint.analysis.scope import (
    FORWARDED,
    OBJECT_CONSTRUCTORS,
    ClassInfo,
    FunctionInfo,
    KeyConsumerSummary,
    ModuleIndex,
    imports_in,
    local_bindings_of,
)
from jaxlint.diagnostics import Span

RANDOM = "jax.random."
MAKERS = frozenset({"jax.random.PRNGKey", "jax.random.key", "jax.random.wrap_key_data"})
SPLIT = "jax.random.split"
PERMUTATION = "jax.random.permutation"
KNOWN, NAMED, WEAK = "known", "named", "weak"  # how sure a consumption is
_NOTHING: frozenset[int] = frozenset()  # the objects of a value that cannot be a key
# calls whose results are never keys (arrays, numbers, text)
NO_KEYS = ("jax.numpy.", "numpy.", "jax.lax.", "jax.nn.", "math.", "builtins.")
FOLD_IN = "jax.random.fold_in"
# the initializer factories (each returns `init(key, shape, dtype)`)
INITIALIZERS = ("jax.nn.initializers.", "flax.linen.initializers.", "flax.nnx.initializers.")
# jax.random functions that take a key without consuming it (fold_in derives a new key)
NOT_CONSUMING = MAKERS | {
    "jax.random.fold_in",
    "jax.random.clone",
    "jax.random.key_data",
    "jax.random.key_impl",
    "jax.random.default_prng_impl",
    "jax.random.PRNGKeyArray",
    "jax.random.KeyArray",
}
KEY_RESULTS = MAKERS | {SPLIT, "jax.random.fold_in", "jax.random.clone"}
# loop primitives: (position of the body function, how its carry comes back)
# lax calls that run one of their functions, on the keys held before the call
BRANCHINGS = frozenset({"jax.lax.cond", "jax.lax.switch"})
LOOP_PRIMITIVES = {
    "jax.lax.scan": (0, "scan"),
    "jax.lax.fori_loop": (2, "fori"),
    "jax.lax.while_loop": (1, "while"),
    "jax.lax.map": (0, "map"),
}
VMAP = "jax.vmap"
TRANSFORMS = frozenset(
    {
        "jax.jit",
        "jax.vmap",
        "jax.grad",
        "jax.value_and_grad",
        "jax.checkpoint",
        "jax.named_call",
        "equinox.filter_jit",
        "equinox.filter_vmap",
        "equinox.filter_grad",
        "equinox.filter_value_and_grad",
    }
)
# a key passed under one of these keyword names is consumed by the callee
KEY_KEYWORDS = frozenset(
    {"key", "rng", "rng_key", "prng_key", "prngkey", "random_key", "dropout_rng", "rngs"}
)
# the name of a place that holds a key (`key`, `rng`, `subkey`, `dropout_rng`, `k1`)
KEY_NAME = re.compile(r"(?i)(key|rng)|^k\d*$")
# builtins whose `key=` is a sort key
SORTING = frozenset({"sorted", "min", "max", "sort", "groupby", "nlargest", "nsmallest", "heapify"})
# callees that store what they are given instead of consuming it
STORING = frozenset(
    {
        "replace",
        "_replace",
        "create",
        "update",
        "append",
        "extend",
        "insert",
        "add",
        "put",
        "setdefault",
        "dict",
        "partial",
        "set",
        "save",
        "log",
        "print",
    }
)
# methods that look a key up, report or copy it, never draw from it (`cache.get(key)`)
LOOKUPS = frozenset(
    {
        "get",
        "pop",
        "index",
        "count",
        "remove",
        "discard",
        "copy",
        "debug",
        "info",
        "warning",
        "error",
        "exception",
        "format",
        "write",
        "send",
        "register",
    }
)
# a check of a key (`is_prng_key(key)`, `_check_key(key)`), not a draw from it
PREDICATE = re.compile(r"_*(?:is|has|check|assert|validate|ensure)(?:_|[A-Z]|$)")
# a method named for drawing (`vardist.sample(w, key)`, `target.reference_samples(1, key=key)`,
# `flow.sample_and_log_prob(key)`, `dist.rsample(key)`): given a key, it draws from it
SAMPLER = re.compile(r"_*(?:r?sample|draw)(?:_\w+)?|\w+_samples?")
# libraries whose classes consume a `key=` at construction (`eqx.nn.Linear(3, 4, key=k)`)
CONSUMING_LIBRARIES = (
    "equinox.",
    "flax.",
    "haiku.",
    "penzai.",
    "numpyro.",
    "distrax.",
    "tensorflow_probability.",
)
# the same key to two calls of these lines them up on purpose: `x` and `y` permuted alike, a
# numpyro model and its guide seeded alike (their plates subsample the same indices)
ALIGNED = frozenset({PERMUTATION, "numpyro.handlers.seed"})
# what makes a key (or a stream of keys) from a seed; an `nnx.Rngs` derives its streams with
# `fold_in`, so its numbers are not those of a key made from the same seed
NNX_RNGS = "flax.nnx.Rngs"
SEEDERS = frozenset({"jax.random.PRNGKey", "jax.random.key", NNX_RNGS})
TEST_FRAMEWORKS = ("pytest", "unittest", "absl.testing", "hypothesis")
TIME_CALLS = frozenset({"time.time", "time.time_ns", "time.perf_counter", "time.monotonic"})
# text of a consumer that is not a `jax.random` call: a key keyword, linen's `init`/`rngs={}`
_KEYWORD_CONSUMER = r"\b(?:key|rng|rng_key|prng_key|prngkey|random_key|dropout_rng)\s*=(?!=)"
_LOOP_TEXT = ("for ", "while ", "scan(", "fori_loop(", "while_loop(", "map(")
# a call handed a key by position (`env.step(key, s, a)`, `trainer(rng, n)`), on one line —
# not to a callee `_consumed_arguments` never counts as a weak consumer (a builtin, a class, a
# lookup or store, a predicate: `d.get(key)`, `isinstance(key, str)`, `Node(key)`)
_KEY_LIKE = r"\w*(?:key|rng)\w*|k\d*"  # an argument named like a key (as `KEY_NAME`)
_NEVER_WEAK = sorted(
    {n for n in dir(builtins) if n[:1].islower()} | SORTING | STORING | LOOKUPS | {"apply"}
)
_POSITIONAL_CONSUMER = (
    rf"\b(?!(?:{'|'.join(_NEVER_WEAK)})\s*\()"
    r"(?![A-Z])(?!_*(?:is|has|check|assert|validate|ensure)(?:_|[A-Z]|\s*\())"
    rf"\w+\s*\((?:[^()\n]*?,)?\s*(?:{_KEY_LIKE})\s*[,)]"
)
_OTHER_CONSUMERS = (
    _KEYWORD_CONSUMER
    + r"|\.init\s*\(|\brngs\s*=\s*\{|import[^\n]*random|\bRngs\s*\(\s*\w*[a-z_]\w*\s*[,)]|"
    + r"initializers\.\w+\s*\([^()\n]*\)\s*\(|"
    + _POSITIONAL_CONSUMER
)
_OTHER_CONSUMERS_RE = re.compile(_OTHER_CONSUMERS)


KeyConsumer = KeyConsumerSummary


@dataclass(frozen=True)
class KeyFinding:
    """One reuse: JAX501 (consumed twice) or JAX502 (consumed unchanged in a loop)."""

    code: str
    node: ast.Call  # the anchor: the reusing call, or a key made from a constant seed
    key: ast.expr | None  # the key argument at the anchor
    message: str
    first: ast.Call | None = None  # JAX501: the earlier consumer
    first_key: ast.expr | None = None  # JAX501: the key argument of the earlier consumer
    loop: ast.AST | None = None  # JAX502: the loop whose iterations share the key
    consumers: int = 2  # how many calls consume this key (JAX502: per iteration)
    # JAX501: `first` ran in the previous iteration of a loop (it comes later in the body)
    carried: bool = False
    # JAX502: the loop's integer index, when folding it into the key makes every iteration's
    # key distinct (the loop is not inside another loop the key is also unchanged in)
    fold_in_index: str | None = None
    # the place holds an integer seed, not a key (`Dense(seed=seed)` twice): no key to split
    seed: bool = False
    # JAX501: the place holds a tree of keys a `tree_map` consumed leaf by leaf: no one key
    tree: bool = False

    @property
    def key_name(self) -> str | None:
        """The name the anchor passes its key as (`key` of `normal(key)`), when it is one."""
        return self.key.id if isinstance(self.key, ast.Name) else None

    @property
    def first_key_name(self) -> str | None:
        """JAX501: the name the earlier consumer passes its key as, when it is one."""
        return self.first_key.id if isinstance(self.first_key, ast.Name) else None

    @property
    def first_line(self) -> int | None:
        """JAX501: the line of the earlier consumer."""
        return self.first.lineno if self.first is not None else None

    @property
    def in_closure(self) -> bool:
        """Does a consumer draw from the key inside a local function it calls, which closes
        over it (`noise(x.shape)`): no key argument there to replace."""
        return isinstance(self.key, ClosureKey) or isinstance(self.first_key, ClosureKey)


def _default_when_none(function: ast.AST, name: str, value: ast.expr) -> bool:
    """Is the parameter `name` (default None) bound to `value` under `if name is None:`, as a
    default callable is (`if predict_fn is None: predict_fn = lambda x: ...`)?"""
    for node in walk_ast(function):
        if isinstance(node, ast.If) and _is_none_test(node.test, name):
            return any(isinstance(s, ast.Assign) and s.value is value for s in node.body)
    return False


def _is_none_test(test: ast.expr, name: str) -> bool:
    """Is `test` `name is None`?"""
    return _compared_to_none(test, ast.Is) == name


def _compared_to_none(test: ast.expr, operator: type) -> str | None:
    """The name `test` compares with None by `operator` (`x is None`: `ast.Is`), if it does."""
    if (
        isinstance(test, ast.Compare)
        and len(test.ops) == 1
        and isinstance(test.ops[0], operator)
        and isinstance(test.left, ast.Name)
        and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value is None
    ):
        return test.left.id
    return None


def _subject(place: str, key: ast.expr | None, call: ast.Call) -> str:
    """How a finding names its key: `key`, or, drawn inside a local function the call runs,
    `key` (drawn inside `jitter`, which closes over it)."""
    if isinstance(key, ClosureKey):
        return f"`{place}` (drawn inside `{dotted_ast(call.func)}`, which closes over it)"
    return f"`{place}`"


class ClosureKey(ast.Name):
    """The key a call of a local function draws from through the name it closes over: the
    call has no such argument."""


@dataclass(eq=False)
class _Use:
    node: ast.Call
    key: ast.expr
    via: str
    definite: bool
    depth: int  # for a maybe use: the nesting depth of the merge that made it maybe
    # a `key=` to a callee jaxlint cannot see (it may only `fold_in` named streams): a reuse
    # needs one consumer that is not weak, and loops and summaries ignore weak ones
    weak: bool = False


@dataclass(eq=False)
class _State:
    places: dict[str, frozenset[int]]
    uses: dict[int, _Use]
    depth: int = 0

    def copy(self, deeper: int = 0) -> _State:
        return _State(dict(self.places), dict(self.uses), self.depth + deeper)


@dataclass(eq=False)
class _Loop:
    level: int
    node: ast.AST
    events: list[tuple[str, int, ast.Call, ast.expr]] = field(default_factory=list)
    continues: list[_State] = field(default_factory=list)
    breaks: list[_State] = field(default_factory=list)
    closure: bool = False  # a loop primitive's body: the outer objects can never be rebound
    leaves: bool = False  # a `tree_map` lambda: one iteration per leaf of the tree


class KeyFlow:
    """The key analysis of one module: findings, and which parameters each function consumes."""

    def __init__(self, index: ModuleIndex) -> None:
        # the index memoizes its flow: a strong reference back would make every module's tree
        # garbage only the cyclic collector can free
        self._index = weakref.ref(index)
        self.findings: dict[tuple[str, int], KeyFinding] = {}
        self._consumed: dict[int, frozenset[str]] = {}
        self._guards: dict[int, tuple[tuple[str, str], ...]] = {}
        self._weak: dict[int, frozenset[str]] = {}
        self._summaries: dict[tuple[int, int], KeyConsumer] = {}
        self._running: set[int] = set()
        self._next = 0
        self.birth: dict[int, int] = {}  # object → loop level it was made at
        self.parent: dict[int, tuple[int, str]] = {}  # element object → (parent, suffix)
        self._elements: dict[tuple[int, str], int] = {}
        self.items: dict[int, list[frozenset[int]]] = {}  # tuple object → its items' objects
        # dict display object → `['w']` → what the display put there (`{"w": key, "b": key}`)
        self.members: dict[int, dict[str, frozenset[int]]] = {}
        self.seeded: dict[int, tuple[ast.Call, _Loop]] = {}  # key made from a loop-invariant seed
        self._constant_seeds: dict[int, ast.Call | None] = {}  # see `constant_seed`
        self.reported: set[int] = set()
        # object → where the last reuse of it reported by the JAX501 check was: a later one is
        # reported too (a third draw from one key), an earlier one (a loop's body walked
        # again) is not
        self.reported_at: dict[int, tuple[int, int]] = {}
        self.keys: set[int] = set()  # objects known to be keys
        # a key `fold_in` derived → the names its data reads, and what they held
        self.folded: dict[int, list[tuple[str, frozenset[int]]]] = {}
        # (object, loop) → how many calls in that loop (or outside loops: 0) consume it: a key
        # that reaches two sibling loops (the first may not run) has each loop's consumers
        self.consumers: dict[tuple[int, int], int] = {}
        self.closures_walked: set[int] = set()  # local functions walked for the keys they draw
        self._objects: dict[tuple[str, int], frozenset[int]] = {}
        self.candidates: set[int] = set()  # functions that may consume a key (by their text)

    @property
    def index(self) -> ModuleIndex:
        index = self._index()
        assert index is not None, "a module's key flow outlived its index"
        return index

    def new(self, level: int) -> int:
        self._next += 1
        self.birth[self._next] = level
        return self._next

    def element(self, parent: int, suffix: str) -> frozenset[int]:
        items = self.items.get(parent)
        if items is not None and suffix.startswith("[") and suffix[1:-1].isdigit():
            position = int(suffix[1:-1])
            if position < len(items):
                return items[position]
        members = self.members.get(parent)
        if members is not None and suffix in members:
            return members[suffix]
        made = self._elements.get((parent, suffix))
        if made is None:
            made = self.new(self.birth[parent])
            self.parent[made] = (parent, suffix)
            self._elements[(parent, suffix)] = made
            if parent in self.keys:
                self.keys.add(made)
        return frozenset({made})

    def run_module(self) -> None:
        text = self.index.text
        if "random" not in text and "key" not in text and "rng" not in text:
            return
        direct, tokens = _consumer_text(self.index)
        self.candidates, findable = _may_consume(self.index, direct, tokens)
        _Walker(self, None, self.index.imports).run(self.index.tree.body, [])
        for function in self.index.functions:
            if id(function) in findable:  # the others run when a caller asks what they consume
                self.consumed_params(function)
        for class_info in self.index.classes.values():
            self._frozen_attribute_keys(class_info)
        if "def " in text and ("PRNGKey(" in text or "key(" in text):
            for function in self.index.functions:
                self._default_keys(function)

    def _default_keys(self, function: FunctionInfo) -> None:
        """A key made as a parameter's default (`def randu(shape, key=PRNGKey(randint(1, 5)))`)
        is made once, when the `def` runs: every call that leaves the key out draws the same
        numbers. Reported where the function consumes the key and the default is meant to vary
        (its seed comes from Python's or NumPy's randomness or the clock) or a call in the module
        leaves it out; a default no call relies on is a harmless fallback."""
        node = function.node
        if isinstance(node, ast.Lambda):
            return
        arguments = node.args
        positional = [*arguments.posonlyargs, *arguments.args]
        with_defaults = positional[len(positional) - len(arguments.defaults) :]
        pairs = list(zip(with_defaults, arguments.defaults, strict=True))
        pairs += [
            (a, d) for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True) if d
        ]
        imports = self.index.imports
        for argument, default in pairs:
            if not (
                isinstance(default, ast.Call)
                and _public(imports.resolve(dotted_ast(default.func)) or "")
                in ("jax.random.PRNGKey", "jax.random.key")
            ):
                continue
            name = argument.arg
            if name not in self.consumed_params(function):
                continue
            varying = any(
                isinstance(c, ast.Call)
                and (imports.resolve(dotted_ast(c.func)) or "").startswith(
                    ("random.", "numpy.random.", "time.")
                )
                for c in walk_ast(default)
            )
            position = positional.index(argument) if argument in positional else None
            if not varying and not self._called_without(function, name, position):
                continue
            consumer = _first_draw(function, name, imports)
            self.add(
                KeyFinding(
                    "JAX502",
                    consumer[0] if consumer else default,
                    consumer[1] if consumer else None,
                    f"the default of `{name}` (line {default.lineno}) is made once, when "
                    f"`{function.name}` is defined"
                    + (", from a seed drawn then" if varying else "")
                    + f": every call that leaves `{name}` out draws the same random numbers; "
                    f"default to None and require a key (or pass one at every call)",
                )
            )

    def _called_without(self, function: FunctionInfo, name: str, position: int | None) -> bool:
        """Does a call of the module's `function` (by its name) leave the parameter out?"""
        if function.parent is not None or function.class_info is not None:
            return False  # a method or a nested function: its calls are not followed here
        for call in walk_ast(self.index.tree):
            if not (
                isinstance(call, ast.Call)
                and isinstance(call.func, ast.Name)
                and call.func.id == function.name
            ):
                continue
            if any(isinstance(a, ast.Starred) for a in call.args) or any(
                k.arg is None for k in call.keywords
            ):
                continue
            given = any(k.arg == name for k in call.keywords) or (
                position is not None and len(call.args) > position
            )
            if not given:
                return True
        return False

    def _frozen_attribute_keys(self, class_info: ClassInfo) -> None:
        """A key the constructor stores on the object (`self.rng = jax.random.PRNGKey(0)`)
        that no method ever replaces: every call of a method drawing from it draws the same
        numbers (a `shuffle()` called once per epoch applies one permutation every epoch)."""
        imports = self.index.imports
        class_node = class_info.node
        text = "\n".join(
            self.index.lines[class_node.lineno - 1 : class_node.end_lineno or class_node.lineno]
        )
        if not any(maker in text for maker in ("PRNGKey(", "key(", "split(")):
            return  # no key made in the class's text
        stored = _stored_keys(class_info, imports)
        if not stored:
            return
        rebound = _attributes_rebound_outside(self.index.tree, class_info, stored)
        for method in class_info.methods.values():
            if method.name in OBJECT_CONSTRUCTORS or not method.is_method:
                continue
            receiver = method.positional[0]
            for node, key in _draws(method.node, imports):
                if not (
                    isinstance(key, ast.Attribute)
                    and isinstance(key.value, ast.Name)
                    and key.value.id == receiver
                    and key.attr in stored
                    and key.attr not in rebound
                ):
                    continue
                if any(id(f.node) == id(node) for f in self.findings.values()):
                    continue
                self.add(
                    KeyFinding(
                        "JAX502",
                        node,
                        key,
                        f"`{receiver}.{key.attr}` is made once, in "
                        f"`{stored[key.attr]}`, and never advanced: every call of "
                        f"`{method.name}` draws the same random numbers; split it and store "
                        f"the new key (`{receiver}.{key.attr}, sub = jax.random.split("
                        f"{receiver}.{key.attr})`), then draw from `sub`",
                    )
                )

    def consumed_params(self, function: FunctionInfo) -> frozenset[str]:
        """Parameters `function` consumes as keys (run once per function, findings included)."""
        key = id(function)
        if key in self._consumed:
            return self._consumed[key]
        if key in self._running:
            return frozenset()
        self._running.add(key)
        consumed: frozenset[str] = frozenset()
        body = function.node.body
        if isinstance(body, list) and id(function) in self.candidates:
            imports = imports_in(function, self.index.imports)
            walker = _Walker(self, function, imports)
            consumed = walker.run(body, list(function.params))
            self._guards[key] = walker.guards()
            self._weak[key] = walker.weakly_consumed() - consumed
        self._running.discard(key)
        self._consumed[key] = consumed
        return consumed

    def constant_seed(self, function: FunctionInfo) -> ast.Call | None:
        """The key maker of `function` that takes a literal seed (`jax.random.PRNGKey(0)`),
        when the function takes no key, makes its key only so (outside loops), draws from it
        and returns a value: each call returns the same draws for the same arguments."""
        if id(function) not in self._constant_seeds:
            self._constant_seeds[id(function)] = _constant_seed(function, self.index.imports)
        return self._constant_seeds[id(function)]

    def summary(self, function: FunctionInfo, shift: int = 0) -> KeyConsumer:
        """What a call of `function` does with its keys: its positional parameters (less the
        `shift` a method's `self` takes), those it consumes, (key, other) pairs for a key it
        uses only when the other is None (`if net is None: net = ResNet(key=key)`), and those
        it hands only to weak consumers (a callee jaxlint cannot see), with `**` when it takes
        no key parameter but hands its `**kwargs` on (a `key=` given to it may be consumed
        there)."""
        slot = (id(function), shift)
        if slot not in self._summaries:
            consumed = self.consumed_params(function)
            weak = sorted(self._weak.get(id(function), ()))
            if (
                not KEY_KEYWORDS & set(function.params)
                and _forwards_kwargs(function.node)
                and not self._forwards_to_bases_taking_no_key(function)
            ):
                weak.append(FORWARDED)
            self._summaries[slot] = (
                tuple(function.positional[shift:]),
                tuple(sorted(consumed)),
                self._guards.get(id(function), ()),
                tuple(weak),
            )
        return self._summaries[slot]

    def _forwards_to_bases_taking_no_key(self, function: FunctionInfo) -> bool:
        """Does `function` hand its `**kwargs` only to `super().__init__(...)` (or `super()`'s
        method of its own name), and does no base class take a key there: a base of this
        module or of the project whose method consumes, guards and forwards no key keyword, or
        one known to take none (`equinox.Module`, `abc.ABC`, `object`)? Then a `key=` given
        to it is drawn from nowhere (generax's `Squeeze(shape, key=key)`)."""
        owner = function.class_info
        if owner is None or not _forwards_only_to_super(function):
            return False
        return bool(owner.base_names) and all(
            self._base_takes_no_key(base, function.name, owner.node.lineno)
            for base in owner.base_names
        )

    def _base_takes_no_key(self, base: str, method: str, line: int) -> bool:
        """Does the base class `base` (named in a class defined on `line`) take no key in
        `method`? See `_forwards_to_bases_taking_no_key`."""
        index = self.index
        imports = index.imports
        if imports.resolve(base) in INERT_BASES or base in INERT_BASES:
            return True
        local = index.classes.get(base)
        if local is not None:
            found = local.all_methods().get(method)
            if found is None:
                return all(
                    self._base_takes_no_key(b, method, local.node.lineno) for b in local.base_names
                )
            return _takes_no_key(self.summary(found, 1))
        if method != "__init__":
            return False  # the project summarises constructors only
        qualified = imports.resolve(base)
        own = (imports.package or "").partition(".")[0]
        packages = index.project_packages | ({own} if own else set())
        starred = _star_modules_before(index, line)
        names = [qualified] if qualified else [f"{m}.{base}" for m in starred]
        for name in names:
            if name.partition(".")[0] not in packages:
                continue
            summary = ask_consumer(index.key_consumers, name, key_keywords=True)
            if summary is not None:
                return _takes_no_key(summary)
        # a class of the project not listed takes no key; one found nowhere is unknown
        return bool(names) and all(n.partition(".")[0] in packages for n in names)

    def add(self, finding: KeyFinding, objects: frozenset[int] = frozenset()) -> None:
        slot = (finding.code, id(finding.node))
        if slot not in self.findings:
            self.findings[slot] = finding
            self._objects[slot] = objects

    def result(self) -> list[KeyFinding]:
        """Findings in source order; a call that repeats every iteration is JAX502 only."""
        looped = {id(f.node) for f in self.findings.values() if f.code == "JAX502"}
        kept = []
        for slot, finding in self.findings.items():
            if finding.code == "JAX501":
                if id(finding.node) in looped:
                    continue
                objects = self._objects[slot]
                count = max((n for (o, _), n in self.consumers.items() if o in objects), default=2)
                finding = replace(finding, consumers=count)
            kept.append(finding)
        return sorted(kept, key=lambda f: (f.node.lineno, f.node.col_offset, f.code))


def _module_flow(index: ModuleIndex) -> KeyFlow:
    def compute() -> KeyFlow:
        flow = KeyFlow(index)
        flow.run_module()
        return flow

    return index.memoized("prng-key-flow", compute)


def key_findings(index: ModuleIndex) -> list[KeyFinding]:
    """Every PRNG key reuse of the module (computed once per module)."""
    return index.memoized("prng-key-findings", lambda: _module_flow(index).result())


def key_consumers(index: ModuleIndex, module: str) -> dict[str, KeyConsumer]:
    """The module's functions (and classes, by `__init__`) that consume a key parameter or take
    one, by qualified name: what other modules of the project call them with (ProjectView)."""
    flow = _module_flow(index)
    found = {}
    for function in index.functions:
        if function.parent is not None or isinstance(function.node, ast.Lambda):
            continue
        owner = function.class_info
        if owner is not None and index.classes.get(owner.node.name) is not owner:
            continue  # a class nested in a function: no other module reaches it by name
        if (
            owner is not None
            and function.name != "__init__"
            and id(function) not in flow.candidates
            and not KEY_KEYWORDS & set(function.params)
        ):
            continue  # a method whose text draws from no key: other modules ask in vain
        shift = 0 if owner is None or "builtins.staticmethod" in function.decorator_names else 1
        summary = flow.summary(function, shift)
        # one that takes a key and draws nothing from it is listed too: its callers then know
        # (`ConditionalTransport(shape, key=key)` whose `__init__` ignores `key`)
        if any(summary[1:]) or KEY_KEYWORDS & set(function.params):
            if owner is None:
                found[f"{module}.{function.name}"] = summary
            elif function.name == "__init__":  # the class called makes an instance
                found[f"{module}.{owner.node.name}"] = summary
            else:  # `Genesis.create(...)`, or `self.get_key(key)` in a subclass elsewhere
                found[f"{module}.{owner.node.name}.{function.name}"] = summary
    return found


def _consumer_text(index: ModuleIndex) -> tuple[_ConsumerCalls, tuple[str, ...]]:
    """What a call consuming a key looks like in this module's text (`jr.normal(`,
    `jax.random.split(`, `normal(` imported from jax.random or a consumer imported from the
    project, a key keyword…), and substrings one of which every line holding one contains."""
    modules, functions, project_modules = [], [], []
    # modules of this module's own package (`from . import sampling`): `sampling.perturb(key,
    # x)` may call a consumer of theirs (asked of `imported` by name only: iterating it would
    # make every check depend on every consumer of the project)
    imports, imported, text = index.imports, index.key_consumers, index.text
    package = (imports.package or "").partition(".")[0]
    packages = index.project_packages | ({package} if package else set())
    # only a name of the project that the module calls is asked of the project (a re-export
    # in `__init__` or an import for an annotation leaves the module's analysis as it is
    # whatever the name does)
    for alias, target in imports.aliases.items():
        if target == "jax":
            modules.append(rf"{re.escape(alias)}\.random")
        elif target == "jax.random":
            modules.append(re.escape(alias))
        elif _public(target).startswith(RANDOM):
            functions.append(alias)
        elif "." in target:  # (a consumer is named `module.function`)
            if (
                target.partition(".")[0] in packages
                and _calls(text, alias)
                and ask_consumer(imported, target, key_keywords=False) is not None
            ):
                functions.append(alias)
            elif package and target.startswith(package + "."):
                project_modules.append(alias)
    module_aliases = [a for a, t in imports.aliases.items() if t == "jax.random"]
    tokens = (  # "key" and "rng" are in every `_KEYWORD_CONSUMER` and `_POSITIONAL_CONSUMER`
        "random",
        ".init",
        "key",
        "rng",
        *(a + "." for a in (*module_aliases, *project_modules)),
        *functions,
    )
    random_calls = rf"\b(?:{'|'.join(sorted(modules))})\.\w+\s*\(" if modules else ""
    calls = _ConsumerCalls(
        _compiled(random_calls), frozenset(project_modules), frozenset(functions)
    )
    return calls, tokens


_OPENS_CALL = re.compile(r"\s*\(")


def _calls(text: str, name: str) -> bool:
    """Does `text` call `name` (`name(`, `name (`, `x.name(`)? One search per name: a module
    imports a few dozen names, and a scan for every called name of the text costs more."""
    at = text.find(name)
    while at >= 0:
        end = at + len(name)
        before = text[at - 1] if at else " "
        if not (before.isalnum() or before == "_") and _OPENS_CALL.match(text, end):
            return True
        at = text.find(name, end)
    return False


@functools.lru_cache(maxsize=64)
def _compiled(pattern: str) -> re.Pattern[str] | None:
    return re.compile(pattern) if pattern else None


# `sampling.perturb(k1, x)` (a module of the project handed a key), `normal(` (a consumer
# imported by name): the name is looked up in the module's sets, not compiled into a pattern
_PROJECT_MODULE_CALL = re.compile(rf"\b(\w+)\.\w+\s*\((?:[^()\n]*?,)?\s*(?:{_KEY_LIKE})\s*[,)]")
_NAME_CALL = re.compile(r"\b(\w+)\s*\(")


@dataclass(frozen=True)
class _ConsumerCalls:
    """The consumer calls of one module's text: `_OTHER_CONSUMERS`, calls into `jax.random`
    by its module aliases, calls with a key into the module's `project_modules`, and calls of
    the consumers imported by name (`functions`), in that order of preference."""

    random_modules: re.Pattern[str] | None
    project_modules: frozenset[str]
    functions: frozenset[str]

    def count(self, line: str) -> int:
        """How many consumer calls `line` holds: as many as `findall` of the union of the
        four patterns would give (leftmost first, the earlier pattern on a tie)."""
        # (a pattern whose names the line does not hold is not searched)
        modules = self.project_modules if any(m in line for m in self.project_modules) else ()
        functions = self.functions if any(f in line for f in self.functions) else ()
        searches: list[Callable[[int], re.Match[str] | None]] = [
            lambda at: _OTHER_CONSUMERS_RE.search(line, at)
        ]
        random_modules = self.random_modules
        if random_modules is not None:
            searches.append(lambda at: random_modules.search(line, at))
        if modules:
            searches.append(lambda at: _first_of(_PROJECT_MODULE_CALL, line, at, modules))
        if functions:
            searches.append(lambda at: _first_of(_NAME_CALL, line, at, functions))
        # each pattern's next match from `at`, searched again only once `at` has passed it
        upcoming = [search(0) for search in searches]
        count, at = 0, 0
        while at <= len(line):
            for i, match in enumerate(upcoming):
                if match is not None and match.start() < at:
                    upcoming[i] = searches[i](at)
            found = [m for m in upcoming if m is not None]
            if not found:
                return count
            match = min(found, key=lambda m: m.start())  # `min` keeps the first of equals
            count += 1
            at = match.end() if match.end() > match.start() else match.start() + 1
        return count


def _first_of(
    pattern: re.Pattern[str], line: str, at: int, names: Collection[str]
) -> re.Match[str] | None:
    """The first match of `pattern` from `at` whose first group is one of `names` (no match
    of the others can hide one: a name starts each, and none holds a name and a call)."""
    if not names:
        return None
    for match in pattern.finditer(line, at):
        if match.group(1) in names:
            return match
    return None


# (first line, last line, function) of a function of the module
_Span = tuple[int, int, FunctionInfo]


def _may_consume(
    index: ModuleIndex, direct: _ConsumerCalls, tokens: tuple[str, ...]
) -> tuple[set[int], set[int]]:
    """Functions whose text calls a consumer, or (transitively) a function that may; and those
    of them that may hold a finding: two consumer calls, or one and a loop."""
    lines = index.lines
    text, starts = index.text, index.line_starts
    functions = [
        (f.start_line, f.end_line, f) for f in index.functions if not isinstance(f.node, ast.Lambda)
    ]

    def lines_with(needles: Iterable[str]) -> Counter[int]:
        """Line → how many of the needles it holds."""
        found: Counter[int] = Counter()
        for needle in needles:
            at = text.find(needle)
            while at >= 0:
                found[bisect.bisect_right(starts, at)] += 1
                at = text.find(needle, at + 1)
        return found

    def holding(numbers: Iterable[int], among: list[_Span]) -> list[_Span]:
        ordered = sorted(numbers)
        return [
            span
            for span in among
            if bisect.bisect_left(ordered, span[0]) < bisect.bisect_right(ordered, span[1])
        ]

    sites = Counter({n: direct.count(lines[n - 1]) for n in lines_with(tokens)})
    sites = +sites  # lines that only held a token, not a consumer, drop out
    found = holding(sites, functions)
    seen = {id(span[2]) for span in found}
    calls: Counter[int] = Counter()  # function → how many of the consuming functions it uses
    while found:
        # called, or handed to a transform (`jax.grad(loss)(p, key)`, `self._loss`)
        names = {span[2].name for span in found} | {  # a constructor is called by its class
            span[2].class_info.node.name
            for span in found
            if span[2].name == "__init__" and span[2].class_info is not None
        }
        found = []
        for span in functions:
            function = span[2]
            used = names & (function.loaded_names | function.loaded_attributes)
            if used:
                calls[id(function)] += len(used)
                if id(function) not in seen:
                    found.append(span)
        seen |= {id(span[2]) for span in found}
    numbers = sorted(sites)
    total = list(itertools.accumulate((sites[n] for n in numbers), initial=0))
    findable = {id(span[2]) for span in holding(lines_with(_LOOP_TEXT), functions)}
    for start, end, f in functions:
        low, high = bisect.bisect_left(numbers, start), bisect.bisect_right(numbers, end)
        if total[high] - total[low] >= 2 or calls[id(f)]:  # (one helper may be called twice)
            findable.add(id(f))
    return seen, findable & seen


class _Walker:
    """The flow of one function body (or the module's top level)."""

    def __init__(
        self,
        flow: KeyFlow,
        function: FunctionInfo | None,
        imports: ImportTable,
        loops: list[_Loop] | None = None,
    ) -> None:
        self.flow = flow
        self.function = function
        self.imports = imports
        self.loops: list[_Loop] = loops or []
        self.traced = function is not None and function.trace is not None
        self.entry: dict[str, int] = {}  # place never bound here → its object on entry
        self.params: dict[str, int] = {}
        self.returns: list[frozenset[int]] = []
        self.finals: list[_State] = []  # states at each `return`
        self.ends: list[_State] = []  # after `run`: the states the body can end in
        self.consumptions: list[tuple[str, int, ast.Call, ast.expr]] = []
        # every consumption, weak ones too, and the name that must be None for it to happen
        self.sites: list[tuple[int, ast.Call, str | None]] = []
        self.conditional: dict[int, str] = {}  # argument → the name (see `_bound`)
        self.targets: dict[int, ast.expr] = {}  # a call assigned to one target → that target
        self.halves: dict[int, int] = {}  # a call indexed with a constant → the index
        self.sizes: dict[str, int] = {}  # a name bound to a list or tuple display → its length
        self.instances: dict[str, str] = {}  # a name bound to an instance of a module class
        # names bound to an initializer (`jax.nn.initializers.he_uniform()`): does it draw?
        self.initializers: dict[str, bool] = {}
        self._dead: set[int] | None = None  # `jax.random` calls whose results nothing reads
        self._discarded: set[int] = set()  # calls that are statements of their own
        self._places: _Places | None = None  # the `if` arms and loops around each node
        self._selections: Selections | None = None  # the scope's `jnp.where`s, `lax.cond`s
        # `fold_in(PRNGKey(seed), 123)`: a key made only to derive another from
        self._folded_makers: set[int] = set()

    # -- places and objects ---------------------------------------------------------------

    def place_of(self, node: ast.AST) -> str | None:
        """`_place`, and a slice of a place whose bounds nothing in the function rebinds
        (`keys[0:ng]`, `keys[ng:2 * ng]`): the same text is the same keys. Not inside a loop,
        where the same text may name other keys on every iteration."""
        place = _place(node)
        if place is not None or self.loops or not isinstance(node, ast.Subscript):
            return place
        inner, bounds = _place(node.value), node.slice
        if inner is None or not isinstance(bounds, ast.Slice) or self.function is None:
            return None
        function = self.function.node
        if isinstance(function, ast.Lambda):
            return None
        parts = [b for b in (bounds.lower, bounds.upper, bounds.step) if b is not None]
        if not all(_slice_bound(part) for part in parts):
            return None
        names = {n.id for part in parts for n in walk_ast(part) if isinstance(n, ast.Name)}
        if names & self._bindings(function).keys():
            return None
        return f"{inner}[{ast.unparse(bounds)}]"

    def run(
        self, body: list[ast.stmt], params: list[str], state: _State | None = None
    ) -> frozenset[str]:
        """Walk `body`; the parameters whose entry objects were consumed."""
        state = state or _State({}, {})
        for name in params:
            self.params[name] = next(iter(self.fresh()))
            state.places[name] = frozenset({self.params[name]})
        end = self.block(body, state)
        finals = self.finals + ([end] if end is not None else [])
        self.ends = finals
        return frozenset(
            name
            for name, obj in self.params.items()
            if any(obj in s.uses and not s.uses[obj].weak for s in finals)
        )

    def weakly_consumed(self) -> frozenset[str]:
        """Parameters handed to any consumer, weak ones too."""
        handed = {obj for obj, _, _ in self.sites}
        return frozenset(name for name, obj in self.params.items() if obj in handed)

    def guards(self) -> tuple[tuple[str, str], ...]:
        """For each parameter handed to consumers (weak ones too) only under `if other is
        None:` (or the `else` of `if other is not None:`) for one other parameter: (parameter,
        other) — `if net is None: net = ResNet(key=key)` uses `key` only without a `net`."""
        handed = {o for o, _, _ in self.sites}
        if self.function is None or not handed & set(self.params.values()):
            return ()
        function, lines = self.function, self.flow.index.lines
        text = lines[function.start_line - 1 : function.end_line]
        tests_none = any("is None" in line or "is not None" in line for line in text)
        under = _none_guards(function.node, set(self.params)) if tests_none else {}
        found = []
        for name, obj in sorted(self.params.items()):
            sites = [
                under.get(id(call), frozenset()) | ({none_if} if none_if in self.params else set())
                for o, call, none_if in self.sites
                if o == obj
            ]
            common = frozenset.intersection(*sites) if sites else frozenset()
            if common:
                found.append((name, min(common)))
        return tuple(found)

    def lookup(self, state: _State, place: str) -> frozenset[int]:
        held = state.places.get(place)
        if held is not None:
            return held
        parent, suffix = _split_place(place)
        if parent is None:
            made = self.entry.get(place)
            if made is None:
                made = self.entry[place] = self.flow.new(0)
            return frozenset({made})
        return frozenset().union(
            *(self.flow.element(p, suffix) for p in self.lookup(state, parent))
        )

    def bind(self, state: _State, place: str, objects: frozenset[int]) -> None:
        for other in [p for p in state.places if p.startswith((place + ".", place + "["))]:
            del state.places[other]
        state.places[place] = objects

    def fresh(self) -> frozenset[int]:
        return frozenset({self.flow.new(self.loops[-1].level if self.loops else 0)})

    # -- statements -----------------------------------------------------------------------

    def block(self, body: list[ast.stmt], state: _State | None) -> _State | None:
        for statement in body:
            if state is None:
                return None
            state = self.statement(statement, state)
        return state

    def statement(self, node: ast.stmt, state: _State) -> _State | None:
        if isinstance(node, ast.Assign):
            if len(node.targets) == 1:
                self.targets[id(node.value)] = node.targets[0]
            # the value first, with the names as they were (`layer = layer.init(x, key=key)`
            # calls the method of what `layer` held)
            value = self.expr(node.value, state)
            for target in node.targets:
                if isinstance(target, ast.Name):
                    self.sizes.pop(target.id, None)
                    self.instances.pop(target.id, None)
                    self.initializers.pop(target.id, None)
                    made = node.value
                    if isinstance(made, (ast.List, ast.Tuple)):
                        self.sizes[target.id] = len(made.elts)
                    elif (draws := self._initializer(made)) is not None:
                        self.initializers[target.id] = draws
                    elif (
                        isinstance(made, ast.Call)
                        and isinstance(made.func, ast.Name)
                        and made.func.id in self.flow.index.classes
                    ):
                        self.instances[target.id] = made.func.id
            for target in node.targets:
                self.assign(target, node.value, value, state)
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
            if isinstance(node, ast.AnnAssign) and node.value is not None:
                self.targets[id(node.value)] = node.target
            if node.value is not None:
                value = self.expr(node.value, state)
                if isinstance(node, ast.AugAssign):
                    value = self.fresh()
                self.assign(node.target, node.value, value, state)
        elif isinstance(node, ast.Expr):
            self.expr(node.value, state)
        elif isinstance(node, ast.Return):
            if node.value is not None:
                self.returns.append(self.expr(node.value, state))
            self.finals.append(state)
            return None
        elif isinstance(node, ast.Raise):
            return None
        elif isinstance(node, ast.If):
            if isinstance(node.test, ast.Constant):  # `if False:` switched off: never runs
                return self.block(node.body if node.test.value else node.orelse, state)
            self.expr(node.test, state)
            arms = [self.block(node.body, state.copy(1)), self.block(node.orelse, state.copy(1))]
            return self.merge(arms, state.depth)
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
            return self.loop(node, state)
        elif isinstance(node, ast.Break):
            if self.loops:
                self.loops[-1].breaks.append(state)
            return None
        elif isinstance(node, ast.Continue):
            if self.loops:
                self.loops[-1].continues.append(state)
            return None
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                value = self.expr(item.context_expr, state)
                if item.optional_vars is not None:
                    self.assign(item.optional_vars, None, value, state)
            if any(_expects_raise(item.context_expr) for item in node.items):
                return state  # a test of an error: it stops early, perhaps before any use
            return self.block(node.body, state)
        elif isinstance(node, ast.Try) or type(node).__name__ == "TryStar":
            attempt = cast(ast.Try, node)  # `try`/`except*` (TryStar, 3.11+) has Try's fields
            body = self.block(attempt.body, state.copy(1))
            handlers = [self.block(h.body, state.copy(1)) for h in attempt.handlers]
            if body is not None:
                body = self.block(attempt.orelse, body)
            end = self.merge([body, *handlers], state.depth)
            final = getattr(node, "finalbody", [])
            return self.block(final, end) if final and end is not None else end
        elif type(node).__name__ == "Match":
            match = cast(ast.Match, node)  # told by its name above
            self.expr(match.subject, state)
            arms = [self.block(c.body, state.copy(1)) for c in match.cases]
            if not any(_is_wildcard(c.pattern) for c in match.cases):
                arms.append(state.copy(1))
            return self.merge(arms, state.depth)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for decorator in node.decorator_list:
                self.expr(decorator, state)
            self.bind(state, node.name, self.fresh())
        elif isinstance(node, ast.Delete):
            for target in node.targets:
                place = _place(target)
                if place is not None:
                    state.places.pop(place, None)
        elif isinstance(node, ast.Assert):
            self.expr(node.test, state)
        return state

    def assign(
        self,
        target: ast.expr,
        value_node: ast.expr | None,
        value: frozenset[int],
        state: _State,
    ) -> None:
        if isinstance(target, (ast.Tuple, ast.List)):
            starred = any(isinstance(e, ast.Starred) for e in target.elts)
            literal = (
                value_node.elts
                if isinstance(value_node, (ast.Tuple, ast.List))
                and not starred
                and len(value_node.elts) == len(target.elts)
                else None
            )
            for position, element in enumerate(target.elts):
                if isinstance(element, ast.Starred):
                    self.assign(element.value, None, self.fresh(), state)
                elif literal is not None:
                    self.assign(element, literal[position], self._items(value, position), state)
                elif starred and any(isinstance(e, ast.Starred) for e in target.elts[:position]):
                    self.assign(element, None, self.fresh(), state)
                else:
                    self.assign(element, None, self._items(value, position), state)
            return
        if isinstance(target, ast.Starred):
            self.assign(target.value, None, self.fresh(), state)
            return
        place = _place(target)
        if place is not None:
            self.bind(state, place, value)
        else:
            self.expr(target, state)

    def _items(self, value: frozenset[int], position: int) -> frozenset[int]:
        return frozenset().union(*(self.flow.element(o, f"[{position}]") for o in value))

    def merge(self, states: list[_State | None], depth: int) -> _State | None:
        live = [s for s in states if s is not None]
        if not live:
            return None
        if len(live) == 1:  # the other arms left the function or the loop
            merged = live[0].copy()
            merged.depth = depth
            return merged
        places: dict[str, frozenset[int]] = {}
        for place in {p for s in live for p in s.places}:
            places[place] = frozenset().union(*(self.lookup(s, place) for s in live))
        uses: dict[int, _Use] = {}
        for obj in {o for s in live for o in s.uses}:
            found = [s.uses[obj] for s in live if obj in s.uses]
            first = found[0]
            if len(found) == len(live) and all(u.definite for u in found):
                uses[obj] = first
            else:
                low = min([depth] + [u.depth for u in found if not u.definite])
                uses[obj] = _Use(first.node, first.key, first.via, False, low, first.weak)
        return _State(places, uses, depth)

    def loop(self, node: ast.For | ast.AsyncFor | ast.While, state: _State) -> _State | None:
        if not isinstance(node, ast.While):
            self.expr(node.iter, state)
        frame = _Loop(len(self.loops) + 1 + self._base_level(), node)
        self.loops.append(frame)
        entry = state.copy(1)
        if isinstance(node, ast.While):
            self.expr(node.test, entry)
        else:
            self.assign(node.target, None, self.fresh(), entry)
        end = self.block(node.body, entry)
        self.loops.pop()
        back = self.merge([end, *frame.continues], state.depth + 1)
        self._repeats(frame, back, state)
        self._carried_reuses(frame, back, state)
        after = self.merge([state.copy(), back], state.depth)
        if after is not None:
            # a key the loop leaves in a name belongs to the code after it: a later sibling
            # loop at the same depth must see it as made outside itself (`birth` is a depth)
            for held in after.places.values():
                for obj in held:
                    if self.flow.birth.get(obj, 0) >= frame.level:
                        self.flow.birth[obj] = frame.level - 1
        if node.orelse and after is not None:
            after = self.block(node.orelse, after)
        return self.merge([after, *frame.breaks], state.depth)

    def _base_level(self) -> int:
        return self.loops[0].level - 1 if self.loops else 0

    def _repeats(self, frame: _Loop, back: _State | None, before: _State) -> None:
        """Consumptions of keys made before the loop that the back edge still holds."""
        if back is None:
            return
        if _runs_once(frame.node, self.sizes):
            return
        for place, obj, call, key in frame.events:
            if (
                self._shuffles_loop_item(call, frame)
                or _seed_per_variant(call, key, frame)
                or _feeds_loop_item(call, frame.node)
                or _runs_each_variant(call, frame.node)
                or _retry_on_nothing(call, frame.node)
            ):
                continue
            if not frame.closure and obj not in back.uses:
                continue  # not consumed on a path that comes round again (it `break`s)
            if frame.closure or self._still_held(back, place, obj):
                self._report_repeat(call, key, place, frame, obj)

    def _result_unused(self, call: ast.Call) -> bool:
        """Is `call` a `jax.random` call whose result nothing reads (a bare statement, or bound
        to names this scope never reads: `k1, k2 = split(key)` with neither used), or a pure
        function's call on a line of its own? Then it drew nothing that is used, and a later
        consumer of its key shares no numbers with it."""
        if self._dead is None:
            function = self.function
            scope: ast.AST = function.node if function is not None else self.flow.index.tree
            self._dead = _unused_random_results(scope, self.imports)
            self._discarded = {
                id(n.value)
                for n in _statements(scope)
                if isinstance(n, ast.Expr) and isinstance(n.value, ast.Call)
            }
        return id(call) in self._dead or (
            id(call) in self._discarded and self._pure_function_call(call)
        )

    def _read_only_apart(self, first: ast.Call, second: ast.Call) -> bool:
        """Is `first` a `jax.random` call bound to names read only in arms of `if` statements
        whose other arm holds `second`? (`key_v, key_U = split(key)` read only in the `else`
        while the `if` arm draws from `key`): on the path through `second` it drew nothing that
        is used. Not when a loop around the `if` does not also run `first` again."""
        target = self.targets.get(id(first))
        if target is None or not (self.imports.resolve(dotted_ast(first.func)) or "").startswith(
            RANDOM
        ):
            return False
        names = _plain_names(target)
        if not names:
            return False
        if self._places is None:
            function = self.function
            scope: ast.AST = function.node if function is not None else self.flow.index.tree
            self._places = _Places(scope)
        places = self._places
        reads = [n for n in places.names if n.id in names and isinstance(n.ctx, ast.Load)]
        return bool(reads) and all(places.apart(read, second, first) for read in reads)

    def _pure_function_call(self, call: ast.Call) -> bool:
        """A call of a function of this module that returns a value and changes nothing
        outside (no attribute or item stores, no global): discarding its result (a smoke
        call, `loss(params, batch, key)` on its own line) discards all it drew."""
        callee = self._callee(call.func, self.imports.resolve(dotted_ast(call.func)) or "")
        if callee is None:
            return False
        node = callee[0].node
        returns = False
        for inner in walk_ast(node):
            if isinstance(inner, (ast.Global, ast.Nonlocal, ast.Yield, ast.YieldFrom)):
                return False
            if isinstance(inner, (ast.Attribute, ast.Subscript)) and isinstance(
                inner.ctx, (ast.Store, ast.Del)
            ):
                return False
            returns = returns or (isinstance(inner, ast.Return) and inner.value is not None)
        return returns or isinstance(node, ast.Lambda)

    def _carried_reuses(self, frame: _Loop, back: _State | None, before: _State) -> None:
        """A key the body consumes and the back edge carries to a consumer of the loop-carried
        key: `key, _ = split(key)` then `choice(key, n)` splits, on the next iteration, the key
        `choice` drew from (split it into `key, sub` and draw from `sub`)."""
        if back is None or _runs_once(frame.node, self.sizes):
            return
        for place, obj, call, key in frame.events:
            if obj not in self.lookup(before, place):
                continue  # not a key the place held when the loop began
            carried = self.lookup(back, place)
            if len(carried) != 1:
                continue
            (again,) = carried
            use = back.uses.get(again)
            if again == obj or again in self.flow.reported or use is None:
                continue
            if not use.definite or use.node is call:
                # consumed on some paths only; a weak use (a callee that may not draw) is
                # enough, as in straight-line code, since the loop-top consumer is known
                continue
            via = self.imports.resolve(dotted_ast(call.func)) or self._describe(call)
            if self._test_policy_allows(use.via, via):
                continue
            how = (
                f"split on line {use.node.lineno}"
                if use.via == SPLIT
                else f"consumed by `{use.via}` on line {use.node.lineno}"
            )
            self.flow.add(
                KeyFinding(
                    "JAX501",
                    call,
                    key,
                    f"`{place}` was already {how} in the previous iteration of the "
                    f"{_loop_kind(frame.node)}; using it again gives correlated random numbers; "
                    "split it into a new key and a subkey, and give the subkey to the consumer",
                    first=use.node,
                    first_key=use.key,
                    carried=True,
                ),
                frozenset({again}),
            )

    def _still_held(self, state: _State, place: str, obj: int) -> bool:
        """Does `place` hold `obj` again in `state` (for a key derived by `fold_in`: its parent
        key, and data made of the same values)?"""
        folded = self.flow.folded.get(obj)
        if folded is None:
            return self.lookup(state, place) == frozenset({obj})
        parent = self.flow.parent[obj][0]
        return self.lookup(state, place) == frozenset({parent}) and all(
            self.lookup(state, name) == held for name, held in folded
        )

    def _shuffles_loop_item(self, call: ast.Call, frame: _Loop) -> bool:
        """`[jr.permutation(key, a) for a in arrays]`: one permutation for aligned arrays, on
        purpose."""
        if self.imports.resolve(dotted_ast(call.func)) != PERMUTATION or len(call.args) < 2:
            return False
        shuffled = call.args[1]
        return isinstance(shuffled, ast.Name) and shuffled.id in _loop_targets(frame.node)

    def _report_repeat(
        self, call: ast.Call, key: ast.expr, place: str, frame: _Loop, obj: int
    ) -> None:
        kind = _loop_kind(frame.node)
        if frame.leaves:
            assert isinstance(frame.node, ast.Call)  # a `leaves` frame is a tree_map call
            kind = f"`{dotted_ast(frame.node.func)}` over the tree's leaves"
        if self.imports.resolve(dotted_ast(call.func)) == FOLD_IN:
            place = f"jax.random.fold_in({place}, {ast.unparse(call.args[1])})"
        if self._in_test() and _over_cases(frame.node):
            return  # a test running each case (a class, a config) on the same inputs, on purpose
        self.flow.reported.add(obj)
        seed = _is_seed(place)
        per_iteration = sum(1 for event in frame.events if event[1] == obj)
        enclosing = self.loops[-1].level if self.loops else None
        alone = enclosing is None or self.flow.birth.get(obj, 0) >= enclosing
        self.flow.add(
            KeyFinding(
                "JAX502",
                call,
                key,
                f"{_subject(place, key, call)} is consumed here on every iteration of the "
                f"{kind} but never advanced, so every iteration draws the same random numbers; "
                + (
                    "give each iteration its own seed (`seed + i`) or split one key"
                    if seed
                    else "give each leaf its own key (split it into one per leaf and "
                    "`jax.tree.unflatten` them into the tree's structure)"
                    if frame.leaves
                    else "split it (or `jax.random.fold_in` the loop index) inside the loop"
                ),
                loop=frame.node,
                consumers=per_iteration,
                fold_in_index=_loop_index(frame.node) if alone and not seed else None,
                seed=seed,
            )
        )

    # -- expressions ----------------------------------------------------------------------

    def expr(self, node: ast.expr | None, state: _State) -> frozenset[int]:
        if node is None or isinstance(node, ast.Constant):
            return _NOTHING
        place = self.place_of(node)
        if place is not None:
            if place.partition(".")[0] in self.imports.aliases:
                return _NOTHING  # `jnp.pi`, `jax.random`: a module's attribute holds no key
            if isinstance(node, ast.Subscript):
                self.expr(node.slice, state)
            return self.lookup(state, place)
        if isinstance(node, ast.Call):
            return self.call(node, state)
        if isinstance(node, (ast.Tuple, ast.List)):
            items = [self.expr(e, state) for e in node.elts]
            made = self.fresh()
            if not any(isinstance(e, ast.Starred) for e in node.elts):
                self.flow.items[next(iter(made))] = items
            return made
        if isinstance(node, ast.Dict):
            made = self.fresh()
            members: dict[str, frozenset[int]] = {}
            for key, value in zip(node.keys, node.values, strict=True):
                held = self.expr(value, state)
                if isinstance(key, ast.Constant) and isinstance(key.value, (str, int)):
                    members[f"[{key.value!r}]"] = held
                else:
                    self.expr(key, state)
            self.flow.members[next(iter(made))] = members
            return made
        if isinstance(node, ast.IfExp):
            self.expr(node.test, state)
            then, other = state.copy(1), state.copy(1)
            values = self.expr(node.body, then) | self.expr(node.orelse, other)
            merged = self.merge([then, other], state.depth)
            if merged is not None:
                state.places, state.uses = merged.places, merged.uses
            return values
        if isinstance(node, ast.NamedExpr):
            named = self.expr(node.value, state)
            self.bind(state, node.target.id, named)
            return named
        if isinstance(node, ast.Lambda):
            return self.fresh()
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Call):
            index = node.slice
            if isinstance(index, ast.Constant) and isinstance(index.value, int):
                self.halves[id(node.value)] = index.value  # `split(key)[1]`
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            return self.comprehension(node, state)
        if isinstance(node, ast.BoolOp):
            self.expr(node.values[0], state)
            for value in node.values[1:]:
                arm = state.copy(1)
                self.expr(value, arm)
                merged = self.merge([arm, state.copy(1)], state.depth)
                if merged is not None:
                    state.places, state.uses = merged.places, merged.uses
            return self.fresh()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                self.expr(child, state)
        if isinstance(node, (ast.BinOp, ast.UnaryOp, ast.Compare, ast.JoinedStr)):
            return _NOTHING  # arithmetic, comparisons and text make no keys
        return self.fresh()

    def comprehension(
        self,
        node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp,
        state: _State,
    ) -> frozenset[int]:
        inner = state.copy(1)
        frame = _Loop(len(self.loops) + 1 + self._base_level(), node, closure=True)
        for position, generator in enumerate(node.generators):
            if position == 0:
                self.expr(generator.iter, inner)
                self.loops.append(frame)
            else:
                self.expr(generator.iter, inner)
            self.assign(generator.target, None, self.fresh(), inner)
            for condition in generator.ifs:
                self.expr(condition, inner)
        if isinstance(node, ast.DictComp):
            self.expr(node.key, inner)
            self.expr(node.value, inner)
        else:
            self.expr(node.elt, inner)
        self.loops.pop()
        self._repeats(frame, inner, state)
        merged = self.merge([inner, state.copy(1)], state.depth)
        if merged is not None:
            state.uses = merged.uses
        return self.fresh()

    def call(self, node: ast.Call, state: _State) -> frozenset[int]:
        qualified = _public(self.imports.resolve(dotted_ast(node.func)) or "")
        if qualified == FOLD_IN and node.args and isinstance(node.args[0], ast.Call):
            self._folded_makers.add(id(node.args[0]))
        receiver_root = None
        if isinstance(node.func, ast.Attribute) and not qualified:
            self.expr(node.func.value, state)
            receiver_root = _root(node.func.value)
        elif not isinstance(node.func, (ast.Name, ast.Attribute)):
            self.expr(node.func, state)
        args = [self.expr(a.value if isinstance(a, ast.Starred) else a, state) for a in node.args]
        keywords: dict[str | None, frozenset[int]] = {}
        values: dict[int, frozenset[int]] = {}  # the values of a `rngs={...}` dict
        for keyword in node.keywords:
            if keyword.arg in KEY_KEYWORDS and isinstance(keyword.value, ast.Dict):
                for item in keyword.value.keys + keyword.value.values:
                    if item is not None:
                        values[id(item)] = self.expr(item, state)
                keywords[keyword.arg] = self.fresh()
            else:
                keywords[keyword.arg] = self.expr(keyword.value, state)
        found = self._consumed_arguments(node, qualified, args, keywords, values)
        for argument, objects, strength in found:
            if strength == KNOWN or self._is_key(argument, objects):
                via = qualified or self._describe(node)
                self.consume(argument, objects, node, via, state, weak=strength == WEAK)
        if isinstance(node.func, ast.Name) and not qualified:
            for place, objects in self._closure_draws(node.func, state):
                self.consume(ClosureKey(place), objects, node, node.func.id, state)
        if qualified == FOLD_IN and len(node.args) >= 2:
            self._fold(node, args[0], state)
        if self.loops:
            self._repeat_of_seeded(node, qualified)
        if qualified in LOOP_PRIMITIVES:
            self._loop_primitive(node, qualified, state)
        elif qualified in TREE_MAPS and node.args and isinstance(node.args[0], ast.Lambda):
            trees = list(zip(node.args[1:], args[1:], strict=True))
            self._leaf_lambda(node.args[0], node, qualified, trees, state)
        elif (mapped := self._mapped_lambda(node)) is not None:
            trees = list(zip(node.args, args, strict=True))
            self._leaf_lambda(mapped, node, VMAP, trees, state)
        elif qualified in BRANCHINGS:
            self._branches(node, qualified, state)
        if receiver_root is not None and receiver_root in state.places and not qualified:
            self.bind(state, receiver_root, self.fresh())  # a method may change its object
        if qualified in KEY_RESULTS:
            made = self.fresh()
            self.flow.keys |= made
            if qualified in MAKERS:
                self._seed(node, next(iter(made)))
            return made
        if qualified in ("builtins.list", "builtins.tuple") and len(args) == 1:
            return args[0]  # `list(random.split(key, n))`: the same keys, in a list
        if qualified.startswith(NO_KEYS):
            return _NOTHING
        return self.fresh()

    def _consumed_arguments(
        self,
        node: ast.Call,
        qualified: str,
        args: list[frozenset[int]],
        keywords: dict[str | None, frozenset[int]],
        values: dict[int, frozenset[int]],
    ) -> Iterator[tuple[ast.expr, frozenset[int], str]]:
        """(argument, its objects, how sure) for each argument the call consumes as a key: KNOWN
        (a `jax.random` call, a function of the project), NAMED (a library's `key=`, `init`) or
        WEAK (a `key=`, or a key by position, to a callee jaxlint cannot see); the last two count
        only for an argument that is, or looks like, a key."""
        if id(node) in self._folded_makers and _last_name(node.func) in ("PRNGKey", "key"):
            return  # `fold_in(PRNGKey(seed), 123)`: a key other than the seed's own
        if qualified in SEEDERS:
            # a seed held in a variable makes the same key every time it is used: two keys
            # (or two `nnx.Rngs`) from one `seed` draw the same numbers
            seeds = list(zip(node.args, args, strict=True))
            seeds += [(k.value, keywords[k.arg]) for k in node.keywords if k.arg is not None]
            for argument, objects in seeds:
                if isinstance(argument, ast.Name):
                    yield argument, objects, KNOWN
            return
        if qualified.startswith(RANDOM):
            if qualified in NOT_CONSUMING or _one_value_randint(node, qualified):
                return
            if node.args and not isinstance(node.args[0], ast.Starred):
                yield node.args[0], args[0], KNOWN
            for keyword in node.keywords:
                if keyword.arg == "key":
                    yield keyword.value, keywords["key"], KNOWN
            return
        func = node.func
        draws = (
            (self.initializers.get(func.id) if isinstance(func, ast.Name) else None)
            if not isinstance(func, ast.Call)
            else self._initializer(func)
        )
        if draws is not None:
            if draws and node.args:
                yield node.args[0], args[0], KNOWN  # `w_init(key, shape)` draws from `key`
            return
        if self._mapped_lambda(node) is not None:
            return  # what the lambda draws from consumes the batch (`_leaf_lambda`)
        callee = self._callee(node.func, qualified)
        if callee is not None:
            function, shift = callee
            summary = self.flow.summary(function, shift)
            yield from _bound(node, args, keywords, summary, self.conditional, self.params)
            return
        imported = self._imported_consumer(node, qualified) or self._inherited_consumer(node)
        if imported is not None:
            yield from _bound(node, args, keywords, imported, self.conditional, self.params)
            return
        last = _last_name(node.func)
        if last in STORING or last in SORTING or self._project_function(node.func, qualified):
            return  # (the project index says what the project's own functions consume)
        # a `key=` to a library that consumes it (`eqx.nn.Linear(3, 4, key=k)`); what a callee
        # jaxlint cannot see does with one is unknown (it may only `fold_in` named streams)
        library = qualified.startswith(CONSUMING_LIBRARIES)
        # a class of a library not known to draw (`navix.State(key=key, grid=g)`) stores what
        # it is given, as one handed a key by position does (below)
        stored = bool(qualified) and not library and last[:1].isupper()
        sampler = (
            isinstance(node.func, ast.Attribute)
            and SAMPLER.fullmatch(last) is not None
            and not _dummy_sample(node.func)
        )
        for keyword in node.keywords:
            if keyword.arg not in KEY_KEYWORDS or stored:
                continue
            if isinstance(keyword.value, ast.Dict):  # linen's `apply(..., rngs={"dropout": k})`
                for value in keyword.value.values:
                    yield value, values[id(value)], NAMED
            elif keyword.arg != "rngs":  # an `nnx.Rngs` advances itself on every use
                yield keyword.value, keywords[keyword.arg], NAMED if library or sampler else WEAK
        if last in ("init", "initialize") and node.args and isinstance(node.func, ast.Attribute):
            yield node.args[0], args[0], NAMED  # `model.init(key, x)`, `manifold.initialize(key)`
            return
        if (
            last in ("sample", "sample_with_intermediates")
            and node.args
            and self._numpyro_draw(node)
        ):
            yield node.args[0], args[0], NAMED  # `dist.Normal(m, s).sample(key, (n,))`
            return
        # a key handed by position to a callee jaxlint cannot see (`self.env.step(key, s, a)`,
        # `coupling.sample(k1, x)`, `dist.sample(key, n)`): such callees draw from it far more
        # often than not (a weak consumer: a reuse still needs one known consumer of the key) —
        # but not JAX or NumPy (known), builtins, a class (which may only store it) or `apply`
        if (
            qualified.startswith(("jax.", "numpy.", "builtins."))
            or last[:1].isupper()
            or last == "apply"  # haiku's `f.apply(params, rng, x)` draws only if the model does
            or last in LOOKUPS
            or PREDICATE.match(last)
            or _dummy_sample(node.func)
        ):
            return
        for argument, objects in zip(node.args, args, strict=True):
            if not isinstance(argument, ast.Starred) and self._is_key(argument, _NOTHING):
                yield argument, objects, NAMED if sampler else WEAK

    def _numpyro_draw(self, node: ast.Call) -> bool:
        """`dist.Normal(m, s).sample(key, ...)`: a numpyro distribution made on the spot draws
        from the key it is given first (distrax and TFP take theirs as `seed=`)."""
        func = node.func
        if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Call)):
            return False
        made = self.imports.resolve(dotted_ast(func.value.func)) or ""
        return made.startswith("numpyro.distributions.")

    def _imported_consumer(self, node: ast.Call, qualified: str) -> KeyConsumer | None:
        """The project consumer a call runs: by its qualified name, or a bare name a `from m
        import *` may have bound (`AttentionBlock(key=k)` after `from .layers import *`)."""
        consumers, func = self.flow.index.key_consumers, node.func
        keyworded = any(k.arg is None or k.arg in KEY_KEYWORDS for k in node.keywords)
        if qualified:
            return ask_consumer(consumers, qualified, key_keywords=keyworded)
        if not isinstance(func, ast.Name) or func.id in self.imports.module_defined:
            return None
        for module in self.imports.starred:
            found = ask_consumer(consumers, f"{module}.{func.id}", key_keywords=keyworded)
            if found is not None:
                return found
        return None

    def _inherited_consumer(self, node: ast.Call) -> KeyConsumer | None:
        """`self.get_key(key)`, or `layer.data_dependent_init(x, key=key)` on an instance of a
        class of the module (`layer = ScaledLogit(...)`), where the method comes from a base
        class another module of the project defines (`class Sampler(JObj)` with `JObj`
        imported): its summary there."""
        func = node.func
        if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)):
            return None
        receiver = func.value.id
        if receiver in ("self", "cls") and self.function is not None:
            owner: FunctionInfo | None = self.function
            while owner is not None and owner.class_info is None:
                owner = owner.parent
            own_class = owner.class_info if owner is not None else None
        elif receiver in self.instances:
            own_class = self.flow.index.classes.get(self.instances[receiver])
        else:
            return None
        if own_class is None or func.attr in own_class.all_methods():
            return None  # the module's own method (found by `_callee`)
        consumers = self.flow.index.key_consumers
        for class_info in own_class.lineage():
            for base in class_info.base_names:  # qualified where imported
                if "." not in base:
                    continue  # a class of this module, or a builtin
                found = ask_consumer(consumers, f"{base}.{func.attr}", key_keywords=False)
                if found is not None:
                    return found
        return None

    def _project_function(self, func: ast.expr, qualified: str) -> bool:
        """A function or class of this module's own package, which the project index
        summarises (`describe(key)` imported from `.noise`, or bound by a `from .layers
        import *`): not listed as a consumer, it consumes nothing. Not a method reached
        through a class (`models.MLP.create`): those are not summarised."""
        own = (self.imports.package or "").partition(".")[0]
        packages = self.flow.index.project_packages | ({own} if own else set())
        if qualified:
            parts = qualified.split(".")
            return parts[0] in packages and not any(p[:1].isupper() for p in parts[:-1])
        starred = self.imports.starred
        return (
            isinstance(func, ast.Name)
            and func.id not in self.imports.module_defined
            and bool(starred)
            and all(m.partition(".")[0] in packages for m in starred)
        )

    def _is_key(self, argument: ast.expr, objects: frozenset[int]) -> bool:
        return self._holds_key(_place(argument), objects)

    def _holds_key(self, place: str | None, objects: frozenset[int]) -> bool:
        """Do `objects` hold a known key, or is `place` named like one?"""
        if objects & self.flow.keys:
            return True
        return place is not None and KEY_NAME.search(_split_place(place)[1]) is not None

    def _describe(self, node: ast.Call) -> str:
        """The callee of a call, through transforms: `loss` for `jax.grad(loss)(p, key)`."""
        func = node.func
        while isinstance(func, ast.Call) and func.args:
            func = func.args[0]
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Call):
            made = dotted_ast(func.value.func)  # `dist.Normal(m, s).sample`
            if made is not None:
                return f"{made}(...).{func.attr}"
        return dotted_ast(func) or "a call"

    def _bindings(
        self, function: ast.FunctionDef | ast.AsyncFunctionDef
    ) -> dict[str, list[ast.expr | None]]:
        """What the function's own statements bind each local name to (once per module)."""
        key = ("prng-local-bindings", id(function))
        return self.flow.index.memoized(key, lambda: local_bindings_of(function))

    def _local_lambda(self, scope: FunctionInfo, name: str) -> tuple[FunctionInfo, int] | None:
        """The lambda a local name is bound to, when that is its only binding
        (`noise = lambda x: ...`)."""
        node = scope.node
        if isinstance(node, ast.Lambda):
            return None
        values = self._bindings(node).get(name, [])
        if len(values) != 1 or not isinstance(values[0], ast.Lambda):
            return None
        if name in scope.params and not _default_when_none(node, name, values[0]):
            return None  # a callable the caller passes
        info = self.flow.index.function_of(values[0])
        return (info, 0) if info is not None else None

    def _closure_draws(self, func: ast.Name, state: _State) -> list[tuple[str, frozenset[int]]]:
        """The keys of this scope a local `def` or lambda draws from when called, through
        names it does not bind itself (`noise = lambda x: x + normal(key, x.shape)`, then
        `noise(a)` and `noise(b)`: both draw from `key`)."""
        callee = self._callee(func, "")
        if callee is None or self.function is None:
            return []
        function = callee[0]
        scope: FunctionInfo | None = self.function  # this scope or one around it defined it
        while scope is not None and scope is not function.parent:
            scope = scope.parent
        if scope is None or id(function) in self.flow.closures_walked:
            return []  # not a closure of these scopes (or one being walked: a recursion)
        own = function.local_names | set(function.params)
        held = {
            place: objects
            for place, objects in state.places.items()
            if _root(place) not in own and objects and self._holds_key(place, objects)
        }
        if not held:
            return []
        walker = _Walker(self.flow, function, imports_in(function, self.flow.index.imports))
        walker.entry = self.entry
        walker.instances = dict(self.instances)
        inner = _State(dict(held), {}, 1)
        self.flow.closures_walked.add(id(function))
        counted = dict(self.flow.consumers)  # the callee's draws count at this call alone
        try:
            if isinstance(function.node, ast.Lambda):
                for name in function.params:
                    inner.places[name] = walker.fresh()
                walker.expr(function.node.body, inner)
                ends = [inner]
            else:
                walker.run(function.node.body, list(function.params), inner)
                ends = walker.ends
        finally:
            self.flow.closures_walked.discard(id(function))
            self.flow.consumers = counted
        drawn = {
            obj for end in ends for obj, use in end.uses.items() if use.definite and not use.weak
        }
        return [(place, objects & drawn) for place, objects in held.items() if objects & drawn]

    def _callee(self, func: ast.expr, qualified: str) -> tuple[FunctionInfo, int] | None:
        """The function of this module a call runs, and how many leading params it binds."""
        index = self.flow.index
        while isinstance(func, ast.Call) and func.args:
            inner = self.imports.resolve(dotted_ast(func.func))
            if inner not in TRANSFORMS:
                return None
            func = func.args[0]
        if isinstance(func, ast.Name):
            name = func.id
            if self.function is not None:
                scope: FunctionInfo | None = self.function
                while scope is not None:
                    if name in scope.local_defs:
                        return scope.local_defs[name], 0
                    if name in scope.local_names:
                        return self._local_lambda(scope, name)
                    scope = scope.parent
            if name in index.module_defs:
                return index.module_defs[name], 0
            if name in index.classes:  # the constructor runs `__init__`
                init = index.classes[name].methods.get("__init__")
                return (init, 1) if init is not None else None
            targets = index.aliases.get(name)
            if targets and len(targets) == 1:
                return targets[0], 0
            return None
        if not isinstance(func, ast.Attribute) or not isinstance(func.value, ast.Name):
            return None
        owner_class = None
        if func.value.id in ("self", "cls") and self.function is not None:
            owner: FunctionInfo | None = self.function
            while owner is not None and owner.class_info is None:
                owner = owner.parent
            owner_class = owner.class_info if owner is not None else None
        elif func.value.id in self.instances:  # `env = GridEnv()`, then `env.step(...)`
            owner_class = index.classes.get(self.instances[func.value.id])
        elif func.value.id in index.classes and not self._local(func.value.id):
            # `Population.create_random(n, seed)`: through the class, a static or class
            # method (a plain function reached through its class takes `self` by position)
            method = index.classes[func.value.id].all_methods().get(func.attr)
            if method is None:
                return None
            return method, 1 if method.is_classmethod else 0
        method = owner_class.all_methods().get(func.attr) if owner_class is not None else None
        if method is None:
            return None
        static = "builtins.staticmethod" in method.decorator_names
        return method, 0 if static else 1

    def _local(self, name: str) -> bool:
        """Is `name` bound in the function being walked (or one enclosing it)?"""
        scope = self.function
        while scope is not None:
            if name in scope.local_names or name in scope.params:
                return True
            scope = scope.parent
        return False

    def consume(
        self,
        argument: ast.expr,
        objects: frozenset[int],
        call: ast.Call,
        via: str,
        state: _State,
        *,
        weak: bool = False,
        tree: bool = False,
    ) -> None:
        if not objects:
            return
        place = self.place_of(argument)
        loop = id(self.loops[-1].node) if self.loops else 0
        for obj in objects if not weak else ():
            self.flow.consumers[obj, loop] = self.flow.consumers.get((obj, loop), 0) + 1
            made = self.flow.seeded.get(obj)
            if (
                made is not None
                and any(frame is made[1] for frame in self.loops)
                and not _feeds_loop_item(call, made[1].node)
            ):
                maker, frame = made
                self.flow.add(
                    KeyFinding(
                        "JAX502",
                        maker,
                        None,
                        "this key is made from the same seed on every iteration of the "
                        f"{_loop_kind(frame.node)}, so every iteration draws the same random "
                        "numbers; make the key once before the loop and split it (or "
                        "`jax.random.fold_in` the loop index) inside",
                        loop=frame.node,
                    )
                )
        none_if = self.conditional.pop(id(argument), None)
        self.sites.extend((obj, call, none_if) for obj in objects)
        if place is not None and not weak:
            self.consumptions.append((place, next(iter(objects)), call, argument))
            for frame in reversed(self.loops):
                outer = [o for o in objects if self.flow.birth.get(o, 0) < frame.level]
                if outer and len(outer) == len(objects):
                    frame.events.append((place, next(iter(objects)), call, argument))
                    break
        earlier = [state.uses.get(o) for o in objects]
        if all(u is not None for u in earlier) and self._unreported(objects, call, weak):
            uses = [u for u in earlier if u is not None]
            repeat = all(u.definite for u in uses) or state.depth <= min(
                u.depth for u in uses if not u.definite
            )
            strong = [u for u in uses if not u.weak]
            first = max(strong or uses, key=lambda u: (u.node.lineno, u.node.col_offset))
            if (  # the cheap tests first: the others read the whole function
                repeat
                and place is not None
                and not (weak and not strong)
                and not self._deliberate(first, call, via)
                and not self._result_unused(first.node)
                and not self._result_unused(call)
                and not self._read_only_apart(first.node, call)
            ):
                how = (
                    f"split on line {first.node.lineno}"
                    if first.via == SPLIT
                    else f"the seed of `{first.via}` on line {first.node.lineno}"
                    if first.via in SEEDERS
                    else f"consumed by `{first.via}` on line {first.node.lineno}"
                )
                if via == first.via == FOLD_IN:
                    place = f"jax.random.fold_in({place}, {ast.unparse(call.args[1])})"
                    how = f"derived with the same data on line {first.node.lineno}"
                self.flow.reported |= objects
                for obj in objects:
                    self.flow.reported_at[obj] = (call.lineno, call.col_offset)
                seed = _is_seed(place)
                advice = (
                    "give each consumer its own seed, or make one key and split it"
                    if seed
                    else "split it and give each consumer its own key"
                )
                self.flow.add(
                    KeyFinding(
                        "JAX501",
                        call,
                        argument,
                        f"{_subject(place, argument, call)} was already {how}; using it "
                        f"again gives the same (or correlated) random numbers; {advice}",
                        first=first.node,
                        first_key=first.key,
                        seed=seed,
                        tree=tree or first.via in MAPPERS,
                    ),
                    objects,
                )
        self.flow.keys |= objects
        for obj in objects:
            use = state.uses.get(obj)
            # a use on some paths only is superseded by this one, on every path from here
            # (a key consumed in a loop that may not run, then in the next loop's body)
            if (
                use is None
                or (use.weak and not weak)
                or not use.definite
                or self._result_unused(use.node)
            ):
                state.uses[obj] = _Use(call, argument, via, True, state.depth, weak)

    def _unreported(self, objects: frozenset[int], call: ast.Call, weak: bool) -> bool:
        """Is a reuse of `objects` at `call` not reported yet: none of them was, or only by
        the JAX501 check at a call before this one, and this is a further consumer worth its
        own finding: known to draw, in a function outside test code (the third weight a
        constructor draws from one key). Measured on the bench sets, further reuses in script
        blocks, self-tests and tests, or by a key handed to a method jaxlint cannot see, were
        mostly deliberate or harmless: there the first finding on the key stands alone."""
        further = not weak and self.function is not None
        reported = self.flow.reported_at
        position = (call.lineno, call.col_offset)
        return all(
            obj not in self.flow.reported
            or (further and reported.get(obj, position) < position and not self._in_test())
            for obj in objects
        )

    def _deliberate(self, first: _Use, call: ast.Call, via: str) -> bool:
        """Is the second use of the key on purpose, or harmless by construction?"""
        return (
            first.via == via in ALIGNED  # `x, y` shuffled alike, on purpose
            or self._other_half(first.node, call, via)
            or self._recomputed(first, call, via)
            or self._compared(first, call)
            or self._test_policy_allows(first.via, via)
            or self._alternatives(first.node, call)
            or (first.via == NNX_RNGS) != (via == NNX_RNGS)  # see NNX_RNGS
        )

    def _alternatives(self, first: ast.Call, call: ast.Call) -> bool:
        """The two results reach only opposite arms of one selection (`jnp.where(c, a, b)`,
        `lax.cond(p, f, g)`): whichever is kept, no two kept numbers share bits."""
        return self._scope_selections().alternatives(first, call)

    def _scope_selections(self) -> Selections:
        if self._selections is None:
            scope = self.function.node if self.function is not None else self.flow.index.tree
            self._selections = Selections(scope, self.imports)
        return self._selections

    def _test_policy_allows(self, first_via: str, via: str) -> bool:
        """In test code one key fed twice to the code under test is how runs are made
        reproducible and comparable; a reuse there counts only between two `jax.random` calls
        (inputs meant to differ)."""
        both_random = all(v.startswith(RANDOM) and v not in SEEDERS for v in (first_via, via))
        return not both_random and self._in_test()

    def _in_test(self) -> bool:
        """Test code: a `test_*` function, a `Test*` class, a module importing a test framework
        or in a package named `tests`/`test` (`generax.tests.flow_tests`)."""
        scope = self.function
        while scope is not None:
            owner = scope.class_info.node.name if scope.class_info is not None else ""
            if scope.name.startswith("test") or owner.startswith("Test") or owner.endswith("Test"):
                return True
            scope = scope.parent
        return self.flow.index.memoized("prng-test-module", self._imports_test_framework)

    def _imports_test_framework(self) -> bool:
        package = self.flow.index.imports.package or ""
        if {"tests", "test"} & set(package.split(".")):
            return True
        targets = self.flow.index.imports.aliases.values()
        return any(t == f or t.startswith(f + ".") for t in targets for f in TEST_FRAMEWORKS)

    def _compared(self, first: _Use, call: ast.Call) -> bool:
        """Both results are checked for equality (`assert_allclose(f.init(rng), g.init(rng))`,
        or assigned and compared later): a test that two implementations agree on one key."""
        body = self.function.node.body if self.function is not None else self.flow.index.tree.body
        if not isinstance(body, list):
            return False
        first_names = _assigned_names(body, first.node)
        second_names = _assigned_names(body, call)
        checked = set()  # the consumers inside some equality check
        for node in own_nodes(body):
            if isinstance(node, ast.Assert):
                names = {n.id for n in walk_ast(node.test) if isinstance(n, ast.Name)}
            elif isinstance(node, ast.Call) and _is_check(node):
                names = {n.id for n in walk_ast(node) if isinstance(n, ast.Name)}
                checked |= {id(n) for n in walk_ast(node)} & {id(first.node), id(call)}
            else:
                continue
            if names & first_names and names & second_names:
                return True
        return len(checked) == 2

    def _other_half(self, first: ast.Call, call: ast.Call, via: str) -> bool:
        """`split(key)[0]` and later `split(key)[1]`: the two halves of one split, made twice."""
        if via != SPLIT or ast.dump(first) != ast.dump(call):
            return False
        taken = self.halves.get(id(first)), self.halves.get(id(call))
        return None not in taken and taken[0] != taken[1]

    def _fold(self, node: ast.Call, parents: frozenset[int], state: _State) -> None:
        """`fold_in(key, data)` derives one key per data: the same data twice is one key twice.
        Each derived key is an object of its own, consumed by the `fold_in` that derives it."""
        data = node.args[1]
        names = sorted({n.id for n in walk_ast(data) if isinstance(n, ast.Name)})
        held = [sorted(self.lookup(state, name)) for name in names]
        suffix = f"<fold {ast.dump(data)} {held}>"
        births = [self.flow.birth.get(o, 0) for objects in held for o in objects]
        derived: set[int] = set()
        for parent in parents:
            made = self.flow.element(parent, suffix)
            for obj in made:
                self.flow.birth[obj] = max([self.flow.birth.get(obj, 0), *births])
                self.flow.folded[obj] = [
                    (n, frozenset(h)) for n, h in zip(names, held, strict=True)
                ]
            derived |= made
        self.consume(node.args[0], frozenset(derived), node, FOLD_IN, state)

    def _recomputed(self, first: _Use, call: ast.Call, via: str) -> bool:
        """The same function of the project called again with the same arguments (a loss and
        its gradient, an environment reset twice in a test): deliberately the same numbers."""
        if via.startswith(RANDOM) or first.via != via:
            return False
        same = [ast.dump(a) for a in first.node.args] == [ast.dump(a) for a in call.args] and [
            ast.dump(k) for k in first.node.keywords
        ] == [ast.dump(k) for k in call.keywords]
        if not same:
            return False
        transformed = _wraps(first.node.func, call.func) or _wraps(call.func, first.node.func)
        target, earlier = self.targets.get(id(call)), self.targets.get(id(first.node))
        return transformed or (
            target is not None and earlier is not None and ast.dump(target) == ast.dump(earlier)
        )

    def _initializer(self, node: ast.expr) -> bool | None:
        """Is `node` an initializer of `jax.nn.initializers` (or flax's re-export), a function
        taking a key first, and does it draw from it: `he_uniform(in_axis=-2)` made by a call
        does, `zeros`, `ones` and `constant(0.1)` do not. None when it is none."""
        call = isinstance(node, ast.Call)
        made_by = _public(
            self.imports.resolve(dotted_ast(node.func if isinstance(node, ast.Call) else node))
            or ""
        )
        if not made_by.startswith(INITIALIZERS):
            return None
        name = made_by.rpartition(".")[2]
        if name in ("zeros", "ones"):
            return None if call else False
        return name != "constant" if call else None

    def _repeat_of_seeded(self, node: ast.Call, qualified: str) -> None:
        """A call, in a loop, of a function of the module that makes its key from a constant
        seed and draws from it (`generate_net_st()` starting from `PRNGKey(0)`), with the same
        arguments on every iteration: every iteration gets the same random numbers."""
        callee = self._callee(node.func, qualified)
        if callee is None:
            return
        maker = self.flow.constant_seed(callee[0])
        frame = self.loops[-1]
        if maker is None or _runs_once(frame.node, self.sizes):
            return
        arguments = [*node.args, *(k.value for k in node.keywords)]
        if all(_invariant(a, frame.node) for a in arguments):
            self.flow.add(
                KeyFinding(
                    "JAX502",
                    node,
                    None,
                    f"`{callee[0].name}` makes its key from the constant seed on line "
                    f"{maker.lineno} on every call, and this {_loop_kind(frame.node)} calls "
                    "it with the same arguments each time, so every iteration gets the same "
                    "random numbers; give it a key split per iteration",
                    loop=frame.node,
                )
            )

    def _seed(self, node: ast.Call, made: int) -> None:
        """Remember a key made from a seed that does not change in the loop around it."""
        if self.traced and any(
            isinstance(c, ast.Call) and self.imports.resolve(dotted_ast(c.func)) in TIME_CALLS
            for a in node.args
            for c in walk_ast(a)
        ):
            self.flow.add(
                KeyFinding(
                    "JAX502",
                    node,
                    None,
                    "a key made from the clock inside traced code is fixed when the function "
                    "is traced: every call draws the same random numbers; pass a key in",
                )
            )
            return
        if not self.loops or not node.args:
            return
        frame = self.loops[-1]
        if _runs_once(frame.node, self.sizes):
            return
        if _invariant(node.args[0], frame.node):
            self.flow.seeded[made] = (node, frame)

    def _loop_primitive(self, node: ast.Call, qualified: str, state: _State) -> None:
        """A key closed over by a loop body, or carried through it unchanged."""
        position, kind = LOOP_PRIMITIVES[qualified]
        names = {"scan": "f", "fori": "body_fun", "while": "body_fun", "map": "f"}
        body = next((k.value for k in node.keywords if k.arg == names[kind]), None)
        if body is None and len(node.args) > position:
            body = node.args[position]
        function = None
        partial = self._partial_body(body)
        bound = 0  # leading parameters the partial binds by position
        if partial is not None:
            bound_values = [*partial.args[1:], *(k.value for k in partial.keywords)]
            if any(
                not isinstance(v, (ast.Name, ast.Attribute, ast.Constant))
                or self._is_key(v, self.lookup(state, _place(v) or ""))
                for v in bound_values
            ):
                return  # a key bound into the body (or a value made there): not followed
            body = partial.args[0]
            bound = len(partial.args) - 1
        if isinstance(body, ast.Name):
            callee = self._callee(body, "")
            function = callee[0] if callee else None
        if isinstance(body, ast.Lambda):
            return self._loop_lambda(body, node, state)
        if function is None or not isinstance(function.node.body, list):
            return
        keywords = {k.arg for k in partial.keywords} if partial is not None else set()
        # the body's own parameters, as the loop calls it: `partial(env_step, env=env)` leaves
        # `(carry, x)`
        called_with = [p for p in function.params[bound:] if p not in keywords]
        frame = _Loop(len(self.loops) + 1 + self._base_level(), node, closure=True)
        imports = imports_in(function, self.flow.index.imports)
        walker = _Walker(self.flow, function, imports, [frame])
        walker.entry = self.entry
        walker.instances = dict(self.instances)
        inner = _State({}, {}, 1)
        if function.parent is self.function and self.function is not None:
            for place, held in state.places.items():
                if place not in function.local_names and _root(place) not in function.params:
                    inner.places[place] = held
        params = list(function.params)
        walker.run(function.node.body, params, inner)
        self._repeats(frame, inner, state)
        if kind != "map":
            self._frozen_carry(walker, called_with, kind, frame)
        if kind == "scan":
            self._initial_carry(walker, called_with, node, state)

    def _partial_body(self, body: ast.expr | None) -> ast.Call | None:
        """`partial(f, ...)` given as a loop body, written in place or bound to a local once
        (`_env_step = partial(env_step, env=env)` then `lax.scan(_env_step, ...)`)."""
        if isinstance(body, ast.Name):
            scope = self.function  # the function binding the name: this one or an enclosing one
            while scope is not None and body.id not in scope.local_names | set(scope.local_defs):
                scope = scope.parent
            if scope is None or body.id in scope.local_defs or isinstance(scope.node, ast.Lambda):
                return None
            values = local_bindings_of(scope.node).get(body.id, [])
            body = values[0] if len(values) == 1 else None
        if (
            isinstance(body, ast.Call)
            and self.imports.resolve(dotted_ast(body.func)) == "functools.partial"
            and body.args
            and isinstance(body.args[0], ast.Name)
            and not any(isinstance(a, ast.Starred) for a in body.args)
            and all(k.arg is not None for k in body.keywords)
        ):
            return body
        return None

    def _initial_carry(
        self, walker: _Walker, params: list[str], node: ast.Call, state: _State
    ) -> None:
        """A `lax.scan` body that consumes (part of) its carry on every path consumes, on its
        first step, the carry the call hands in (`lax.scan(step, (emb, key), xs)` with `step`
        splitting `carry[1]`): a key already drawn from is reused there."""
        init = next((k.value for k in node.keywords if k.arg == "init"), None)
        if init is None and len(node.args) > 1:
            init = node.args[1]
        if (
            not params
            or init is None
            or not all(
                isinstance(n, (ast.Name, ast.Attribute, ast.Tuple, ast.Load))
                for n in walk_ast(init)
            )
        ):
            return  # only names and displays: evaluating them again changes nothing
        handed = self.expr(init, state)
        for _, obj, _, _ in walker.consumptions:
            path = self._path(obj, walker, params[0])
            if path is None or not walker.ends:
                continue
            if not all(
                obj in end.uses and end.uses[obj].definite and not end.uses[obj].weak
                for end in walker.ends
            ):
                continue
            argument = init
            for suffix in path:  # `(emb, key)` and `[1]`: the display's element, or `carry[1]`
                position = suffix[1:-1]
                if not position.isdigit():
                    break
                if isinstance(argument, ast.Tuple):
                    argument = argument.elts[int(position)]
                else:
                    item = ast.Subscript(argument, ast.Constant(int(position)), ast.Load())
                    argument = ast.copy_location(item, argument)
            self.consume(argument, self._at(handed, path), node, "jax.lax.scan", state)

    def _loop_lambda(self, body: ast.Lambda, node: ast.Call, state: _State) -> None:
        frame = _Loop(len(self.loops) + 1 + self._base_level(), node, closure=True)
        walker = _Walker(self.flow, self.function, self.imports, [frame])
        walker.entry = self.entry
        walker.instances = dict(self.instances)
        inner = state.copy()
        inner.uses = {}
        params = [a.arg for a in body.args.args]
        for name in params:
            inner.places[name] = walker.fresh()
        walker.expr(body.body, inner)
        self._repeats(frame, inner, state)

    def _branches(self, node: ast.Call, qualified: str, state: _State) -> None:
        """`lax.cond(p, add_noise, keep, x)` / `lax.switch(i, [f, g], x)`: each branch runs on
        the keys the code before the call holds, so a key drawn from before and again inside
        a branch is reused (JAX501); branches are alternatives, and what they consume counts
        after the call as consumed on some paths."""
        if qualified == "jax.lax.cond":
            branches = list(node.args[1:3])
            branches += [k.value for k in node.keywords if k.arg in ("true_fun", "false_fun")]
        else:
            table = node.args[1] if len(node.args) > 1 else None
            branches = list(table.elts) if isinstance(table, (ast.List, ast.Tuple)) else []
        arms: list[_State | None] = []
        for branch in branches:
            arm = state.copy(1)
            if isinstance(branch, ast.Lambda):
                for name in (a.arg for a in branch.args.args):
                    arm.places[name] = self.fresh()
                self.expr(branch.body, arm)
                arms.append(arm)
                continue
            callee = self._callee(branch, "") if isinstance(branch, ast.Name) else None
            function = callee[0] if callee else None
            if function is None or function.parent is not self.function or function.parent is None:
                continue  # only the function's own nested defs see its keys
            if not isinstance(function.node.body, list):
                continue
            walker = _Walker(self.flow, function, imports_in(function, self.imports), self.loops)
            walker.entry = self.entry
            walker.instances = dict(self.instances)
            walker._selections = self._scope_selections()  # the arms are this scope's
            inner = _State(
                {
                    place: held
                    for place, held in state.places.items()
                    if place not in function.local_names and _root(place) not in function.params
                },
                dict(state.uses),
                arm.depth,
            )
            walker.run(function.node.body, list(function.params), inner)
        if arms:
            merged = self.merge([*arms, state.copy(1)], state.depth)
            if merged is not None:
                state.places, state.uses = merged.places, merged.uses

    def _leaf_lambda(
        self,
        body: ast.Lambda,
        node: ast.Call,
        qualified: str,
        trees: list[tuple[ast.expr, frozenset[int]]],
        state: _State,
    ) -> None:
        """`tree_map(lambda p: p + normal(key, p.shape), params)`: the lambda runs once per
        leaf, so a key it closes over gives every leaf the same draws (JAX502); one already
        consumed before the call is a reuse too (JAX501, reported by `consume`). A parameter
        the lambda draws from consumes the tree it maps (`tree_map(lambda k, i: choice(k, i),
        keys[0:ng], idx)`), or the batch `jax.vmap` maps it over (`jax.vmap(lambda k:
        normal(k, (3,)))(keys)`): every key in it, there, once."""
        leaves_frame = qualified in TREE_MAPS  # a closed-over key: the same draws per leaf
        frame = _Loop(
            len(self.loops) + 1 + self._base_level(), node, closure=True, leaves=leaves_frame
        )
        walker = _Walker(self.flow, self.function, self.imports, [*self.loops, frame])
        walker.entry = self.entry
        walker.instances = dict(self.instances)
        inner = state.copy()
        leaves = {}
        for name in (a.arg for a in body.args.args):
            inner.places[name] = leaves[name] = walker.fresh()
        walker.expr(body.body, inner)
        if leaves_frame:
            self._repeats(frame, inner, state)
        drawn = {obj for _, obj, _, _ in walker.consumptions}
        for name, (tree, objects) in zip(leaves, trees, strict=False):
            if next(iter(leaves[name])) in drawn and not isinstance(tree, ast.Starred):
                self.consume(tree, objects, node, qualified, state, tree=True)

    def _mapped_lambda(self, node: ast.Call) -> ast.Lambda | None:
        """The lambda of `jax.vmap(lambda k: ...)(keys)` (its `in_axes` mapping every
        argument), called at once."""
        inner = node.func
        if not (isinstance(inner, ast.Call) and inner.args):
            return None
        lambda_ = inner.args[0]
        if not isinstance(lambda_, ast.Lambda) or len(inner.args) > 1 or inner.keywords:
            return None
        return lambda_ if self.imports.resolve(dotted_ast(inner.func)) == VMAP else None

    def _frozen_carry(self, walker: _Walker, params: list[str], kind: str, frame: _Loop) -> None:
        """A key in the carry consumed in the body and returned unchanged."""
        carry_position = {"scan": 0, "fori": 1, "while": 0}[kind]
        if len(params) <= carry_position or not walker.returns:
            return
        carry_name = params[carry_position]
        for place, obj, call, key in walker.consumptions:
            path = self._path(obj, walker, carry_name)
            if path is None:
                continue
            for returned in walker.returns:
                carried = returned
                if kind == "scan":
                    carried = walker._items(returned, 0)
                if self._at(carried, path) == frozenset({obj}):
                    self.flow.add(
                        KeyFinding(
                            "JAX502",
                            call,
                            key,
                            f"`{place}` comes in with the loop carry, is consumed here, and "
                            "goes back into the carry unchanged, so every iteration draws the "
                            "same random numbers; split it and carry the new key",
                            loop=frame.node,
                        )
                    )
                    break

    def _path(self, obj: int, walker: _Walker, carry_name: str) -> list[str] | None:
        path: list[str] = []
        entry = walker.params.get(carry_name)
        while obj != entry:
            parent = self.flow.parent.get(obj)
            if parent is None:
                return None
            obj, suffix = parent
            path.append(suffix)
        return list(reversed(path))

    def _at(self, objects: frozenset[int], path: list[str]) -> frozenset[int]:
        for suffix in path:
            objects = frozenset().union(*(self.flow.element(o, suffix) for o in objects))
        return objects


# calls that copy a functional object with some fields changed (`state.replace(rng=new)`)
COPIERS = frozenset({"replace", "_replace", "evolve", "copy"})


def _stored_keys(class_info: ClassInfo, imports: ImportTable) -> dict[str, str]:
    """Attributes the constructors bind to a key made on the spot (`self.rng =
    jax.random.PRNGKey(seed)`, `self.key = jax.random.split(key)[0]`) and no other method of
    the class binds → the constructor's name."""
    methods = class_info.all_methods()
    made: dict[str, str] = {}
    for name in sorted(OBJECT_CONSTRUCTORS & methods.keys()):
        method = methods[name]
        if not method.is_method:
            continue
        receiver = method.positional[0]
        for node in walk_ast(method.node):
            if not isinstance(node, ast.Assign) or len(node.targets) != 1:
                continue
            target, value = node.targets[0], node.value
            if not (
                isinstance(target, ast.Attribute)
                and isinstance(target.value, ast.Name)
                and target.value.id == receiver
            ):
                continue
            if isinstance(value, ast.Subscript):
                value = value.value  # `split(key)[0]`
            if (
                isinstance(value, ast.Call)
                and (imports.resolve(dotted_ast(value.func)) or "") in KEY_RESULTS
            ):
                made.setdefault(target.attr, name)
    if not made:
        return {}
    # bound anywhere else in the class (`self.rng, sub = split(self.rng)`): advanced
    for method in methods.values():
        if not method.is_method:
            continue
        receiver = method.positional[0]
        for node in walk_ast(method.node):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.ctx, ast.Store)
                and node.attr in made
                and isinstance(node.value, ast.Name)
                and node.value.id == receiver
                and not _constructor_binding(node, methods, made)
            ):
                del made[node.attr]
    return made


def _constructor_binding(
    target: ast.Attribute, methods: Mapping[str, FunctionInfo], made: Mapping[str, str]
) -> bool:
    """Is `target` the binding `_stored_keys` found (`self.rng = PRNGKey(...)` itself)?"""
    method = methods.get(made[target.attr])
    return method is not None and any(
        isinstance(node, ast.Assign) and node.targets[0] is target for node in walk_ast(method.node)
    )


def _attributes_rebound_outside(
    tree: ast.Module, class_info: ClassInfo, names: Mapping[str, str]
) -> set[str]:
    """Of `names`, those code outside the class assigns (`agent.rng = new_key`), a call
    passes by keyword (`state.replace(rng=new_rng)`, `Agent(rng=key)`) or `eqx.tree_at`
    names: the object's key may be advanced from there (a functional pytree's copy holds the
    new key)."""
    found: set[str] = set()
    inside = {id(n) for n in walk_ast(class_info.node)}
    # `self.replace(rng=...)` in another class's methods copies an object of that class
    other_selves = {
        id(n)
        for other in walk_ast(tree)
        if isinstance(other, ast.ClassDef) and other is not class_info.node
        for n in walk_ast(other)
        if isinstance(n, ast.Call) and dotted_ast(n.func) in ("self.replace", "self._replace")
    }
    for node in walk_ast(tree):
        if isinstance(node, ast.Call) and id(node) not in other_selves:
            called = dotted_ast(node.func) or ""
            last = called.rsplit(".", 1)[-1]
            if last in COPIERS or last == class_info.node.name:
                found.update(k.arg for k in node.keywords if k.arg is not None and k.arg in names)
            if last in ("setattr", "tree_at"):  # any attribute may be rebound
                found.update(names)
        elif (
            id(node) not in inside
            and isinstance(node, ast.Attribute)
            and node.attr in names
            and isinstance(node.ctx, ast.Store)
        ):
            found.add(node.attr)
    return found


def _place(node: ast.AST) -> str | None:
    """`key`, `state.rng`, `keys[0]`, `batch["rng"]`: a place a key can be held in."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _place(node.value)
        return f"{inner}.{node.attr}" if inner is not None else None
    if isinstance(node, ast.Subscript):
        inner = _place(node.value)
        index = node.slice
        if inner is None:
            return None
        if isinstance(index, ast.Constant) and isinstance(index.value, (int, str)):
            return f"{inner}[{index.value!r}]"
        if isinstance(index, ast.UnaryOp) and isinstance(index.op, ast.USub):
            operand = index.operand
            if isinstance(operand, ast.Constant) and isinstance(operand.value, int):
                return f"{inner}[-{operand.value}]"
    return None


def _slice_bound(node: ast.expr) -> bool:
    """A slice bound of integers and names: `ng`, `2 * ng`, `-1`."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, int)
    if isinstance(node, ast.Name):
        return True
    if isinstance(node, ast.UnaryOp):
        return _slice_bound(node.operand)
    return isinstance(node, ast.BinOp) and _slice_bound(node.left) and _slice_bound(node.right)


def _split_place(place: str) -> tuple[str | None, str]:
    cut = max(place.rfind("."), place.rfind("["))
    if cut <= 0:
        return None, place
    return place[:cut], place[cut:]


def _root(node_or_place: ast.AST | str) -> str | None:
    if isinstance(node_or_place, str):
        return re.split(r"[.\[]", node_or_place, maxsplit=1)[0]
    place = _place(node_or_place)
    return _root(place) if place is not None else None


def _last_name(func: ast.expr) -> str:
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else ""


def _is_seed(place: str) -> bool:
    """A place named like a seed (`seed`, `random_seed`, `self.seed`), not like a key."""
    name = _split_place(place)[1]
    return "seed" in name.lower() and not KEY_NAME.search(name)


_PRIVATE_RANDOM = "jax._src.random."


def _public(qualified: str) -> str:
    """`jax._src.random.split` (imported from JAX's private module) is `jax.random.split`."""
    if qualified.startswith(_PRIVATE_RANDOM):
        return RANDOM + qualified[len(_PRIVATE_RANDOM) :]
    return qualified


def _wraps(outer: ast.expr, inner: ast.expr) -> bool:
    """Is `outer` a call built around `inner` (`jax.value_and_grad(loss)` around `loss`)? Not
    two receivers that differ (`dist.Normal(m, s).sample` and `dist.Normal(x, s).sample`)."""
    if not isinstance(outer, ast.Call):
        return False
    wanted = ast.dump(inner)
    return any(n is not outer and ast.dump(n) == wanted for n in walk_ast(outer))


def _retry_on_nothing(call: ast.Call, loop: ast.AST) -> bool:
    """A retry: `while ...: sample = replay.sample(key)`, `if sample is None: continue`, then
    the body leaves the loop (mujax's reanalyzer waiting for its buffer). The loop comes round
    again only when the draw gave nothing, so no two results it keeps share numbers."""
    if not isinstance(loop, ast.While) or not loop.body:
        return False
    if not isinstance(loop.body[-1], (ast.Return, ast.Break, ast.Raise)):
        return False
    bound = next(
        (
            s.targets[0].id
            for s in loop.body
            if isinstance(s, ast.Assign)
            and s.value is call
            and len(s.targets) == 1
            and isinstance(s.targets[0], ast.Name)
        ),
        None,
    )
    if bound is None:
        return False
    retries = [
        s
        for s in loop.body
        if isinstance(s, ast.If)
        and _is_none_test(s.test, bound)
        and isinstance(s.body[-1], ast.Continue)
    ]
    # no other way round: the retries' `continue`s are the loop's only ones
    continues = [n for n in walk_ast(loop) if isinstance(n, ast.Continue)]
    return len(retries) == 1 and continues == [retries[0].body[-1]]


def _feeds_loop_item(call: ast.Call, loop: ast.AST) -> bool:
    """Is `call` an argument of a call of the loop's item whose results are kept apart, one
    per item (`{name: metric(w, split(k, n)) for name, metric in metrics.items()}`,
    `scores[name] = metric(...)`): each variant given the same numbers, a fair comparison, as
    `_seed_per_variant`. Not `x = layer(x, key)`: there the layers' draws meet."""
    varied = _loop_targets(loop)
    comprehension = isinstance(loop, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp))
    statements = [] if comprehension else list(_statements(loop))
    for node in walk_ast(loop):
        if not isinstance(node, ast.Call) or node is call:
            continue
        root = node.func
        while isinstance(root, ast.Attribute):
            root = root.value
        if not (isinstance(root, ast.Name) and root.id in varied):
            continue
        arguments = [*node.args, *(k.value for k in node.keywords)]
        if not any(inner is call for a in arguments for inner in walk_ast(a)):
            continue
        if comprehension or any(_keeps_apart(s, node) for s in statements):
            return True
    return False


def _runs_each_variant(call: ast.Call, loop: ast.AST) -> bool:
    """Is `call` a call of the loop's item, over a display of named classes or functions
    (`for Problem in [Oscillator, OscillatorHardBC]: Problem.sample_constraints(p, key)`)? Each
    iteration runs another model on the same random numbers, a fair comparison, as
    `_feeds_loop_item`, when what the call returns is kept whole and apart; not when it is fed
    back (`x = block(x, key)`) or combined (`total += Problem.sample(key).sum()`): the draws
    meet."""
    if not isinstance(loop, (ast.For, ast.AsyncFor)) or not isinstance(
        loop.iter, (ast.List, ast.Tuple)
    ):
        return False
    variants = loop.iter.elts
    if not variants or not all(isinstance(v, (ast.Name, ast.Attribute)) for v in variants):
        return False
    root = call.func
    while isinstance(root, ast.Attribute):
        root = root.value
    if not (isinstance(root, ast.Name) and root.id in _loop_targets(loop)):
        return False
    # what it returns is a statement's whole value, kept under a name the call is not given
    arguments = [*call.args, *(k.value for k in call.keywords)]
    fed = {n.id for a in arguments for n in walk_ast(a) if isinstance(n, ast.Name)}
    for statement in _statements(loop):
        if isinstance(statement, ast.Expr) and statement.value is call:
            return True
        if isinstance(statement, ast.Assign) and statement.value is call:
            return not any(n in fed for t in statement.targets for n in ast_target_names(t))
    return False


def _keeps_apart(statement: ast.stmt, value: ast.Call) -> bool:
    """Does `statement` store `value` into a container (`out[k] = value`, `out.append(value)`)?"""
    if isinstance(statement, ast.Assign) and statement.value is value:
        return all(isinstance(t, (ast.Subscript, ast.Attribute)) for t in statement.targets)
    return (
        isinstance(statement, ast.Expr)
        and isinstance(statement.value, ast.Call)
        and isinstance(statement.value.func, ast.Attribute)
        and statement.value.func.attr in ("append", "extend")
        and any(a is value for a in statement.value.args)
    )


def _one_value_randint(node: ast.Call, qualified: str) -> bool:
    """`randint(key, shape, minval=0, maxval=1)`: one possible value, whatever the key, so the
    call draws nothing a reuse could correlate."""
    if qualified != "jax.random.randint":
        return False
    bounds = {k.arg: k.value for k in node.keywords if k.arg in ("minval", "maxval")}
    for position, name in ((2, "minval"), (3, "maxval")):
        if len(node.args) > position:
            bounds[name] = node.args[position]
    low, high = (ast_int_literal(bounds.get(name)) for name in ("minval", "maxval"))
    return low is not None and high is not None and high - low <= 1


def _seed_per_variant(call: ast.Call, key: ast.expr, frame: _Loop) -> bool:
    """A seed (not a key) given unchanged to a call that also takes what the loop varies
    (`for name in controllers: run(name, seed)`): each variant run on the same random numbers,
    a fair comparison; a call that varies nothing builds identical copies."""
    place = _place(key)
    if place is None or KEY_NAME.search(_split_place(place)[1]):
        return False
    varied = _loop_targets(frame.node)
    return any(isinstance(n, ast.Name) and n.id in varied for n in walk_ast(call)) and not (
        _varies_sizes_only(call, varied, frame.node)
    )


# names of sizes: what a loop building the layers of one network varies
_SIZE_NAME = re.compile(
    r"(?i)(dim|size|width|feature|shape|unit|channel|hidden|n_in|n_out|in_|out_|fan)"
)


def _varies_sizes_only(call: ast.Call, varied: set[str], loop: ast.AST) -> bool:
    """Does `call` take what the loop varies only as sizes: a size keyword (`n_in=d`), an item
    of a list of sizes (`layer_dims[i + 1]`), or an item of a loop over sizes (`for d in
    hidden_dims`)? Then the loop builds the layers of one network, and equal sizes with one
    seed give identical layers: not variants of a comparison."""
    over_sizes = any(
        isinstance(n, ast.Name) and _SIZE_NAME.search(n.id)
        for iterable in _loop_iterables(loop)
        for n in walk_ast(iterable)
    )
    sized: set[int] = set()
    for keyword in call.keywords:
        if keyword.arg and _SIZE_NAME.search(keyword.arg):
            sized |= {id(n) for n in walk_ast(keyword.value)}
    for node in walk_ast(call):
        if (
            isinstance(node, ast.Subscript)
            and isinstance(node.value, ast.Name)
            and _SIZE_NAME.search(node.value.id)
        ):
            sized |= {id(n) for n in walk_ast(node.slice)}
    uses = [n for n in walk_ast(call) if isinstance(n, ast.Name) and n.id in varied]
    return bool(uses) and all(id(n) in sized or over_sizes for n in uses)


def _loop_iterables(loop: ast.AST) -> list[ast.expr]:
    if isinstance(loop, (ast.For, ast.AsyncFor)):
        return [loop.iter]
    if isinstance(loop, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
        return [g.iter for g in loop.generators]
    return []


def _dummy_sample(func: ast.expr) -> bool:
    """`env.observation_space.sample(key)`, `env.action_space(params).sample(key)` (gymnax's
    spaces take the parameters): an example value of a space, drawn for its shape and dtype (to
    `init` a network or build a dummy step), not for its numbers."""
    if not (isinstance(func, ast.Attribute) and func.attr == "sample"):
        return False
    space = func.value.func if isinstance(func.value, ast.Call) else func.value
    return _last_name(space).lower().endswith("space")


def _is_wildcard(pattern: ast.AST) -> bool:
    return type(pattern).__name__ == "MatchAs" and getattr(pattern, "pattern", 1) is None


class _Places:
    """Where each node of a scope sits: the arms of the `if` statements around it (if node,
    which arm) and the loops around it."""

    def __init__(self, scope: ast.AST) -> None:
        self.arms: dict[int, dict[int, str]] = {}
        self.loops: dict[int, frozenset[int]] = {}
        self.names: list[ast.Name] = []
        pending: list[tuple[ast.AST, dict[int, str], frozenset[int]]] = [(scope, {}, frozenset())]
        while pending:
            node, arms, loops = pending.pop()
            self.arms[id(node)] = arms
            self.loops[id(node)] = loops
            if isinstance(node, ast.Name):
                self.names.append(node)
            if isinstance(node, ast.If):
                pending.append((node.test, arms, loops))
                for arm in ("body", "orelse"):
                    inner = {**arms, id(node): arm}
                    pending += [(child, inner, loops) for child in getattr(node, arm)]
                continue
            if isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
                loops = loops | {id(node)}
            pending += [(child, arms, loops) for child in ast.iter_child_nodes(node)]

    def apart(self, read: ast.AST, second: ast.AST, first: ast.AST) -> bool:
        """Are `read` and `second` in opposite arms of one `if`, with every loop around that
        `if` also around `first`?"""
        second_arms = self.arms.get(id(second), {})
        first_loops = self.loops.get(id(first), frozenset())
        for statement, arm in self.arms.get(id(read), {}).items():
            other = second_arms.get(statement)
            if other is not None and other != arm and self.loops[statement] <= first_loops:
                return True
        return False


def _plain_names(target: ast.expr) -> set[str]:
    """The names an assignment target binds when it is only names (`a`, `a, b`, `a, *rest`);
    else nothing."""
    if isinstance(target, ast.Name):
        return {target.id}
    if isinstance(target, ast.Starred):
        return _plain_names(target.value)
    if isinstance(target, (ast.Tuple, ast.List)):
        parts = [_plain_names(e) for e in target.elts]
        return set().union(*parts) if parts and all(parts) else set()
    return set()


def _unused_random_results(scope: ast.AST, imports: ImportTable) -> set[int]:
    """The calls of `scope` whose results nothing uses: `jax.random` calls discarded or bound
    only to names that nothing in it reads or that are rebound first, and trees a `tree_map`
    lambda ignores."""
    read = _names_read(scope)
    unused = set()
    for node in _statements(scope):
        if isinstance(node, ast.Expr):
            value, targets = node.value, []
        elif isinstance(node, ast.Assign):
            value, targets = node.value, node.targets
        else:
            continue
        if not isinstance(value, ast.Call):
            continue
        if not (imports.resolve(dotted_ast(value.func)) or "").startswith(RANDOM):
            continue
        names = [n for t in targets for n in walk_ast(t) if isinstance(n, ast.Name)]
        plain = all(isinstance(t, (ast.Name, ast.Tuple, ast.List, ast.Starred)) for t in targets)
        if plain and not any(name.id in read for name in names):
            unused.add(id(value))
    return (
        unused
        | _overwritten_draws(scope, imports)
        | _ignored_by_tree_map(scope, imports)
        | _draws_into_dead_names(scope, imports)
    )


_PLAIN_TARGETS = (ast.Name, ast.Tuple, ast.List, ast.Starred)
_PURE_NAMESPACES = ("jax.", "numpy.", "math.", "builtins.")


def _computes_only(value: ast.expr, imports: ImportTable) -> bool:
    """Does evaluating `value` only compute (every call into JAX, NumPy, `math` or a builtin,
    or a JAX transform's result: `jax.vmap(f)(xs)`)? Then dropping its result drops all of it;
    another call (`env.step(a)`) may act on the world."""
    for node in walk_ast(value):
        if not isinstance(node, ast.Call):
            continue
        func = node.func.func if isinstance(node.func, ast.Call) else node.func
        if not (imports.resolve(dotted_ast(func)) or "").startswith(_PURE_NAMESPACES):
            return False
    return True


def _draws_into_dead_names(scope: ast.AST, imports: ImportTable) -> set[int]:
    """`jax.random` calls in the value of an assignment whose names are dead: never read, or
    read only by assignments to dead names (`zs = vmap(sample)(p, split(key, n))` read only by
    `emp_mean = zs.mean(0)`, which nothing reads). A name bound any other way stays live.
    Functions only: a module's names may be imported elsewhere, a class body's are read as
    attributes."""
    if not isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return set()
    in_classes = {
        id(s) for c in walk_ast(scope) if isinstance(c, ast.ClassDef) for s in _statements(c)
    }
    assigns = [
        s
        for s in _statements(scope)
        if isinstance(s, ast.Assign)
        and all(isinstance(t, _PLAIN_TARGETS) for t in s.targets)
        and id(s) not in in_classes
        and _computes_only(s.value, imports)
    ]
    if not assigns:
        return set()
    targets_of: dict[int, set[str]] = {}
    target_nodes: set[int] = set()
    value_nodes: dict[int, int] = {}  # a node in an assignment's value → that assignment
    for assign in assigns:
        names = [n for t in assign.targets for n in walk_ast(t) if isinstance(n, ast.Name)]
        targets_of[id(assign)] = {n.id for n in names}
        target_nodes |= {id(n) for n in names}
        for node in walk_ast(assign.value):
            value_nodes.setdefault(id(node), id(assign))
    dead = set().union(*targets_of.values())
    reads: list[tuple[str, int | None]] = []
    for node in walk_ast(scope):
        if isinstance(node, ast.arg):
            dead.discard(node.arg)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            dead -= set(node.names)
        elif isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Load):
                reads.append((node.id, value_nodes.get(id(node))))
            elif id(node) not in target_nodes:
                dead.discard(node.id)  # a loop target, `+=`, `with ... as`, `del`
    changed = True
    while changed:
        live = {
            name
            for name, owner in reads
            if name in dead and (owner is None or not targets_of[owner] <= dead)
        }
        changed = bool(live)
        dead -= live
    return {
        id(node)
        for assign in assigns
        if targets_of[id(assign)] <= dead
        for node in walk_ast(assign.value)
        if isinstance(node, ast.Call)
        and (imports.resolve(dotted_ast(node.func)) or "").startswith(RANDOM)
    }


TREE_MAPS = frozenset({"jax.tree_util.tree_map", "jax.tree.map"})
# what hands a lambda the keys of a tree or batch one by one (`_leaf_lambda`)
MAPPERS = TREE_MAPS | {VMAP}


def _ignored_by_tree_map(scope: ast.AST, imports: ImportTable) -> set[int]:
    """Calls whose result is a tree `tree_map` hands to a lambda parameter the lambda never
    reads (`tree_map(lambda x, k1, k2: x + normal(k1), xs, split(a), split(b))`: `k2` unused)."""
    found: set[int] = set()
    for node in walk_ast(scope):
        if not (
            isinstance(node, ast.Call)
            and node.args
            and isinstance(node.args[0], ast.Lambda)
            and imports.resolve(dotted_ast(node.func)) in TREE_MAPS
        ):
            continue
        function = node.args[0]
        if function.args.vararg is not None:
            continue
        read = {n.id for n in walk_ast(function.body) if isinstance(n, ast.Name)}
        for param, tree in zip(function.args.args, node.args[1:], strict=False):
            if param.arg not in read and isinstance(tree, ast.Call):
                found.add(id(tree))
    return found


def _overwritten_draws(scope: ast.AST, imports: ImportTable) -> set[int]:
    """`jax.random` results bound to names that a later statement of the same block rebinds
    before anything reads them (`y = normal(key, s)` then `y = None`), outside loops (where the
    next iteration may read them first)."""
    found: set[int] = set()
    for block in _blocks(scope, in_loop=False):
        for position, statement in enumerate(block):
            if not (isinstance(statement, ast.Assign) and isinstance(statement.value, ast.Call)):
                continue
            if not (imports.resolve(dotted_ast(statement.value.func)) or "").startswith(RANDOM):
                continue
            if not all(isinstance(t, (ast.Name, ast.Tuple, ast.List)) for t in statement.targets):
                continue
            names = {
                n.id for t in statement.targets for n in walk_ast(t) if isinstance(n, ast.Name)
            }
            for later in block[position + 1 :]:
                if names & _values_read(later):
                    break
                if isinstance(later, ast.Assign) and names <= {
                    n.id
                    for t in later.targets
                    for n in walk_ast(t)
                    if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
                }:
                    found.add(id(statement.value))
                    break
    return found


def _values_read(statement: ast.stmt) -> set[str]:
    """Names whose values `statement` reads: `y.shape` reads only the shape of `y`."""
    shape_only = {
        id(n.value)
        for n in walk_ast(statement)
        if isinstance(n, ast.Attribute) and n.attr in ("shape", "dtype", "ndim", "size")
    }
    return {
        n.id
        for n in walk_ast(statement)
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and id(n) not in shape_only
    }


def _blocks(node: ast.AST, *, in_loop: bool) -> Iterator[list[ast.stmt]]:
    """The statement lists of a function's body and nested blocks that are not in a loop."""
    for name in ("body", "orelse", "finalbody"):
        block = getattr(node, name, None)
        if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
            looped = in_loop or isinstance(node, (ast.For, ast.AsyncFor, ast.While))
            if not looped:
                yield block
            for statement in block:
                if not isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    yield from _blocks(statement, in_loop=looped)
    for handler in getattr(node, "handlers", []):
        yield from _blocks(handler, in_loop=in_loop)


def _names_read(scope: ast.AST) -> set[str]:
    """Names `scope` reads, its own or from nested functions that do not bind them (a nested
    `def` reading its own `k1` does not read the outer one)."""
    read: set[str] = set()
    pending: list[ast.AST] = list(ast.iter_child_nodes(scope))
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            own = {a.arg for a in walk_ast(node.args) if isinstance(a, ast.arg)}
            own |= {
                n.id
                for n in walk_ast(node)
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
            }
            read |= _names_read(node) - own
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            read.add(node.id)
        pending += ast.iter_child_nodes(node)
    return read


def _draws(scope: ast.AST, imports: ImportTable) -> Iterator[tuple[ast.Call, ast.expr | None]]:
    """Each `jax.random` call under `scope` that draws from a key, with its key argument."""
    for node in walk_ast(scope):
        if not isinstance(node, ast.Call):
            continue
        qualified = _public(imports.resolve(dotted_ast(node.func)) or "")
        if not qualified.startswith(RANDOM) or qualified in NOT_CONSUMING:
            continue
        key = node.args[0] if node.args else None
        yield node, next((k.value for k in node.keywords if k.arg == "key"), key)


def _first_draw(
    function: FunctionInfo, name: str, imports: ImportTable
) -> tuple[ast.Call, ast.expr] | None:
    """The first `jax.random` call of the function drawing from the parameter `name`, and the
    key argument there."""
    for node, key in _draws(function.node, imports):
        if isinstance(key, ast.Name) and key.id == name:
            return node, key
    return None


def _over_cases(loop: ast.AST) -> bool:
    """A `for` over a collection of cases (`for flow in layer_classes`, `enumerate(configs)`),
    not over numbers (`range`, `arange`, `linspace`) or a count of steps."""
    if not isinstance(loop, (ast.For, ast.AsyncFor)):
        return False
    iterable = loop.iter
    while isinstance(iterable, ast.Call) and dotted_ast(iterable.func) in ("enumerate", "zip"):
        if not iterable.args:
            return False
        iterable = iterable.args[0]
    if isinstance(iterable, ast.Call):
        last = (dotted_ast(iterable.func) or "").rpartition(".")[2]
        return last not in ("range", "arange", "linspace", "split", "trange", "tqdm")
    return isinstance(iterable, (ast.Name, ast.Attribute, ast.List, ast.Tuple))


def _loop_kind(node: ast.AST) -> str:
    if isinstance(node, (ast.For, ast.AsyncFor)):
        return "`for` loop"
    if isinstance(node, ast.While):
        return "`while` loop"
    if isinstance(node, ast.Call):
        return f"`{dotted_ast(node.func) or 'loop'}` body"
    return "comprehension"


def _invariant(seed: ast.expr, loop: ast.AST) -> bool:
    """Is a seed the same on every iteration: a literal, or names the loop never assigns?"""
    for node in walk_ast(seed):
        if isinstance(node, ast.Call) and not (
            isinstance(node.func, ast.Name) and node.func.id in ("int", "len")
        ):
            return False
    assigned = _assigned_in(loop)
    return not any(isinstance(n, ast.Name) and n.id in assigned for n in walk_ast(seed))


def _assigned_in(loop: ast.AST) -> set[str]:
    names: set[str] = set()
    for node in walk_ast(loop):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names


def anchored_calls(index: ModuleIndex, code: str) -> frozenset[int]:
    """`id()` of the `ast` calls `code`'s findings are anchored on (a cheap membership test)."""
    return index.memoized(
        ("prng-key-anchors", code),
        lambda: frozenset(id(f.node) for f in key_findings(index) if f.code == code),
    )


def key_span(index: ModuleIndex, finding: KeyFinding, *, first: bool = False) -> Span:
    """Where the finding's key argument is: at its anchor, or (`first`) at the earlier
    consumer of a JAX501 finding. The finding must have that key."""
    key = finding.first_key if first else finding.key
    assert key is not None  # (the caller's precondition)
    return index.span_of(key)


def findings_by_call(index: ModuleIndex, code: str) -> dict[Span, KeyFinding]:
    """`code`'s findings keyed by the span of the anchored call's callee, where a rule finds
    the same call in libcst (the callee, not the call: libcst counts parentheses around a
    call as part of it)."""

    def compute() -> dict[Span, KeyFinding]:
        return {
            index.span_of(finding.node.func): finding
            for finding in key_findings(index)
            if finding.code == code
        }

    return index.memoized(("prng-key-calls", code), compute)


def _loop_index(loop: ast.AST) -> str | None:
    """`i` of `for i in range(...)` / `for i, x in enumerate(...)` (or one such comprehension
    generator), when the body never assigns it."""
    if isinstance(loop, ast.For):
        target, iterable, body = loop.target, loop.iter, loop.body
    elif isinstance(loop, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
        if len(loop.generators) != 1:
            return None
        target, iterable, body = loop.generators[0].target, loop.generators[0].iter, []
    else:
        return None
    if not isinstance(iterable, ast.Call) or not isinstance(iterable.func, ast.Name):
        return None
    if iterable.func.id == "enumerate" and isinstance(target, ast.Tuple) and target.elts:
        target = target.elts[0]
    elif iterable.func.id != "range":
        return None
    if not isinstance(target, ast.Name):
        return None
    assigned = {n for statement in body for n in _assigned_in(statement)}
    return None if target.id in assigned else target.id


def _loop_targets(loop: ast.AST) -> set[str]:
    """The names a loop (or comprehension) binds on each iteration."""
    if isinstance(loop, (ast.For, ast.AsyncFor)):
        targets = [loop.target]
    elif isinstance(loop, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
        targets = [g.target for g in loop.generators]
    elif isinstance(loop, ast.Call) and loop.args and isinstance(loop.args[0], ast.Lambda):
        return {a.arg for a in loop.args[0].args.args}  # `tree_map(lambda x: ..., tree)`
    else:
        return set()
    return {n for t in targets for n in ast_target_names(t)}


_CHECK = re.compile(r"assert|allclose|array_equal|isclose|tree_all")


def _is_check(call: ast.Call) -> bool:
    """An equality check: `assert_allclose(...)`, `self.assertEqual(...)`, or
    `jax.tree.map(assert_allclose, ...)`."""
    callee = dotted_ast(call.func) or ""
    if _CHECK.search(callee.rsplit(".", 1)[-1]):
        return True
    return bool(call.args) and _CHECK.search(dotted_ast(call.args[0]) or "") is not None


def _assigned_names(body: list[ast.stmt], call: ast.Call) -> set[str]:
    """The names the statement holding `call` assigns it (or what it is part of) to."""
    for node in own_nodes(body):
        if (
            isinstance(node, (ast.Assign, ast.AnnAssign))
            and node.value is not None
            and any(n is call for n in walk_ast(node.value))
        ):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            return {n for t in targets for n in ast_target_names(t)}
    return set()


_BLOCKS = ("body", "orelse", "finalbody", "handlers", "cases")  # the statement lists of a node


def _statements(scope: ast.AST) -> Iterator[ast.stmt]:
    """Every statement in `scope`, those of nested functions and classes too (what `ast.walk`
    finds of them, without visiting the expressions)."""
    stack: list[ast.AST] = [scope]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.stmt):
            yield node
        for name in _BLOCKS:
            block = getattr(node, name, None)
            if isinstance(block, list):
                stack.extend(block)


def _constant_seed(function: FunctionInfo, module_imports: ImportTable) -> ast.Call | None:
    """See `KeyFlow.constant_seed`."""
    node = function.node
    if isinstance(node, ast.Lambda) or any(KEY_NAME.search(p) for p in function.params):
        return None
    imports = imports_in(function, module_imports)

    def resolved(call: ast.Call) -> str:
        return _public(imports.resolve(dotted_ast(call.func)) or "")

    makers, draws, returns = [], 0, False
    for inner in own_nodes(node.body):
        if isinstance(inner, _LOOPS) and any(
            isinstance(n, ast.Call) and resolved(n) in MAKERS for n in walk_ast(inner)
        ):
            return None  # a key made per iteration is the loop's own JAX502
        if isinstance(inner, ast.Return) and inner.value is not None:
            returns = True
        elif isinstance(inner, ast.Call):
            qualified = resolved(inner)
            if qualified in MAKERS:
                makers.append(inner)
            elif qualified.startswith(RANDOM) and qualified not in NOT_CONSUMING:
                draws += 1
    if len(makers) != 1 or not draws or not returns or not makers[0].args:
        return None
    seed = makers[0].args[0]
    literal = isinstance(seed, ast.Constant) and type(seed.value) is int
    return makers[0] if literal else None


_LOOPS = (
    ast.For,
    ast.AsyncFor,
    ast.While,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
)


def _bound(
    node: ast.Call,
    args: list[frozenset[int]],
    keywords: dict[str | None, frozenset[int]],
    summary: KeyConsumer,
    conditional: dict[int, str] | None = None,
    conditional_on: Container[str] = (),
) -> Iterator[tuple[ast.expr, frozenset[int], str]]:
    """The arguments of a call bound to the parameters its callee consumes as keys (weakly:
    those it hands only to weak consumers; see `KeyFlow.summary`). A key the
    callee uses only when another parameter is None is not consumed when the call passes that
    one, and weakly consumed (as the callee's own consumers are) when it does not; when the call
    passes one of `conditional_on` (the caller's parameters: `net=net`), `conditional` learns
    that argument → name: the key is used only when that name is None (a guard the caller's own
    summary inherits)."""
    positional, consumed, guards, weak = summary
    strength = dict.fromkeys(weak, WEAK) | dict.fromkeys(consumed, KNOWN)
    names = list(positional)
    given = {k.arg: k.value for k in node.keywords if k.arg is not None}
    for position, argument in enumerate(node.args):
        if isinstance(argument, ast.Starred):
            break
        if position < len(names):
            given[names[position]] = argument
    for key, other in guards:
        value = given.get(other)
        guarded = given.get(key)
        if (
            conditional is not None
            and isinstance(value, ast.Name)
            and value.id in conditional_on
            and guarded is not None
        ):
            conditional[id(guarded)] = value.id
            strength.setdefault(key, WEAK)
        elif value is not None and not (isinstance(value, ast.Constant) and value.value is None):
            strength.pop(key, None)
        else:
            strength.setdefault(key, WEAK)
    if not strength and FORWARDED not in weak:
        return
    for position, argument in enumerate(node.args):
        if isinstance(argument, ast.Starred):
            break
        if position < len(names) and names[position] in strength:
            yield argument, args[position], strength[names[position]]
    for keyword in node.keywords:
        if keyword.arg in strength:
            yield keyword.value, keywords[keyword.arg], strength[keyword.arg]
        elif FORWARDED in weak and keyword.arg in KEY_KEYWORDS and keyword.arg not in names:
            yield keyword.value, keywords[keyword.arg], WEAK


# bases whose constructor takes no key: a `key=` handed to them through `super().__init__`
INERT_BASES = frozenset(
    {"equinox.Module", "abc.ABC", "builtins.object", "object", "typing.Generic", "typing.Protocol"}
)


def _star_modules_before(index: ModuleIndex, line: int) -> list[str]:
    """The modules `from m import *` at the top level of the module binds names from before
    `line` (a star import in the `__main__` block comes after every class is made)."""
    found = []
    for statement in index.tree.body:
        if (
            isinstance(statement, ast.ImportFrom)
            and statement.lineno < line
            and any(a.name == "*" for a in statement.names)
        ):
            module = absolute_module(statement.module, statement.level, index.imports.package)
            if module is not None:
                found.append(module)
    return found


def _takes_no_key(summary: KeyConsumer) -> bool:
    """A summary that consumes, guards and hands on no key keyword."""
    _, consumed, guards, weak = summary
    return not (
        KEY_KEYWORDS & set(consumed)
        or any(KEY_KEYWORDS & {k} for k, _ in guards)
        or KEY_KEYWORDS & set(weak)
        or FORWARDED in weak
    )


def _forwards_only_to_super(function: FunctionInfo) -> bool:
    """Is every call passing the function's `**kwargs` on a `super().__init__(...)` or
    `super().<its own name>(...)`?"""
    kwarg = getattr(getattr(function.node, "args", None), "kwarg", None)
    if kwarg is None:
        return False
    for node in walk_ast(function.node):
        if isinstance(node, ast.Call) and any(
            k.arg is None and isinstance(k.value, ast.Name) and k.value.id == kwarg.arg
            for k in node.keywords
        ):
            func = node.func
            if not (
                isinstance(func, ast.Attribute)
                and func.attr in ("__init__", function.name)
                and isinstance(func.value, ast.Call)
                and isinstance(func.value.func, ast.Name)
                and func.value.func.id == "super"
            ):
                return False
    return True


def _forwards_kwargs(function: ast.AST) -> bool:
    """Does `function` take `**kwargs` and pass them on (`super().__init__(**kwargs)`)?"""
    kwarg = getattr(getattr(function, "args", None), "kwarg", None)
    if kwarg is None:
        return False
    return any(
        isinstance(node, ast.Call)
        and any(
            k.arg is None and isinstance(k.value, ast.Name) and k.value.id == kwarg.arg
            for k in node.keywords
        )
        for node in walk_ast(function)
    )


def _none_guards(function: ast.AST, params: set[str]) -> dict[int, frozenset[str]]:
    """Call → the parameters that are None wherever it runs (`if net is None:` bodies and
    `if net is not None:` else arms)."""
    found: dict[int, frozenset[str]] = {}

    def tested(test: ast.expr, operator: type) -> str | None:
        name = _compared_to_none(test, operator)
        return name if name in params else None

    def visit(nodes: Iterable[ast.AST], none: frozenset[str]) -> None:
        for node in nodes:
            if isinstance(node, ast.If):
                visit([node.test], none)
                is_none, not_none = tested(node.test, ast.Is), tested(node.test, ast.IsNot)
                visit(node.body, none | {is_none} if is_none else none)
                visit(node.orelse, none | {not_none} if not_none else none)
                continue
            if not none:  # no call here is guarded: only an `if` further in can start a guard
                for name in _BLOCKS:
                    block = getattr(node, name, None)
                    if isinstance(block, list):
                        visit(block, none)
                continue
            if isinstance(node, ast.Call):
                found[id(node)] = none
            visit(ast.iter_child_nodes(node), none)

    visit(getattr(function, "body", []), frozenset())
    return found


def _runs_once(loop: ast.AST, sizes: Mapping[str, int]) -> bool:
    """A loop over at most one item: `for n in [10]`, `range(1)`, a name bound to `[10]`."""
    if not isinstance(loop, (ast.For, ast.AsyncFor)):
        return False
    iterable = loop.iter
    if isinstance(iterable, (ast.List, ast.Tuple, ast.Set)):
        return len(iterable.elts) <= 1 and not any(
            isinstance(e, ast.Starred) for e in iterable.elts
        )
    if isinstance(iterable, ast.Name):
        return sizes.get(iterable.id, 2) <= 1
    if (
        isinstance(iterable, ast.Call)
        and isinstance(iterable.func, ast.Name)
        and iterable.func.id == "range"
        and len(iterable.args) == 1
        and isinstance(iterable.args[0], ast.Constant)
    ):
        return isinstance(iterable.args[0].value, int) and iterable.args[0].value <= 1
    return False


def _expects_raise(context: ast.expr) -> bool:
    """`pytest.raises(...)`, `self.assertRaises(...)`: the block is expected to stop at an
    error, perhaps before it consumes anything."""
    if not isinstance(context, ast.Call):
        return False
    name = (dotted_ast(context.func) or "").rsplit(".", 1)[-1]
    return name in ("raises", "assertRaises", "assertRaisesRegex")
