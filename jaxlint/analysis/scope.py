"""Which functions of a module are traced, how, and with which parameters static (SPEC §2).

Built once per file from the `ast` (cheap: ~20x faster than a libcst parse), so the engine can
decide which parts of a file need libcst at all. Rules read it through `jaxlint.engine.rule`.
"""

from __future__ import annotations

import ast
import functools
import itertools
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar, cast

from jaxlint.analysis.ast_walk import own_nodes, walk_ast
from jaxlint.analysis.jax_api import (
    ARRAY_ANNOTATIONS,
    CALL_THROUGH,
    CUSTOM_DERIVATIVE_WRAPPERS,
    CUSTOM_RULE_ATTRIBUTES,
    DATACLASS_PYTREE_BASES,
    DATACLASS_PYTREE_DECORATORS,
    EAGER_TRANSFORMS,
    FILTER_JIT_STATIC_ANNOTATIONS,
    FILTERING_JITS,
    FRAMEWORK_BASE_ALIASES,
    FRAMEWORK_TRACED_METHODS,
    HOST_CALLBACKS,
    JIT_APIS,
    NON_PYTREE_CLASS_APIS,
    PASS_THROUGH_WRAPPERS,
    PYTREE_BASES,
    PYTREE_CLASS_DECORATORS,
    PYTREE_REGISTRATION_CALLS,
    REFERENCE_SEMANTICS_APIS,
    SLICING_TRANSFORMS,
    STAGING_TRANSFORMS,
    STRUCTURED_RESULTS,
    TRACING_JITS,
    TRANSFORMS,
    TraceKind,
    TraceReason,
    is_array_api,
)
from jaxlint.analysis.names import ImportTable, ast_target_names, calls_under, dotted_ast
from jaxlint.diagnostics import Span

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
_FUNCTION_TYPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
# nodes with nothing under them that the structure pass records: not worth a visit
_CHILDLESS = frozenset(
    {ast.Load, ast.Store, ast.Del, ast.Constant}
    | {
        kind
        for base in (ast.operator, ast.unaryop, ast.cmpop, ast.boolop)
        for kind in base.__subclasses__()
    }
)
_CONTAINER_DISPLAYS = (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp)
_CONTAINER_FACTORIES = frozenset(
    {
        "builtins.list",
        "builtins.dict",
        "builtins.set",
        "collections.defaultdict",
        "collections.deque",
        "collections.OrderedDict",
        "collections.Counter",
    }
)


T = TypeVar("T")
_Node = TypeVar("_Node", bound=ast.AST)
# a function of the project that consumes keys: its positional parameters, the consumed ones,
# (key, other) pairs for a key consumed only when the other parameter is None, and the parameters
# it hands only to weak consumers (callees jaxlint cannot see)
KeyConsumerSummary = tuple[
    tuple[str, ...], tuple[str, ...], tuple[tuple[str, str], ...], tuple[str, ...]
]
FORWARDED = "**"  # in a summary's weak parameters: it hands its `**kwargs` on


@dataclass(eq=False)
class JitRoot:
    """One place where a function is wrapped by a jit-like API."""

    api: str  # qualified name, e.g. "jax.jit"
    via: str  # "decorator" | "call"
    node: ast.expr | ast.stmt  # the decorator expression or the wrapping call (or the def)
    static_params: frozenset[str] | None  # None: the spec could not be read statically
    static_argnums: tuple[int, ...] = ()
    static_argnames: tuple[str, ...] = ()
    bound_method: bool = False


# methods that run once per object, where its parts (and its keys) are made
OBJECT_CONSTRUCTORS = frozenset({"__init__", "__post_init__", "setup"})


@dataclass(eq=False)
class ClassInfo:
    """A class of the module, and whether its instances are pytrees."""

    node: ast.ClassDef
    base_names: list[str]  # qualified names, or local class names
    decorator_names: list[str]
    methods: dict[str, FunctionInfo] = field(default_factory=dict)
    local_bases: list[ClassInfo] = field(default_factory=list)  # base classes of this module
    registered: bool = False

    def lineage(self) -> list[ClassInfo]:
        """The class and its base classes of the module, in the order Python looks names up in
        them (depth first, the class itself first; a base seen once)."""
        order: list[ClassInfo] = []
        pending: list[ClassInfo] = [self]
        while pending:
            current = pending.pop()
            if any(current is seen for seen in order):
                continue
            order.append(current)
            pending.extend(reversed(current.local_bases))
        return order

    def all_methods(self) -> dict[str, FunctionInfo]:
        """Its methods and those it inherits from base classes of the module, each name
        resolved as Python would."""
        found: dict[str, FunctionInfo] = {}
        for class_info in reversed(self.lineage()):
            found.update(class_info.methods)
        return found

    @property
    def static_fields(self) -> set[str]:
        """Fields declared static: `x: T = static_field()`, `field(pytree_node=False)`,
        `eqx.field(static=True)`: Python values in every trace, never leaves."""
        return {name for name, field in self.annotated_fields() if _declares_static(field.value)}

    def annotated_fields(self) -> Iterator[tuple[str, ast.AnnAssign]]:
        """(name, statement) of the class body's annotated fields (`n_steps: int = 3`)."""
        for statement in self.node.body:
            if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
                yield statement.target.id, statement

    def number_leaf_fields(self) -> frozenset[str]:
        """Fields of a dataclass-like pytree (flax.struct, chex, equinox, NamedTuple,
        `register_dataclass`), its module's bases included, that are leaves annotated as a
        number or an array: through `jax.jit` an `n_steps: int` field is a traced int32, not a
        Python int (`range(cfg.n_steps)` raises). Static fields are not leaves; a class that
        flattens itself (`register_pytree_node_class`) says nothing about its fields."""
        found: set[str] = set()
        static: set[str] = set()
        for class_info in self._dataclass_chain():
            static |= class_info.static_fields
            found |= {
                name
                for name, field in class_info.annotated_fields()
                if _number_annotation(field.annotation)
            }
        return frozenset(found - static)

    def _dataclass_chain(self) -> list[ClassInfo]:
        """The class and its module's bases, if each is a dataclass-like pytree (or derives from
        one of the module); else []."""
        lineage = self.lineage()
        for current in lineage:
            own = any(d in DATACLASS_PYTREE_DECORATORS for d in current.decorator_names) or any(
                b in DATACLASS_PYTREE_BASES for b in current.base_names
            )
            if not own and not current.local_bases:
                return []
        return lineage


@dataclass(eq=False)
class FunctionInfo:
    """A def or lambda, with what the module-level analysis learned about it."""

    node: FunctionNode
    name: str
    parent: FunctionInfo | None
    class_info: ClassInfo | None  # set for functions defined directly in a class body
    positional: tuple[str, ...]
    keyword_only: tuple[str, ...]
    vararg: str | None
    kwarg: str | None
    with_defaults: frozenset[str]
    annotations: dict[str, ast.expr]
    decorator_names: list[str | None]
    local_defs: dict[str, FunctionInfo] = field(default_factory=dict)
    local_names: set[str] = field(default_factory=set)
    loaded_names: set[str] = field(default_factory=set)
    loaded_attributes: set[str] = field(default_factory=set)  # `x.<name>` read in the body
    declared_outer: set[str] = field(default_factory=set)  # `global` / `nonlocal` names
    trace: TraceKind | None = None
    roots: list[JitRoot] = field(default_factory=list)
    reasons: list[TraceReason] = field(default_factory=list)
    host: bool = False
    # wrapped by custom_jvp/custom_vjp, or one of their rules: autodiff runs it on concrete values
    custom_derivative: bool = False
    reference_semantics: bool = False
    slicing: bool = False  # traced by a transform of SLICING_TRANSFORMS (vmap, scan…)
    # staged into a jaxpr (jit, lax bodies, checkpoint, or called from such a function):
    # every JAX operation is traced there
    staged: bool = False
    staged_body: bool = False  # passed to a STAGING_TRANSFORM: every parameter is a tracer
    # called by a library's jitted method with that method's own arguments (gymnax's `step`
    # calls `self.step_env(key, state, action, params)`): every parameter but `self` is a tracer
    framework_traced: bool = False
    # params every traced call site of the module passes a tracer parameter of the caller to
    # by name (`self.transition(key, state, action)` in a gymnax `step_env`)
    passed_tracers: frozenset[str] = frozenset()
    # params `jax.vmap` maps over where the function is vmapped (`in_axes` left out, an int, or
    # a literal tuple's non-None positions): batch tracers inside
    batched_params: frozenset[str] = frozenset()
    partial_bound: set[str] = field(default_factory=set)  # bound by some `partial(f, ...)`
    callers: list[FunctionInfo] = field(default_factory=list)
    constant_params: set[str] | None = None  # params every visible call site passes a literal
    # a jitted function's params every call site of this module passes a hashable literal
    # (None: no call site seen, so nothing is known about what callers pass)
    host_constant_params: set[str] | None = None
    # "array" / "container" / "traced" (a traced caller passes its own argument)
    param_hints: dict[str, set[str]] = field(default_factory=dict)
    # see `returns_array` (computed when first asked)
    _returns_array: bool | None = field(default=None, repr=False)
    # parameter → the number or array leaf fields of its dataclass-like pytree class (`cfg:
    # Config`, the `self` of such a class's method): see ClassInfo.number_leaf_fields
    leaf_fields: dict[str, frozenset[str]] = field(default_factory=dict)
    # the import statements in the function's own body (not in functions nested in it)
    imports: list[ast.Import | ast.ImportFrom] = field(default_factory=list)
    _import_table: ImportTable | None = field(default=None, repr=False)

    @property
    def is_method(self) -> bool:
        return (
            self.class_info is not None
            and not isinstance(self.node, ast.Lambda)
            and "builtins.staticmethod" not in self.decorator_names
            and bool(self.positional)
        )

    @property
    def is_classmethod(self) -> bool:
        return "builtins.classmethod" in self.decorator_names

    @functools.cached_property
    def params(self) -> tuple[str, ...]:
        extra = tuple(p for p in (self.vararg, self.kwarg) if p)
        return self.positional + self.keyword_only + extra

    def decorator_position(self, root: JitRoot) -> int:
        """Which of the def's decorators (0 for the first) a decorator jit root is."""
        function = self.node
        assert not isinstance(function, ast.Lambda)  # (it has decorators)
        assert isinstance(root.node, ast.expr)  # a decorator root's node is the decorator
        return function.decorator_list.index(root.node)

    @property
    def header_lines(self) -> list[int]:
        """The `def` line and decorator lines: a `# noqa: CODE` there covers the function."""
        node = self.node
        lines = [node.lineno]
        if not isinstance(node, ast.Lambda):
            lines += [d.lineno for d in node.decorator_list]
        return lines

    @property
    def start_line(self) -> int:
        return min(self.header_lines)

    @property
    def end_line(self) -> int:
        return self.node.end_lineno or self.node.lineno

    @property
    def static_params(self) -> frozenset[str]:
        """Parameters that hold Python values at trace time (not tracers)."""
        static: set[str] = set()
        specs = [root.static_params for root in self.roots]
        if specs:
            readable = [s for s in specs if s is not None]
            if len(readable) < len(specs):
                return frozenset(self.params)  # an unreadable spec: do not guess
            static = set.intersection(*(set(s) for s in readable))
        elif self.constant_params:
            static = set(self.constant_params)
        if self.is_method and (self.class_info is None or not is_pytree_class(self.class_info)):
            static.add(self.positional[0])  # a non-pytree `self` cannot be traced at all
        return frozenset(static)

    @property
    def tracer_params(self) -> frozenset[str]:
        """Parameters that are tracers whenever JAX stages this function: those without a
        default of a lax body or checkpointed function, or of a jit (less its static ones). A
        default left alone, or bound by `partial(f, k=...)`, is a Python value."""
        plain = set(self.params) - set(self.with_defaults) - {self.vararg, self.kwarg}
        plain -= self.partial_bound
        if self.staged_body:
            return frozenset(plain)
        if self.framework_traced:
            return frozenset(plain - set(self.positional[:1]))
        if any(root.api in TRACING_JITS for root in self.roots):
            return frozenset(plain - self.static_params)
        return self.passed_tracers | (plain & self.batched_params)

    def encloses_local(self, name: str) -> bool:
        """Is `name` a local of a function enclosing this one (a closure variable)?"""
        return self.defining_function(name) not in (None, self)

    def defining_function(self, name: str) -> FunctionInfo | None:
        """The innermost function (this one or an enclosing one) where `name` is a local."""
        function: FunctionInfo | None = self
        while function is not None:
            if name in function.local_names:
                return function
            function = function.parent
        return None

    @property
    def own_trace(self) -> bool:
        """Traced by a transform of its own (a new trace level), not only by being called."""
        return any(not reason.by_call for reason in self.reasons)

    def describe(self) -> str:
        return "lambda" if isinstance(self.node, ast.Lambda) else f"`{self.name}`"

    @property
    def traced_eagerly(self) -> bool:
        """Traced, but only by transforms that run its Python body on every call (`vmap`,
        `grad`, `hessian`, ...), directly or through callers of this module traced that way: no
        jit or lax body stages it, so only what it computes from traced inputs is a tracer. A
        function traced from another module is not known to be (its caller may be jitted)."""
        return self.trace is not None and _eager(self, set())


def imports_in(function: FunctionInfo | None, imports: ImportTable) -> ImportTable:
    """The module's import table as seen inside `function`: with the imports of the function
    and of the functions around it binding over the module's."""
    if function is None:
        return imports
    if function._import_table is None:
        outer = imports_in(function.parent, imports)
        own = function.imports
        function._import_table = outer.with_imports(own) if own else outer
    return function._import_table


def calls_into(function: FunctionInfo, imports: ImportTable, prefixes: tuple[str, ...]) -> bool:
    """Does the function's code call something whose qualified name (as the imports seen
    inside it resolve it: `imports_in`) starts with one of `prefixes` (`("jax.numpy.",)`)?"""
    return calls_under(function.node, imports_in(function, imports), prefixes)


@dataclass(eq=False)
class ModuleIndex:
    """The module-level facts every rule shares, computed once per file."""

    tree: ast.Module
    imports: ImportTable
    functions: list[FunctionInfo]  # in source order (by start position)
    module_defs: dict[str, FunctionInfo]
    classes: dict[str, ClassInfo]
    aliases: dict[str, list[FunctionInfo]]  # `g = jax.jit(f)` → g: [f]
    jit_decorators: frozenset[str]
    module_values: dict[str, str]  # module-level `name = <value>`: "container" or the callee's name
    lines: list[str] = field(default_factory=list)
    # jax_enable_x64 is turned on by this module or, as far as the project index saw, the project
    enables_x64: bool = False
    # functions of other modules of the project that consume a key parameter (ProjectView)
    key_consumers: Mapping[str, KeyConsumerSummary] = field(default_factory=dict)
    # the project's top-level packages (ProjectView)
    project_packages: frozenset[str] = frozenset()
    # names every class of the project binds to a jitted callable that returns before its
    # result is computed (ProjectView; `jit_members.async_members`)
    async_members: frozenset[str] = frozenset()
    # names some class of the project calls through `self` inside a loop (ProjectView)
    looped_methods: frozenset[str] = frozenset()
    # calls from traced code to functions imported from elsewhere: (qualified callee, trace kind,
    # caller); the project index marks the callees traced in their own modules
    outgoing: list[tuple[str, TraceKind, TraceReason]] = field(default_factory=list)
    _host_calls: set[str] | None = field(default=None, repr=False)
    _memo: dict[object, Any] = field(default_factory=dict, repr=False)

    @property
    def text(self) -> str:
        """The module's source text."""
        return self.memoized("text", lambda: "".join(self.lines))

    @property
    def line_starts(self) -> list[int]:
        """Offset in `text` of each line's start, and of the end: line n is
        `text[line_starts[n - 1] : line_starts[n]]`."""
        return self.memoized(
            "line-starts", lambda: list(itertools.accumulate(map(len, self.lines), initial=0))
        )

    def top_level_classes(self) -> list[ClassInfo]:
        """The classes the module defines at its top level, by name: those other modules
        reach (a class nested in a function is not one)."""
        top = {id(statement) for statement in self.tree.body}
        return sorted(
            (c for c in self.classes.values() if id(c.node) in top), key=lambda c: c.node.name
        )

    def function_of(self, node: ast.AST) -> FunctionInfo | None:
        """The def or lambda `node` is, as the index holds it."""
        by_node = self.memoized(
            "functions-by-node", lambda: {id(f.node): f for f in self.functions}
        )
        return by_node.get(id(node))

    def memoized(self, key: object, compute: Callable[[], T]) -> T:
        """`compute()`, once per module and key: what a rule derives from the module (the
        names it calls in loops) and asks for again at every candidate."""
        if key not in self._memo:
            self._memo[key] = compute()
        # what `compute` made for this key: each key is asked for with one type
        return cast(T, self._memo[key])

    def called_on_host(self, function: FunctionInfo) -> bool:
        """Is `function`, or a jit alias of it, called from host code of this module (module
        level, or a function nothing traces)? `self.f(...)` counts for methods."""
        if self._host_calls is None:
            self._host_calls = _host_called_names(self.tree, self.functions)
        names = {alias for alias, targets in self.aliases.items() if function in targets}
        names.add(f"self.{function.name}" if function.class_info is not None else function.name)
        return bool(names & self._host_calls)

    def span_of(self, node: ast.expr | ast.stmt) -> Span:
        """File span of an ast node (ast columns are UTF-8 byte offsets; spans count characters)."""
        end_line = getattr(node, "end_lineno", None) or node.lineno
        end_col = getattr(node, "end_col_offset", None)
        return Span(
            node.lineno,
            self._characters(node.lineno, node.col_offset) + 1,
            end_line,
            self._characters(end_line, end_col if end_col is not None else node.col_offset) + 1,
        )

    def _characters(self, line: int, byte_offset: int) -> int:
        if not 0 < line <= len(self.lines):
            return byte_offset
        text = self.lines[line - 1]
        if text.isascii():
            return byte_offset
        return len(text.encode("utf-8")[:byte_offset].decode("utf-8", errors="ignore"))

    def relevant(self, function: FunctionInfo) -> bool:
        """Does this function need a closer look: traced, or wrapped by a jit?"""
        return function.trace is not None or bool(function.roots)

    def units(self, extra_lines: Iterable[int] = ()) -> list[tuple[int, int, ast.stmt]]:
        """(first line, last line, statement) of the smallest statements that hold relevant code.

        A relevant def is its own unit; a relevant lambda brings the statement around it; each
        of `extra_lines` brings the innermost def around it, or its top-level statement. Units
        nested in other units are dropped. Each unit is parsed by libcst on its own.
        """
        anchors: list[tuple[int, int, ast.stmt]] = []
        for line in extra_lines:
            anchor = self._innermost_around(line)
            if anchor is not None:
                anchors.append(anchor)
        for function in self.functions:
            if not self.relevant(function):
                continue
            if isinstance(function.node, ast.Lambda):
                statement = _enclosing_statement(self.tree.body, function.node)
                if statement is None:
                    continue
                first = min(
                    [statement.lineno]
                    + [d.lineno for d in getattr(statement, "decorator_list", [])]
                )
                anchors.append((first, statement.end_lineno or statement.lineno, statement))
            else:
                anchors.append((function.start_line, function.end_line, function.node))
        anchors.sort(key=lambda a: (a[0], -a[1]))
        units: list[tuple[int, int, ast.stmt]] = []
        for anchor in anchors:
            if units and anchor[0] >= units[-1][0] and anchor[1] <= units[-1][1]:
                continue
            units.append(anchor)
        return units

    def _innermost_around(self, line: int) -> tuple[int, int, ast.stmt] | None:
        inside = [
            (f.start_line, f.end_line, f.node)
            for f in self.functions
            if isinstance(f.node, ast.FunctionDef | ast.AsyncFunctionDef)
            and f.start_line <= line <= f.end_line
        ]
        if inside:
            return max(inside, key=lambda unit: unit[0])  # the innermost
        for statement in self.tree.body:
            first = min(
                [statement.lineno] + [d.lineno for d in getattr(statement, "decorator_list", [])]
            )
            if first <= line <= (statement.end_lineno or statement.lineno):
                return first, statement.end_lineno or statement.lineno, statement
        return None


def _enclosing_statement(body: list[ast.stmt], target: ast.expr) -> ast.stmt | None:
    """The innermost statement whose lines contain `target`."""
    line = target.lineno
    found = None
    statements = body
    while statements:
        inner: list[ast.stmt] = []
        for statement in statements:
            first = min(
                [statement.lineno] + [d.lineno for d in getattr(statement, "decorator_list", [])]
            )
            if first <= line <= (statement.end_lineno or statement.lineno):
                found = statement
                for field_name in ("body", "orelse", "finalbody", "handlers", "cases"):
                    for child in getattr(statement, field_name, []) or []:
                        if isinstance(child, ast.stmt):
                            inner.append(child)
                        else:  # except handlers / match cases hold statements
                            inner.extend(getattr(child, "body", []))
                break
        statements = inner
    return found


def is_pytree_class(class_info: ClassInfo, seen: frozenset[int] = frozenset()) -> bool:
    """True when instances are pytrees: registered, or a pytree base class (maybe inherited)."""
    if class_info.registered:
        return True
    if any(d in PYTREE_CLASS_DECORATORS for d in class_info.decorator_names):
        return True
    if any(b in PYTREE_BASES for b in class_info.base_names):
        return True
    seen = seen | {id(class_info)}
    # registration by decorator or call is not inherited; only base classes that are pytrees
    # because of *their* bases (eqx.Module, flax.struct.PyTreeNode, ...) pass it on
    return any(
        id(base) not in seen and _inherits_pytree_base(base, seen)
        for base in class_info.local_bases
    )


def pytree_mixin(
    class_info: ClassInfo, classes: list[ClassInfo], seen: frozenset[int] = frozenset()
) -> bool:
    """Is the class a base that only pytree classes of the module derive from (a mixin of
    operations, `class State(PyTreeOps)` with `@chex.dataclass`)? Its methods then run on
    pytree instances."""
    seen = seen | {id(class_info)}
    derived = [c for c in classes if any(b is class_info for b in c.local_bases)]
    return bool(derived) and all(
        may_be_pytree(c) or (id(c) not in seen and pytree_mixin(c, classes, seen)) for c in derived
    )


def may_be_pytree(class_info: ClassInfo) -> bool:
    """Is the class a pytree, or may a base or decorator jaxlint cannot see into make it one?"""
    if is_pytree_class(class_info):
        return True
    if any(d not in NON_PYTREE_CLASS_APIS for d in class_info.decorator_names):
        return True
    return _unknown_base(class_info, frozenset())


def _unknown_base(class_info: ClassInfo, seen: frozenset[int]) -> bool:
    local = {base.node.name: base for base in class_info.local_bases}
    if any(b not in local and b not in NON_PYTREE_CLASS_APIS for b in class_info.base_names):
        return True
    seen = seen | {id(class_info)}
    return any(id(b) not in seen and _unknown_base(b, seen) for b in local.values())


def _inherits_pytree_base(class_info: ClassInfo, seen: frozenset[int]) -> bool:
    if any(b in PYTREE_BASES for b in class_info.base_names):
        return True
    seen = seen | {id(class_info)}
    return any(id(b) not in seen and _inherits_pytree_base(b, seen) for b in class_info.local_bases)


# ---------------------------------------------------------------------------------------------
# Building the index


_EXITS = (ast.Return, ast.Raise, ast.Continue, ast.Break)


# node type → (is it a statement, the fields that may hold nodes): `ctx`, identifiers and
# constants' values never do
_SHAPES: dict[type[ast.AST], tuple[bool, tuple[str, ...]]] = {}
_LEAF_FIELDS = frozenset({"ctx", "id", "arg", "attr", "name", "names", "kind"})


def _shape(kind: type[ast.AST]) -> tuple[bool, tuple[str, ...]]:
    fields = tuple(f for f in kind._fields if f not in _LEAF_FIELDS)
    return issubclass(kind, ast.stmt), fields


def _reachability(body: Sequence[_Node], dead: bool) -> list[tuple[_Node, bool]]:
    """Each statement of a block, and whether it is dead (after an exit of the block)."""
    out = []
    for statement in body:
        out.append((statement, dead))
        dead = dead or isinstance(statement, _EXITS)
    return out


def _host_called_names(tree: ast.Module, functions: list[FunctionInfo]) -> set[str]:
    """Names called outside traced code: `f(...)`, `self.f(...)`, `jax.jit(f)(...)`."""
    info_of = {id(f.node): f for f in functions}
    called: set[str] = set()
    # an explicit stack, as in _IndexBuilder: deeply nested code must not exhaust recursion
    stack: list[tuple[ast.AST, bool]] = [(tree, True)]
    while stack:
        node, host = stack.pop()
        for child in ast.iter_child_nodes(node):
            child_host = host
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                info = info_of.get(id(child))
                child_host = info is None or info.trace is None
            elif host and isinstance(child, ast.Call):
                func = child.func
                if isinstance(func, ast.Call) and func.args:  # `jax.jit(f)(x)`
                    func = func.args[0]
                if isinstance(func, ast.Name):
                    called.add(func.id)
                elif (
                    isinstance(func, ast.Attribute)
                    and isinstance(func.value, ast.Name)
                    and func.value.id in ("self", "cls")
                ):
                    called.add(f"self.{func.attr}")
            stack.append((child, child_host))
    return called


def build_index(
    tree: ast.Module,
    jit_decorators: tuple[str, ...] = (),
    lines: list[str] | None = None,
    *,
    package: str | None = None,
    traced_from_outside: Mapping[str, tuple[TraceKind, TraceReason]] | None = None,
) -> ModuleIndex:
    """Analyse a parsed module: functions, classes, jit roots, traced set.

    `package` resolves relative imports; `traced_from_outside` (module-level function name →
    trace kind and reason) marks what traced code in other modules of the project calls.
    `outgoing` is what the module's own traced code calls, whatever the marks.
    """
    builder = _IndexBuilder(tree, ImportTable.from_ast(tree, package), frozenset(jit_decorators))
    builder.collect(tree.body, parent=None, class_info=None)
    for function in builder.functions:
        function.local_names -= function.declared_outer
        function._import_table = None  # asked while its imports were still being collected
    for class_info in builder.classes.values():
        class_info.local_bases = [
            builder.classes[b] for b in class_info.base_names if b in builder.classes
        ]
    if any(c.number_leaf_fields() for c in builder.classes.values()):
        for function in builder.functions:
            builder.collect_leaf_fields(function)
    builder.find_roots()
    builder.propagate()
    # what this module's own traced code calls: the marks others gave it reach no further (one
    # hop from the module that jits: a chain through several modules of a big library reaches
    # helpers whose arguments nothing describes; measured on flax, numpyro, optax: findings that
    # were all false; a package's `train.py` → `losses.py` is one hop)
    outgoing = builder.outgoing_calls()
    if traced_from_outside:
        for name, (kind, reason) in traced_from_outside.items():
            for info in builder.functions_named(name):
                builder._mark(info, kind, reason)
        builder.propagate()
    builder.collect_host_constants()
    builder.collect_call_hints()
    functions = sorted(builder.functions, key=lambda f: _start_key(f.node))
    return ModuleIndex(
        tree=tree,
        imports=builder.imports,
        functions=functions,
        module_defs=builder.module_defs,
        classes=builder.classes,
        aliases=builder.aliases,
        jit_decorators=builder.jit_decorators,
        module_values=builder.module_values(),
        lines=lines or [],
        outgoing=outgoing,
    )


def _eager(info: FunctionInfo, visiting: set[int]) -> bool:
    if id(info) in visiting:
        return True  # a recursive call adds no reason of its own
    visiting.add(id(info))
    if info.staged:
        return False
    for reason in info.reasons:
        if reason.by_call:
            if reason.module:
                return False
        elif reason.api not in EAGER_TRANSFORMS:
            return False
    return all(caller.trace is None or _eager(caller, visiting) for caller in info.callers)


def _start_key(node: FunctionNode) -> tuple[int, int]:
    if isinstance(node, ast.Lambda) or not node.decorator_list:
        return (node.lineno, node.col_offset)
    first = node.decorator_list[0]
    return (first.lineno, first.col_offset - 1)  # the `@` precedes the decorator expression


def _literal(node: ast.AST | None) -> object:
    if node is None:
        return None
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return _UNREADABLE


_UNREADABLE = object()


class _IndexBuilder:
    def __init__(self, tree: ast.Module, imports: ImportTable, jit_decorators: frozenset[str]):
        self.tree = tree
        self.imports = imports
        self.jit_decorators = jit_decorators
        self.functions: list[FunctionInfo] = []
        self.by_node: dict[int, FunctionInfo] = {}
        self.module_defs: dict[str, FunctionInfo] = {}
        self.classes: dict[str, ClassInfo] = {}
        self.aliases: dict[str, list[FunctionInfo]] = {}
        # (enclosing function or None, call node) for every call in the module
        self.calls: list[tuple[FunctionInfo | None, ast.Call]] = []
        self._resolved_calls: list[tuple[FunctionInfo | None, ast.Call, str | None]] | None = None
        self._linen_passed: dict[int, ast.Call] = {}  # id(call) → its `_as_passed` form
        self._class_of: dict[int, ClassInfo] = {}
        self.instances: dict[str, ClassInfo] = {}  # module-level `name = LocalClass(...)`
        self._attributes_of: dict[int, dict[str, list[ast.expr]]] = {}  # `_attribute_values`
        # id(function node) → `local_bindings_of` it, computed when a call site asks
        self.local_bindings: dict[int, dict[str, list[ast.expr | None]]] = {}
        self.module_assigns: list[ast.Assign] = []
        # (wrapped function, its custom derivative rule): the rule is traced where `f` is
        self.rule_edges: list[tuple[FunctionInfo, FunctionInfo]] = []

    # -- pass 1: structure --------------------------------------------------------------------

    def collect(
        self, body: list[ast.stmt], parent: FunctionInfo | None, class_info: ClassInfo | None
    ) -> None:
        for statement in body:
            self._collect_node(statement, parent, class_info)

    def _collect_node(
        self, root: ast.AST, parent: FunctionInfo | None, class_info: ClassInfo | None
    ) -> None:
        # An explicit stack instead of recursion: this walk sees every node of every JAX file.
        # `dead`: after a `return`/`raise` in its block; its defs are indexed (every function
        # has its entry), but its calls trace nothing, since they never run.
        stack: list[tuple[ast.AST, FunctionInfo | None, ClassInfo | None, bool]] = [
            (root, parent, class_info, False)
        ]
        calls, module_assigns = self.calls, self.module_assigns
        while stack:
            node, scope, owner, dead = stack.pop()
            # `type(node) is X` is cheaper than isinstance on this path; mypy does not narrow
            # `node` through `kind`, hence the casts below
            kind = type(node)
            if kind is ast.Name:
                name = cast(ast.Name, node)
                if scope is not None:
                    if type(name.ctx) is ast.Store:
                        scope.local_names.add(name.id)
                    else:
                        scope.loaded_names.add(name.id)
                continue
            if kind is ast.Call:
                if not dead:
                    calls.append((scope, cast(ast.Call, node)))
            elif kind in _FUNCTION_TYPES:
                function = cast(FunctionNode, node)
                info = self._add_function(function, scope, owner)
                body: Sequence[ast.AST] = (
                    [function.body] if isinstance(function, ast.Lambda) else function.body
                )
                stack.extend(
                    (s, info, None, gone) for s, gone in reversed(_reachability(body, dead))
                )
                # defaults run in the enclosing scope
                stack.append((function.args, scope, None, dead))
                if not isinstance(function, ast.Lambda):
                    stack.extend((d, scope, None, dead) for d in function.decorator_list)
                continue
            elif kind is ast.ClassDef:
                class_def = cast(ast.ClassDef, node)
                self._add_class(class_def, scope)
                class_info_here = self._class_of[id(class_def)]
                stack.extend(
                    (s, scope, class_info_here, gone)
                    for s, gone in reversed(_reachability(class_def.body, dead))
                )
                stack.extend(
                    (c, scope, None, dead)
                    for c in class_def.bases + class_def.keywords + class_def.decorator_list
                )
                continue
            elif kind is ast.Attribute:
                attribute = cast(ast.Attribute, node)
                if scope is not None and type(attribute.ctx) is ast.Load:
                    scope.loaded_attributes.add(attribute.attr)
            elif kind is ast.Assign:
                if scope is None and owner is None:
                    module_assigns.append(cast(ast.Assign, node))
            elif kind is ast.Global or kind is ast.Nonlocal:
                if scope is not None:
                    scope.declared_outer.update(cast("ast.Global | ast.Nonlocal", node).names)
            elif kind is ast.Import or kind is ast.ImportFrom:
                statement = cast("ast.Import | ast.ImportFrom", node)
                if scope is None:
                    self.imports.add(statement)
                else:  # binds in the function; elsewhere only a name the module leaves free
                    scope.imports.append(statement)
                    self.imports.add(statement, keep_bound=True)
            shape = _SHAPES.get(kind)
            if shape is None:
                shape = _SHAPES[kind] = _shape(kind)
            is_statement, field_names = shape
            inner_owner = owner if is_statement else None
            for field_name in field_names:
                value = getattr(node, field_name, None)
                if type(value) is list:
                    if value and isinstance(value[0], ast.stmt):
                        for item, gone in reversed(_reachability(value, dead)):
                            stack.append((item, scope, inner_owner, gone))
                        continue
                    for item in reversed(value):
                        if isinstance(item, ast.AST) and type(item) not in _CHILDLESS:
                            stack.append((item, scope, inner_owner, dead))
                elif isinstance(value, ast.AST) and type(value) not in _CHILDLESS:
                    stack.append((value, scope, inner_owner, dead))

    def _add_class(self, node: ast.ClassDef, parent: FunctionInfo | None) -> None:
        info_class = ClassInfo(
            node=node,
            base_names=[
                self._resolve(dotted_ast(b), parent) or dotted_ast(b) or "" for b in node.bases
            ],
            decorator_names=[
                self._resolve(dotted_ast(_call_func(d)), parent) or "" for d in node.decorator_list
            ],
        )
        self._class_of[id(node)] = info_class
        if parent is None:
            self.classes[node.name] = info_class
        else:
            parent.local_names.add(node.name)

    def _add_function(
        self, node: FunctionNode, parent: FunctionInfo | None, class_info: ClassInfo | None
    ) -> FunctionInfo:
        args = node.args
        positional = tuple(a.arg for a in args.posonlyargs + args.args)
        keyword_only = tuple(a.arg for a in args.kwonlyargs)
        defaults = positional[len(positional) - len(args.defaults) :] if args.defaults else ()
        kw_defaults = tuple(
            a.arg for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if d is not None
        )
        annotations = {
            a.arg: a.annotation
            for a in args.posonlyargs + args.args + args.kwonlyargs
            if a.annotation is not None
        }
        info = FunctionInfo(
            node=node,
            name="<lambda>" if isinstance(node, ast.Lambda) else node.name,
            parent=parent,
            class_info=class_info,
            positional=positional,
            keyword_only=keyword_only,
            vararg=args.vararg.arg if args.vararg else None,
            kwarg=args.kwarg.arg if args.kwarg else None,
            with_defaults=frozenset(defaults + kw_defaults),
            annotations=annotations,
            decorator_names=[]
            if isinstance(node, ast.Lambda)
            else [self._resolve(dotted_ast(_call_func(d)), parent) for d in node.decorator_list],
        )
        info.local_names.update(info.params)
        self.functions.append(info)
        self.by_node[id(node)] = info
        if not isinstance(node, ast.Lambda):
            if class_info is not None:
                class_info.methods[node.name] = info
            elif parent is not None:
                parent.local_defs[node.name] = info
                parent.local_names.add(node.name)
            else:
                self.module_defs[node.name] = info
        return info

    # -- name resolution ------------------------------------------------------------------------

    def _resolve(self, dotted: str | None, scope: FunctionInfo | None) -> str | None:
        """Qualified name of a reference, unless a local variable shadows its head."""
        if not dotted:
            return None
        head = dotted.split(".")[0]
        enclosing = scope
        while enclosing is not None:
            if head in enclosing.local_names:
                return None
            enclosing = enclosing.parent
        if head in self.jit_decorators or dotted in self.jit_decorators:
            return dotted
        return imports_in(scope, self.imports).resolve(dotted)

    def resolved_calls(self) -> list[tuple[FunctionInfo | None, ast.Call, str | None]]:
        """Each call with its enclosing function and the qualified name of what it calls,
        resolved once (after `collect`: the scopes' local names are final by then)."""
        if self._resolved_calls is None:
            resolve = self._resolve
            self._resolved_calls = [
                (scope, call, resolve(dotted_ast(call.func), scope)) for scope, call in self.calls
            ]
        return self._resolved_calls

    def _lookup_function(self, name: str, scope: FunctionInfo | None) -> list[FunctionInfo]:
        enclosing = scope
        while enclosing is not None:
            if name in enclosing.local_defs:
                return [enclosing.local_defs[name]]
            if name in enclosing.local_names:
                return []
            enclosing = enclosing.parent
        if name in self.module_defs:
            return [self.module_defs[name]]
        instance_of = self.instances.get(name)
        if instance_of is not None and "__call__" in instance_of.all_methods():
            return [instance_of.all_methods()["__call__"]]  # `scaler(x)` runs Scaler.__call__
        return list(self.aliases.get(name, []))

    def _called_instance(
        self, expression: ast.expr, scope: FunctionInfo | None
    ) -> list[tuple[FunctionInfo, bool, TraceKind | None]]:
        """`__call__` of the class an instance called in place belongs to (`self.alw(x)`,
        `model(x)` with `model = Model(...)` local): inherited ones included."""
        receiver = self._instance_class(expression, scope)
        method = receiver.all_methods().get("__call__") if receiver else None
        return self._dispatched(method, receiver) if receiver and method else []

    def _dispatched(
        self, method: FunctionInfo, receiver: ClassInfo
    ) -> list[tuple[FunctionInfo, bool, TraceKind | None]]:
        """The method an instance of `receiver` runs, and, when it is inherited, the
        receiver's overrides of the methods it calls on `self`: `Formula.__call__` calling
        `self.robustness_trace(x)` runs `Always.robustness_trace` on an `Always`."""
        found: list[tuple[FunctionInfo, bool, TraceKind | None]] = [(method, True, None)]
        if method.class_info is receiver or isinstance(method.node, ast.Lambda):
            return found
        methods = receiver.all_methods()
        base_methods = method.class_info.all_methods() if method.class_info else {}
        own = method.positional[0] if method.positional else None
        for node in walk_ast(method.node):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id == own
            ):
                override = methods.get(node.func.attr)
                if override is not None and override is not base_methods.get(node.func.attr):
                    found.append((override, True, None))
        return found

    def _instance_class(
        self, expression: ast.expr, scope: FunctionInfo | None, depth: int = 0
    ) -> ClassInfo | None:
        """The class of the module an expression holds an instance of, when every binding
        says so: `Cls(...)`, a module-level instance, a local bound only to `Cls(...)`, a
        parameter annotated `Cls`, or `self.attr` that the class's methods bind only to
        `Cls(...)` (`self.alw = Always()` in `__init__`). None when unknown."""
        if depth > 3 or not self.classes:
            return None  # a module without classes holds no instance of one
        if isinstance(expression, ast.Call) and isinstance(expression.func, ast.Name):
            return self.classes.get(expression.func.id)
        if isinstance(expression, ast.Name):
            name = expression.id
            enclosing = scope
            while enclosing is not None:
                if name in enclosing.params:
                    annotation = enclosing.annotations.get(name)
                    if annotation is None or (
                        enclosing.is_method and name == enclosing.positional[0]
                    ):
                        return None
                    return self.classes.get(dotted_ast(annotation) or "")
                if name in enclosing.local_names:
                    if isinstance(enclosing.node, ast.Lambda) or not (
                        enclosing.loaded_names & self.classes.keys()
                    ):
                        return None  # the function names no class: no local holds one
                    values = self._function_bindings(enclosing).get(name, [])
                    return self._one_class(values, enclosing, depth)
                enclosing = enclosing.parent
            return self.instances.get(name)
        if isinstance(expression, ast.Attribute) and isinstance(expression.value, ast.Name):
            owner = self._class_of_receiver(expression.value.id, scope)
            if owner is None:
                return None
            return self._one_class(
                self._attribute_values(owner).get(expression.attr, []), None, depth
            )
        return None

    def _attribute_values(self, class_info: ClassInfo) -> dict[str, list[ast.expr]]:
        """What the class's constructors (`__init__`, `__post_init__`, `setup`, inherited ones
        included) assign to `self.<name>`, by name: where an object's parts are made. One walk
        per class, asked for every `self.x(...)` call; a part replaced in another method by
        an instance of another class is not seen."""
        found = self._attributes_of.get(id(class_info))
        if found is None:
            found = {}
            for name, method in class_info.all_methods().items():
                if name not in OBJECT_CONSTRUCTORS:
                    continue
                receiver = method.positional[0] if method.is_method else None
                for node in walk_ast(method.node):
                    if not isinstance(node, ast.Assign):
                        continue
                    for target in node.targets:
                        if (
                            isinstance(target, ast.Attribute)
                            and isinstance(target.value, ast.Name)
                            and target.value.id == receiver
                        ):
                            found.setdefault(target.attr, []).append(node.value)
            self._attributes_of[id(class_info)] = found
        return found

    def _one_class(
        self, values: Sequence[ast.expr | None], scope: FunctionInfo | None, depth: int
    ) -> ClassInfo | None:
        """The one class all of `values` construct (`Cls(...)`), or None."""
        found = {
            id(c): c
            for c in (
                self._instance_class(v, scope, depth + 1) if isinstance(v, ast.Call) else None
                for v in values
            )
            if c is not None
        }
        if (
            not values
            or len(found) != 1
            or len([v for v in values if isinstance(v, ast.Call)]) != len(values)
        ):
            return None
        return next(iter(found.values()))

    def _class_of_receiver(self, receiver: str, scope: FunctionInfo | None) -> ClassInfo | None:
        """The class whose method (enclosing `scope`) takes `receiver` as its `self`."""
        enclosing = scope
        while enclosing is not None:
            if enclosing.class_info is not None and enclosing.is_method:
                return enclosing.class_info if enclosing.positional[0] == receiver else None
            enclosing = enclosing.parent
        return None

    def _function_bindings(self, function: FunctionInfo) -> dict[str, list[ast.expr | None]]:
        node = function.node
        assert not isinstance(node, ast.Lambda)
        bindings = self.local_bindings.get(id(node))
        if bindings is None:
            bindings = self.local_bindings[id(node)] = local_bindings_of(node)
        return bindings

    def _method_of(
        self, scope: FunctionInfo | None, receiver: str, method: str
    ) -> FunctionInfo | None:
        """`self.m` / `cls.m` inside a method, or `Class.m`, to the method's info."""
        class_info = None
        enclosing = scope
        while enclosing is not None:
            if (
                enclosing.class_info is not None
                and enclosing.positional
                and (enclosing.positional[0] == receiver)
            ):
                class_info = enclosing.class_info
                break
            enclosing = enclosing.parent
        if class_info is None:
            class_info = self.classes.get(receiver) or self.instances.get(receiver)
        seen = 0
        while class_info is not None and seen < 10:
            if method in class_info.methods:
                return class_info.methods[method]
            bases = [self.classes.get(b) for b in class_info.base_names if b in self.classes]
            class_info = bases[0] if bases else None
            seen += 1
        return None

    def _as_passed(self, call: ast.Call) -> ast.Call:
        """The call with the arguments its target receives: `model.apply(variables, x,
        rngs=...)` passes `x` on to `__call__`, not the variables and flax's own keywords."""
        func = call.func
        if not (isinstance(func, ast.Attribute) and func.attr in LINEN_ENTRIES):
            return call
        if self._linen_call(func.value) is None:
            return call
        if id(call) not in self._linen_passed:
            keywords = [k for k in call.keywords if k.arg not in _LINEN_KEYWORDS]
            passed = ast.Call(func=func, args=call.args[1:], keywords=keywords)
            self._linen_passed[id(call)] = ast.copy_location(passed, call)
        return self._linen_passed[id(call)]

    def _linen_call(self, receiver: ast.expr) -> FunctionInfo | None:
        """`__call__` of the flax linen module `model.apply(...)` / `Model().init(...)` runs
        (`model` a module-level instance), or None."""
        if isinstance(receiver, ast.Call) and isinstance(receiver.func, ast.Name):
            class_info = self.classes.get(receiver.func.id)
        elif isinstance(receiver, ast.Name):
            class_info = self.instances.get(receiver.id)
        else:
            return None
        if class_info is None or not _is_linen_module(class_info):
            return None
        return class_info.all_methods().get("__call__")

    def _targets(
        self,
        expression: ast.AST | None,
        scope: FunctionInfo | None,
        depth: int = 0,
        *,
        staged: bool = False,
    ) -> list[tuple[FunctionInfo, bool, TraceKind | None]]:
        """Functions a callable denotes: (info, is it a bound method, inner transform kind).
        With `staged` (it is handed to a jit or a transform), also what a factory of the
        module returns and what a local or `self` attribute is bound to by one."""
        if expression is None or depth > 6:
            return []
        if isinstance(expression, ast.Lambda):
            return [(self.by_node[id(expression)], False, None)]
        if isinstance(expression, ast.Name):
            found = self._lookup_function(expression.id, scope)
            if found or not staged:
                return [(f, False, None) for f in found]
            # `step = make_step(lr)` then `jax.jit(step)`: what the local is bound to
            return self._bound_targets(expression.id, scope, depth)
        if isinstance(expression, ast.Attribute) and expression.attr in LINEN_ENTRIES:
            linen_call = self._linen_call(expression.value)
            if linen_call is not None:
                return [(linen_call, True, None)]
        if isinstance(expression, ast.Attribute) and isinstance(expression.value, ast.Name):
            method = self._method_of(scope, expression.value.id, expression.attr)
            if method is not None:
                bound = expression.value.id not in self.classes or method.is_classmethod
                if expression.value.id in self.instances:
                    bound = True
                return [(method, bound, None)]
        if isinstance(expression, ast.Attribute):
            root = expression.value
            while isinstance(root, ast.Attribute):
                root = root.value
            if (
                isinstance(root, ast.Name)
                and root.id in self.imports.aliases
                and (scope is None or scope.defining_function(root.id) is None)
            ):
                return []  # `jnp.sum`, `optax.adam`: a module's function, not a method
            # `model.run(...)`, `self.solver.solve(...)`: a method of the receiver's class
            receiver = self._instance_class(expression.value, scope)
            method = receiver.all_methods().get(expression.attr) if receiver else None
            if receiver is not None and method is not None:
                return self._dispatched(method, receiver)
            # `self.alw(x)`: an instance held in an attribute, called
            called = self._called_instance(expression, scope)
            if called or not staged or not isinstance(expression.value, ast.Name):
                return called
            # `self.step = make_step(lr)` in `__init__`, then `jax.jit(self.step)`
            owner = self._class_of_receiver(expression.value.id, scope)
            values = self._attribute_values(owner).get(expression.attr, []) if owner else []
            return [
                target
                for value in values
                if isinstance(value, ast.Call)
                for target in self._made_by(value, None, depth + 1)
            ]
        if isinstance(expression, ast.Call):
            api = self._resolve(dotted_ast(expression.func), scope)
            if api == "functools.partial" and expression.args:
                return self._targets(expression.args[0], scope, depth + 1, staged=staged)
            if api in PASS_THROUGH_WRAPPERS and expression.args:
                return self._targets(expression.args[0], scope, depth + 1, staged=staged)
            if api in TRANSFORMS or api in JIT_APIS:
                kind = TRANSFORMS[api][0] if api in TRANSFORMS else TraceKind.ABSTRACT
                inner = _function_arguments(expression, api)
                return [
                    (f, bound, max(kind, inner_kind or kind))
                    for argument in inner
                    for f, bound, inner_kind in self._targets(
                        argument, scope, depth + 1, staged=True
                    )
                ]
            if staged and (
                api is None or not api.startswith(("jax.", "flax.", "equinox.", "optax."))
            ):
                return self._made_by(expression, scope, depth)
        return []

    def _made_by(
        self, call: ast.Call, scope: FunctionInfo | None, depth: int
    ) -> list[tuple[FunctionInfo, bool, TraceKind | None]]:
        """The functions a factory of the module returns (`make_step(lr)` returning its nested
        `step`, `partial(step_func, lr=lr)` or a lambda): `jax.jit(make_step(lr))` traces them."""
        found = []
        for factory, _, _ in self._targets(call.func, scope, depth + 1):
            for value in _returned(factory) if not isinstance(factory.node, ast.Lambda) else []:
                if value is not None:
                    found.extend(self._targets(value, factory, depth + 1, staged=True))
        return found

    def _bound_targets(
        self, name: str, scope: FunctionInfo | None, depth: int
    ) -> list[tuple[FunctionInfo, bool, TraceKind | None]]:
        """The functions a local of `scope` is bound to by a factory's call or a `partial`."""
        if scope is None or isinstance(scope.node, ast.Lambda) or name not in scope.local_names:
            return []
        return [
            target
            for value in self._function_bindings(scope).get(name, [])
            if isinstance(value, ast.Call)
            for target in self._targets(value, scope, depth + 1, staged=True)
        ]

    def module_values(self) -> dict[str, str]:
        """What module-level names are bound to: a mutable container, or a call's result."""
        found: dict[str, str] = {}
        for assign in self.module_assigns:
            value = assign.value
            if isinstance(value, _CONTAINER_DISPLAYS):
                description = "container"
            elif isinstance(value, ast.Call):
                callee = self._resolve(dotted_ast(value.func), None) or ""
                description = "container" if callee in _CONTAINER_FACTORIES else callee
            else:
                continue
            for target in assign.targets:
                if isinstance(target, ast.Name):
                    found[target.id] = description
        return found

    # -- pass 2: roots --------------------------------------------------------------------------

    def _wrapper_api(self, decorator: ast.expr, scope: FunctionInfo | None) -> str | None:
        """The API a decorator applies: `jax.custom_vjp` for it and `partial(jax.custom_vjp, …)`."""
        func = decorator.func if isinstance(decorator, ast.Call) else decorator
        api = self._resolve(dotted_ast(func), scope)
        if api == "functools.partial" and isinstance(decorator, ast.Call) and decorator.args:
            api = self._resolve(dotted_ast(decorator.args[0]), scope)
        return api

    def _decorator_root(
        self, decorator: ast.expr, scope: FunctionInfo | None
    ) -> tuple[str, TraceKind, list[ast.keyword]] | None:
        """(api, trace kind, keyword arguments) when the decorator traces the function."""
        func = decorator
        keywords: list[ast.keyword] = []
        if isinstance(decorator, ast.Call):
            api = self._resolve(dotted_ast(decorator.func), scope)
            if api == "functools.partial" and decorator.args:
                func, keywords = decorator.args[0], decorator.keywords
            else:
                func, keywords = decorator.func, decorator.keywords
        api = self._resolve(dotted_ast(func), scope)
        if api is None:
            return None
        if api in JIT_APIS or api in self.jit_decorators:
            return (api, TraceKind.ABSTRACT, keywords)
        if api in TRANSFORMS:
            return (api, TRANSFORMS[api][0], keywords)
        return None

    def _static_spec(
        self, keywords: list[ast.keyword], info: FunctionInfo, bound: bool, api: str
    ) -> JitRoot:
        argnums: tuple[int, ...] = ()
        argnames: tuple[str, ...] = ()
        readable = True
        for keyword in keywords:
            if keyword.arg in ("static_argnums", "static_argnames", "static_broadcasted_argnums"):
                value = _literal(keyword.value)
                if value is _UNREADABLE:
                    readable = False
                    continue
                values = value if isinstance(value, (tuple, list)) else (value,)
                if keyword.arg in ("static_argnums", "static_broadcasted_argnums"):  # pmap's name
                    argnums = tuple(v for v in values if isinstance(v, int))
                else:
                    argnames = tuple(v for v in values if isinstance(v, str))
        positional = info.positional[1:] if bound else info.positional
        static = set(argnames)
        for number in argnums:
            if -len(positional) <= number < len(positional):
                static.add(positional[number])
        if api in FILTERING_JITS:
            static |= {
                p
                for p, annotation in info.annotations.items()
                if (dotted_ast(annotation) or "").split(".")[-1] in FILTER_JIT_STATIC_ANNOTATIONS
            }
        return JitRoot(
            api=api,
            via="decorator",
            node=keywords[0].value if keywords else info.node,
            static_params=frozenset(static) if readable else None,
            static_argnums=argnums,
            static_argnames=argnames,
            bound_method=bound,
        )

    def _mark(self, info: FunctionInfo, kind: TraceKind, reason: TraceReason) -> None:
        if info.host:
            return
        if info.trace is None or kind > info.trace:
            info.trace = kind
        if reason not in info.reasons:
            info.reasons.append(reason)
        if reason.api in REFERENCE_SEMANTICS_APIS:
            info.reference_semantics = True
        if reason.api in SLICING_TRANSFORMS:
            info.slicing = True
        if reason.api in STAGING_TRANSFORMS or reason.api in JIT_APIS:
            info.staged = True
        if reason.api in STAGING_TRANSFORMS:
            info.staged_body = True

    def _mark_framework_methods(self, class_info: ClassInfo) -> None:
        """Methods a library's jitted base method calls (`step_env` of a gymnax environment,
        called by the jitted `Environment.step`): traced, every parameter but `self`."""
        base = self._framework_base(class_info, set())
        if base is None:
            return
        for method, caller in FRAMEWORK_TRACED_METHODS[base].items():
            info = class_info.methods.get(method)
            if info is not None:
                module, _, owner = base.rpartition(".")
                reason = TraceReason("called", "jax.jit", f"{owner}.{caller}", module)
                self._mark(info, TraceKind.ABSTRACT, reason)
                info.framework_traced = not info.host

    def _framework_base(self, class_info: ClassInfo, seen: set[int]) -> str | None:
        """The `FRAMEWORK_TRACED_METHODS` class `class_info` derives from, through the classes
        of the module."""
        seen.add(id(class_info))
        for name in class_info.base_names:
            name = FRAMEWORK_BASE_ALIASES.get(name, name)
            if name in FRAMEWORK_TRACED_METHODS:
                return name
            local = self.classes.get(name)
            if local is not None and id(local) not in seen:
                found = self._framework_base(local, seen)
                if found is not None:
                    return found
        return None

    def find_roots(self) -> None:
        for info in self.functions:
            if isinstance(info.node, ast.Lambda):
                continue
            for decorator in info.node.decorator_list:
                rule_of = _custom_rule_owner(decorator)
                if rule_of is not None:  # `@f.defjvp`: traced where `f` is
                    for owner in self._lookup_function(rule_of, info.parent):
                        self.rule_edges.append((owner, info))
                    info.custom_derivative = True
                if self._wrapper_api(decorator, info.parent) in CUSTOM_DERIVATIVE_WRAPPERS:
                    info.custom_derivative = True
                found = self._decorator_root(decorator, info.parent)
                if found is None:
                    continue
                decorator_api, kind, keywords = found
                if decorator_api in JIT_APIS or decorator_api in self.jit_decorators:
                    root = self._static_spec(keywords, info, bound=False, api=decorator_api)
                    root.node = decorator
                    info.roots.append(root)
                elif decorator_api in VMAP_APIS:
                    info.batched_params |= _batched(info, _in_axes(keywords, ()))
                self._mark(info, kind, TraceReason("decorated", decorator_api))

        for class_info in self._class_of.values():
            self._mark_framework_methods(class_info)

        for scope, call, api in self.resolved_calls():
            if api == "functools.partial" and call.args:
                for target, bound, _ in self._targets(call.args[0], scope):
                    positional = target.positional[1:] if bound else target.positional
                    target.partial_bound |= set(positional[: len(call.args) - 1])
                    target.partial_bound |= {k.arg for k in call.keywords if k.arg}
            owner_name = _custom_rule_owner(call.func)
            if owner_name is not None:  # `f.defvjp(fwd, bwd)`: the rules are traced where `f` is
                for owner in self._lookup_function(owner_name, scope):
                    for argument in call.args:
                        for rule, _, _ in self._targets(argument, scope):
                            self.rule_edges.append((owner, rule))
                            rule.custom_derivative = True
            if api is None:
                continue
            if api in HOST_CALLBACKS:
                for argument in call.args[:1]:
                    for target, _, _ in self._targets(argument, scope):
                        target.host = True
                        target.trace = None
            elif api in CUSTOM_DERIVATIVE_WRAPPERS and call.args:  # f = jax.custom_vjp(g)
                for wrapped, _, _ in self._targets(call.args[0], scope):
                    wrapped.custom_derivative = True
            elif api in PYTREE_REGISTRATION_CALLS and call.args:
                registered = dotted_ast(call.args[0])
                if registered in self.classes:
                    self.classes[registered].registered = True

        for assign in self.module_assigns:  # scaler = Scaler(2.0): calls on it run its methods
            value = assign.value
            if isinstance(value, ast.Call) and isinstance(value.func, ast.Name):
                instance_of = self.classes.get(value.func.id)
                if instance_of is not None:
                    for assigned in assign.targets:
                        if isinstance(assigned, ast.Name):
                            self.instances[assigned.id] = instance_of

        for assign in self.module_assigns:  # g = jax.jit(f), g = partial(f, ...), g = f
            targets = self._targets(assign.value, None)
            if targets:
                for assigned in assign.targets:
                    if isinstance(assigned, ast.Name):
                        self.aliases[assigned.id] = [f for f, _, _ in targets]

        for scope, call, api in self.resolved_calls():
            keywords = call.keywords
            if api is None and isinstance(call.func, ast.Call):
                # `functools.partial(jax.jit, static_argnums=(0,))(f)`: the jit, its keywords
                maker = call.func
                if self._resolve(dotted_ast(maker.func), scope) == "functools.partial" and (
                    maker.args and not any(isinstance(a, ast.Starred) for a in maker.args[1:])
                ):
                    api = self._resolve(dotted_ast(maker.args[0]), scope)
                    keywords = [*maker.keywords, *call.keywords]
            if api is None:
                continue
            if api in JIT_APIS or api in self.jit_decorators:
                for argument in _function_arguments(call, api):
                    for target, bound, inner in self._targets(argument, scope, staged=True):
                        root = self._static_spec(keywords, target, bound, api)
                        root.via, root.node = "call", call
                        target.roots.append(root)
                        kind = max(TraceKind.ABSTRACT, inner or TraceKind.ABSTRACT)
                        self._mark(target, kind, TraceReason("wrapped", api))
            elif api in TRANSFORMS:
                kind = TRANSFORMS[api][0]
                for argument in _function_arguments(call, api):
                    for target, bound, inner in self._targets(argument, scope, staged=True):
                        self._mark(target, max(kind, inner or kind), TraceReason("passed", api))
                        if api in VMAP_APIS and not bound:
                            axes = _in_axes(keywords, call.args[1:2])
                            target.batched_params |= _batched(target, axes)

    def collect_leaf_fields(self, function: FunctionInfo) -> None:
        """The leaf fields of parameters annotated with a class of the module, and of `self`."""
        classes: dict[str, ClassInfo] = {}
        for name, annotation in function.annotations.items():
            class_info = self.classes.get(dotted_ast(annotation) or "")
            if class_info is not None:
                classes[name] = class_info
        if function.is_method and function.class_info is not None:
            classes[function.positional[0]] = function.class_info
        for name, class_info in classes.items():
            fields = class_info.number_leaf_fields()
            if fields:
                function.leaf_fields[name] = fields

    def collect_call_hints(self) -> None:
        """Evidence from call sites in the module: `f(jnp.ones(3))` → array, `f(*args)` → tuple."""
        self.module_values_cache = self.module_values()
        for scope, call in self.calls:
            if not isinstance(call.func, (ast.Name, ast.Call, ast.Attribute)):
                continue
            for target, bound, _ in self._targets(call.func, scope):
                if target.trace is None:
                    continue  # only a traced function's parameters are given kinds
                positional = (
                    target.positional[1:] if bound or target.is_method else target.positional
                )
                call = self._as_passed(call)
                pairs = list(zip(positional, call.args, strict=False))
                pairs += [(k.arg, k.value) for k in call.keywords if k.arg]
                jitted = _jitted_by_decorator(target)
                for name, argument in pairs:
                    if isinstance(argument, ast.Starred):
                        break
                    if jitted and _python_number(argument) and name in target.tracer_params:
                        # jit turns a Python bool, int or float at a traced position into a
                        # (weakly typed) scalar tracer: `step(params, x, True)` then
                        # `if use_bias:` raises TracerBoolConversionError
                        target.param_hints.setdefault(name, set()).add("array")
                        continue
                    hint = _argument_hint(argument, scope, self)
                    if hint is not None:
                        target.param_hints.setdefault(name, set()).add(hint)

    def functions_named(self, name: str) -> list[FunctionInfo]:
        """`name` as a module-level function, or `Class.method`."""
        owner, _, method = name.partition(".")
        if not method:
            info = self.module_defs.get(name)
            return [info] if info is not None else []
        class_info = self.classes.get(owner)
        found = class_info.methods.get(method) if class_info is not None else None
        return [found] if found is not None else []

    def outgoing_calls(self) -> list[tuple[str, TraceKind, TraceReason]]:
        """Imported functions this module traces: (qualified name, trace kind, how).

        Called from a traced function (`losses.mse(...)` in a jitted step), or passed to a jit
        or transform (`jax.value_and_grad(loss_fn)` with `loss_fn` imported).
        """
        found = []
        for scope, call, api in self.resolved_calls():
            if api in JIT_APIS or api in self.jit_decorators or api in TRANSFORMS:
                kind = TRANSFORMS[api][0] if api in TRANSFORMS else TraceKind.ABSTRACT
                for argument in _function_arguments(call, api):
                    wrapped = self._resolve(dotted_ast(argument), scope)
                    if wrapped and not wrapped.startswith(("builtins.", "jax.")):
                        found.append((wrapped, kind, TraceReason("passed", api)))
            elif (
                scope is not None
                and scope.trace is not None
                and api
                and not api.startswith(("builtins.", "jax."))
            ):
                found.append((api, scope.trace, TraceReason("called", caller=scope.describe())))
        return found

    # -- pass 3: propagation --------------------------------------------------------------------

    def _callees(self) -> dict[int, list[tuple[FunctionInfo, ast.Call | None]]]:
        edges: dict[int, list[tuple[FunctionInfo, ast.Call | None]]] = {}
        for scope, call, api in self.resolved_calls():
            if scope is None:
                continue
            if api in HOST_CALLBACKS:
                continue
            found = self._targets(call.func, scope) if api is None else []
            for target, _, _ in found:
                edges.setdefault(id(scope.node), []).append((target, self._as_passed(call)))
            if api in CALL_THROUGH or api is None:
                # functions passed as arguments run in the caller's context (tree_map, helpers)
                for argument in call.args:
                    if isinstance(argument, (ast.Name, ast.Lambda)):
                        for target, _, _ in self._targets(argument, scope):
                            edges.setdefault(id(scope.node), []).append((target, None))
        for owner, rule in self.rule_edges:
            edges.setdefault(id(owner.node), []).append((rule, None))
        for info in self.functions:  # nested defs and lambdas run in their parent's trace
            if info.parent is not None and isinstance(info.node, ast.Lambda):
                edges.setdefault(id(info.parent.node), []).append((info, None))
        for info in self.functions:  # nested defs referenced by their parent
            for name, target in info.local_defs.items():
                if name in info.loaded_names:
                    edges.setdefault(id(info.node), []).append((target, None))
        return edges

    def collect_host_constants(self) -> None:
        """For each jitted function, the params every call site in the module (host code,
        module level, traced callers) passes as a hashable literal (`host_constant_params`)."""
        if not any(info.roots for info in self.functions):
            return  # no jitted function: resolving every call again would find nothing
        sites: dict[int, list[set[str]]] = {}
        for scope, call in self.calls:
            for target, bound, _ in self._targets(call.func, scope):
                if target.roots and not bound:
                    sites.setdefault(id(target.node), []).append(_hashable_literals(call, target))
        for info in self.functions:
            found = sites.get(id(info.node))
            if found:
                info.host_constant_params = set.intersection(*found)

    def propagate(self) -> None:
        edges = self._callees()
        literal_args: dict[int, list[set[str]]] = {}
        traced_sites: dict[int, list[tuple[FunctionInfo, ast.Call | None]]] = {}
        work = [f for f in self.functions if f.trace is not None]
        while work:
            caller = work.pop()
            for callee, call in edges.get(id(caller.node), []):
                if callee is caller or callee.host:
                    continue
                if callee.custom_derivative and caller.trace != TraceKind.ABSTRACT:
                    continue  # autodiff calls custom rules (and their primal) on concrete values
                if call is not None:
                    literal_args.setdefault(id(callee.node), []).append(
                        _constant_params(call, callee, caller, self.classes)
                    )
                sites = traced_sites.setdefault(id(callee.node), [])
                if (caller, call) not in sites:
                    sites.append((caller, call))
                before = (callee.trace, callee.staged)
                callee.staged |= caller.staged
                if caller not in callee.callers:
                    callee.callers.append(caller)
                reason = TraceReason("called", caller=caller.describe())
                self._mark(callee, caller.trace or TraceKind.CONCRETE, reason)
                callee.reference_semantics |= caller.reference_semantics
                if (callee.trace, callee.staged) != before:
                    work.append(callee)
        for info in self.functions:
            literal_sites = literal_args.get(id(info.node))
            if literal_sites and not info.roots:
                info.constant_params = set.intersection(*literal_sites)
        self._pass_tracers(traced_sites)

    def _pass_tracers(
        self, traced_sites: Mapping[int, list[tuple[FunctionInfo, ast.Call | None]]]
    ) -> None:
        """`passed_tracers` of the functions traced only by calls of this module: the params
        every such call gives a tracer parameter of its caller, by name (to a fixed point: a
        chain of helpers hands the tracer on)."""
        helpers: list[tuple[FunctionInfo, list[tuple[FunctionInfo, ast.Call]]]] = []
        for info in self.functions:
            sites = traced_sites.get(id(info.node))
            if not (
                sites
                and info.staged
                and not info.roots
                and not info.staged_body
                and all(r.by_call and not r.module for r in info.reasons)
            ):
                continue
            calls = [(c, call) for c, call in sites if call is not None and not _unpacks(call)]
            if len(calls) == len(sites):  # every site a call that unpacks nothing
                helpers.append((info, calls))
        changed = True
        while changed:
            changed = False
            for info, calls in helpers:
                positional = info.positional[1:] if info.is_method else info.positional
                passed = frozenset.intersection(
                    *(_tracers_passed(call, positional, caller) for caller, call in calls)
                )
                if passed != info.passed_tracers:
                    info.passed_tracers = passed
                    changed = True


def _custom_rule_owner(node: ast.expr) -> str | None:
    """`f` of `f.defvjp` / `f.defjvp` (a call's function or a decorator), else None."""
    if isinstance(node, ast.Call):
        node = node.func
    if (
        isinstance(node, ast.Attribute)
        and node.attr in CUSTOM_RULE_ATTRIBUTES
        and isinstance(node.value, ast.Name)
    ):
        return node.value.id
    return None


def _argument_hint(
    argument: ast.expr, scope: FunctionInfo | None, builder: _IndexBuilder
) -> str | None:
    """What a call-site argument says about the parameter: an array, or a Python container."""
    if isinstance(argument, (ast.List, ast.Tuple, ast.Set, ast.Dict, ast.ListComp, ast.DictComp)):
        return "container"
    if isinstance(argument, ast.Name):
        if scope is not None and argument.id in (scope.vararg, scope.kwarg):
            return "container"
        if (
            scope is not None
            and scope.own_trace
            and argument.id in scope.params
            and argument.id not in scope.static_params
        ):
            return "traced"  # a traced function hands its own (traced) argument on
        if scope is not None and argument.id in scope.local_names:
            return "container" if _holds_container(scope, argument, builder) else None
        bound_to = builder.module_values_cache.get(argument.id, "")
        if bound_to == "container":
            return "container"
        if is_array_api(bound_to) and bound_to not in STRUCTURED_RESULTS:
            return "array"
        return None
    if isinstance(argument, ast.Call):
        callee = builder._resolve(dotted_ast(argument.func), scope) or ""
        if callee in _SEQUENCE_BUILDERS:
            return "container"
        if is_array_api(callee) and callee not in STRUCTURED_RESULTS:
            return "array"
    return None


def returns_array(function: FunctionInfo, module_imports: ImportTable) -> bool:
    """Does every `return` of the function (a lambda: its body) give a JAX operation's result,
    or arithmetic or indexing on one (`return jnp.mean((x @ p) ** 2)`)? Called from staged code
    with a traced argument, it returns a tracer. One that may return a pytree, a Python value or
    nothing does not."""
    if function._returns_array is None:
        function._returns_array = _returns_array(function, imports_in(function, module_imports))
    return function._returns_array


def _returns_array(function: FunctionInfo, imports: ImportTable) -> bool:
    returns = _returned(function)
    return bool(returns) and all(
        value is not None and _array_expression(value, imports) for value in returns
    )


def returns_array_tuple(function: FunctionInfo, module_imports: ImportTable) -> bool:
    """Does every `return` give a tuple display of JAX results of one length (`return
    jnp.max(d), jnp.argmax(d)`)? Unpacked from a call with a traced argument in staged code,
    each name is a tracer (the tuple as a whole is not: its truth is its length)."""
    imports = imports_in(function, module_imports)
    returns = _returned(function)
    lengths = {len(value.elts) for value in returns if isinstance(value, ast.Tuple)}
    if len(lengths) != 1 or not all(isinstance(value, ast.Tuple) for value in returns):
        return False
    assigned = _assigned(function)

    def array(element: ast.expr) -> bool:  # a JAX result, or a local only ever bound to one
        if isinstance(element, ast.Name):
            values = assigned.get(element.id)
            return (
                values is not None
                and bool(values)
                and all(value is not None and _array_expression(value, imports) for value in values)
            )
        return _array_expression(element, imports)

    return all(
        array(element)
        for value in returns
        if isinstance(value, ast.Tuple)
        for element in value.elts
    )


def _assigned(function: FunctionInfo) -> dict[str, list[ast.expr | None]]:
    """Each local name's bound values (None for a binding other than `name = value`)."""
    found: dict[str, list[ast.expr | None]] = {}
    if isinstance(function.node, ast.Lambda):
        return found
    for current in own_nodes(function.node.body):
        if isinstance(current, ast.Assign):
            for target in current.targets:
                for name in ast_target_names(target):
                    plain = isinstance(target, ast.Name)
                    found.setdefault(name, []).append(current.value if plain else None)
        elif isinstance(current, (ast.AugAssign, ast.AnnAssign, ast.For, ast.With, ast.NamedExpr)):
            others: list[ast.expr | None] = [getattr(current, "target", None)] + [
                item.optional_vars for item in getattr(current, "items", [])
            ]
            for other in others:
                if other is not None:
                    for name in ast_target_names(other):
                        found.setdefault(name, []).append(None)
    return found


def _returned(function: FunctionInfo) -> list[ast.expr | None]:
    """What each `return` of the function gives (a lambda: its body); [] for a generator."""
    node = function.node
    if isinstance(node, ast.Lambda):
        return [node.body]
    returns: list[ast.expr | None] = []
    for current in own_nodes(node.body):
        if isinstance(current, (ast.Yield, ast.YieldFrom)):
            return []
        if isinstance(current, ast.Return):
            returns.append(current.value)
    return returns


def _array_expression(value: ast.expr, imports: ImportTable) -> bool:
    """`jnp.mean(e)`, `lax.dot(a, b)`, `e ** 2`, `-e`, `e[i]` of such a result."""
    if isinstance(value, ast.Call):
        qualified = imports.resolve(dotted_ast(value.func)) or ""
        return is_array_api(qualified) and qualified not in STRUCTURED_RESULTS
    if isinstance(value, ast.BinOp):
        return _array_expression(value.left, imports) or _array_expression(value.right, imports)
    if isinstance(value, ast.UnaryOp):
        return _array_expression(value.operand, imports)
    if isinstance(value, ast.Subscript):
        return _array_expression(value.value, imports)
    return False


def _number_annotation(annotation: ast.expr) -> bool:
    """`int`, `float`, `bool`, `complex`, or an array annotation (`jax.Array`, jaxtyping's
    `Float[Array, "n"]`)."""
    head = annotation.value if isinstance(annotation, ast.Subscript) else annotation
    dotted = dotted_ast(head) or ""
    return dotted in ("int", "float", "bool", "complex") or (
        dotted.split(".")[-1] in ARRAY_ANNOTATIONS
    )


def _jitted_by_decorator(function: FunctionInfo) -> bool:
    """Does every call of the function by its name go through a jit (`@jax.jit`,
    `@partial(jax.jit, ...)`)? A `g = jax.jit(f)` leaves calls of `f` itself eager."""
    return any(root.via == "decorator" and root.api in TRACING_JITS for root in function.roots)


def _python_number(argument: ast.expr) -> bool:
    """A bool, int or float literal (`-1` and `1e-3` included), which jit makes a tracer."""
    if isinstance(argument, ast.UnaryOp) and isinstance(argument.op, (ast.USub, ast.UAdd)):
        argument = argument.operand
    return isinstance(argument, ast.Constant) and isinstance(argument.value, (bool, int, float))


_SEQUENCE_BUILDERS = frozenset({"builtins.tuple", "builtins.list", "builtins.dict"})


def _holds_container(scope: FunctionInfo, name: ast.Name, builder: _IndexBuilder) -> bool:
    """Is a local of `scope` a Python container where `name` reads it: bound only to displays
    and `tuple(...)`/`list(...)`, and, if it is a parameter, rebound so at the top of the body
    before the read (`lambdas = tuple(lambdas)` then `_impl(grads, lambdas)`)?"""
    node = scope.node
    if isinstance(node, ast.Lambda):
        return False
    bindings = builder.local_bindings.get(id(node))
    if bindings is None:
        bindings = builder.local_bindings[id(node)] = local_bindings_of(node)
    values = bindings.get(name.id)
    if not values or not all(v is not None and _builds_container(v) for v in values):
        return False
    if name.id not in scope.params:
        return True
    return any(
        isinstance(statement, ast.Assign)
        and statement.lineno < name.lineno
        and any(isinstance(t, ast.Name) and t.id == name.id for t in statement.targets)
        for statement in node.body
    )


def _builds_container(value: ast.expr) -> bool:
    if isinstance(value, (ast.Tuple, *_CONTAINER_DISPLAYS)):
        return True
    return (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Name)
        and f"builtins.{value.func.id}" in _SEQUENCE_BUILDERS
    )


def local_bindings_of(
    node: ast.FunctionDef | ast.AsyncFunctionDef,
) -> dict[str, list[ast.expr | None]]:
    """Name → the values a function's own statements bind it to (None: a binding without one,
    such as a `for` target or a tuple unpacking); nested functions and classes are not entered
    (an assignment expression, `(n := ...)`, is not seen)."""
    found: dict[str, list[ast.expr | None]] = {}

    def bind(target: ast.expr | None, value: ast.expr | None = None) -> None:
        if isinstance(target, ast.Name):
            found.setdefault(target.id, []).append(value)
        elif target is not None:
            for name in ast_target_names(target):
                found.setdefault(name, []).append(None)

    stack: list[ast.AST] = list(node.body)
    while stack:
        current = stack.pop()
        if isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.setdefault(current.name, []).append(None)
            continue
        if isinstance(current, ast.Assign):
            for target in current.targets:
                bind(target, current.value)
        elif isinstance(current, (ast.AnnAssign, ast.AugAssign)):
            bind(current.target, current.value if isinstance(current, ast.AnnAssign) else None)
        elif isinstance(current, (ast.For, ast.AsyncFor)):
            bind(current.target)
        elif isinstance(current, (ast.With, ast.AsyncWith)):
            for item in current.items:
                bind(item.optional_vars)
        elif isinstance(current, (ast.Import, ast.ImportFrom)):
            for alias in current.names:
                name = alias.asname or alias.name.partition(".")[0]
                found.setdefault(name, []).append(None)
        elif isinstance(current, ast.ExceptHandler) and current.name:
            found.setdefault(current.name, []).append(None)
        for name in ("body", "orelse", "finalbody", "handlers", "cases"):
            block = getattr(current, name, None)
            if isinstance(block, list):
                stack.extend(block)
    return found


def _call_func(node: ast.expr) -> ast.expr:
    return node.func if isinstance(node, ast.Call) else node


# vmaps whose `in_axes` default is 0 for every argument
VMAP_APIS = frozenset({"jax.vmap"})


def _in_axes(keywords: list[ast.keyword], positional: Sequence[ast.expr]) -> object:
    """The `in_axes` a vmap is given as a Python value: 0 when left out, _UNREADABLE when it is
    no literal."""
    for keyword in keywords:
        if keyword.arg == "in_axes":
            return _literal(keyword.value)
    return _literal(positional[0]) if positional else 0


def _batched(info: FunctionInfo, in_axes: object) -> frozenset[str]:
    """The positional params `in_axes` maps over: all for an int, those at a tuple's int
    positions; none where it is unreadable or a pytree of axes."""
    mapped = mapped_positions(in_axes, len(info.positional))
    return frozenset(name for name, axis in zip(info.positional, mapped, strict=True) if axis)


def mapped_positions(in_axes: object, count: int) -> list[bool | None]:
    """For each of `count` positional arguments of a call vmapped with `in_axes` (a Python
    value): mapped (an int axis), not (None), or unknown (None in the list: a pytree of axes,
    a position past a short tuple, an unreadable `in_axes`)."""

    def axis(value: object) -> bool | None:
        if value is None:
            return False
        return True if isinstance(value, int) and not isinstance(value, bool) else None

    if isinstance(in_axes, (tuple, list)):
        return [axis(value) for value in in_axes[:count]] + [None] * (count - len(in_axes))
    if in_axes is _UNREADABLE:
        return [None] * count
    return [axis(in_axes)] * count


def _function_arguments(call: ast.Call, api: str) -> list[ast.expr]:
    """The arguments of a transform call that are functions it traces."""
    positions: tuple[int, ...]
    keywords: tuple[str, ...]
    if api in JIT_APIS or api not in TRANSFORMS:
        positions, keywords = (0,), ("fun", "f")
    else:
        _, positions, keywords = TRANSFORMS[api]
    found: list[ast.expr] = []
    for position in positions:
        if position < len(call.args):
            argument = call.args[position]
            if isinstance(argument, (ast.List, ast.Tuple)):  # lax.switch branches
                found.extend(argument.elts)
            elif not isinstance(argument, ast.Starred):
                found.append(argument)
    for keyword in call.keywords:
        if keyword.arg in keywords:
            value = keyword.value
            found.extend(value.elts if isinstance(value, (ast.List, ast.Tuple)) else [value])
    return found


# `module.apply(variables, ...)`, `.init(key, ...)`: flax linen runs the module's `__call__`
LINEN_ENTRIES = frozenset({"apply", "init", "init_with_output"})
_LINEN_KEYWORDS = frozenset({"method", "rngs", "mutable", "capture_intermediates"})
_LINEN_BASES = frozenset({"flax.linen.Module", "flax.linen.module.Module"})


def _is_linen_module(class_info: ClassInfo, depth: int = 0) -> bool:
    if any(base in _LINEN_BASES for base in class_info.base_names):
        return True
    return depth < 10 and any(_is_linen_module(b, depth + 1) for b in class_info.local_bases)


def _declares_static(value: ast.expr | None) -> bool:
    if not isinstance(value, ast.Call):
        return False
    if (dotted_ast(value.func) or "").split(".")[-1] == "static_field":
        return True
    for keyword in value.keywords:
        if isinstance(keyword.value, ast.Constant) and (
            (keyword.arg == "pytree_node" and keyword.value.value is False)
            or (keyword.arg == "static" and keyword.value.value is True)
        ):
            return True
        if keyword.arg == "metadata" and _static_metadata(keyword.value):
            return True  # `field(metadata=dict(static=True))`: jax.tree_util.register_dataclass
    return False


def _static_metadata(metadata: ast.expr) -> bool:
    pairs: list[tuple[object, ast.expr]]
    if isinstance(metadata, ast.Call) and dotted_ast(metadata.func) == "dict":
        pairs = [(k.arg, k.value) for k in metadata.keywords]
    elif isinstance(metadata, ast.Dict):
        pairs = [
            (k.value if isinstance(k, ast.Constant) else None, v)
            for k, v in zip(metadata.keys, metadata.values, strict=True)
        ]
    else:
        return False
    return any(
        key == "static" and isinstance(v, ast.Constant) and v.value is True for key, v in pairs
    )


def _static_field_of_argument(
    argument: ast.expr, caller: FunctionInfo, classes: Mapping[str, ClassInfo]
) -> bool:
    """`grid.factors` where the caller's `grid: TPUGrid` declares `factors` a static field."""
    if not (isinstance(argument, ast.Attribute) and isinstance(argument.value, ast.Name)):
        return False
    annotation = caller.annotations.get(argument.value.id)
    class_info = classes.get(dotted_ast(annotation) or "") if annotation is not None else None
    return class_info is not None and argument.attr in class_info.static_fields


def _host_capture(argument: ast.expr, caller: FunctionInfo) -> bool:
    """A name the traced caller reads from an enclosing function that nothing traces."""
    if not isinstance(argument, ast.Name) or caller.parent is None:
        return False
    if argument.id in caller.local_names or argument.id in caller.params:
        return False
    owner = caller.parent.defining_function(argument.id)
    return owner is not None and owner.trace is None


def _constant_argument(
    argument: ast.expr, caller: FunctionInfo, classes: Mapping[str, ClassInfo]
) -> bool:
    return (
        _literal(argument) is not _UNREADABLE
        or _host_capture(argument, caller)
        or _static_field_of_argument(argument, caller, classes)
    )


def _hashable_literals(call: ast.Call, callee: FunctionInfo) -> set[str]:
    """Parameters of `callee` this call passes a hashable literal (`3`, `"mean"`, `(2, 2)`)."""
    found: set[str] = set()
    for name, argument in _passed(call, callee.positional):
        value = _literal(argument)
        if value is _UNREADABLE:
            continue
        try:
            hash(value)
        except TypeError:  # a list or dict literal: jit cannot take it as a static argument
            continue
        found.add(name)
    return found


def _constant_params(
    call: ast.Call, callee: FunctionInfo, caller: FunctionInfo, classes: Mapping[str, ClassInfo]
) -> set[str]:
    """Parameters of `callee` this call site passes as constants: literals, values the traced
    caller captured from an enclosing function that is not traced (host values: never
    tracers), or defaults left alone."""
    positional = callee.positional[1:] if callee.is_method else callee.positional
    if _unpacks(call):
        return set()
    pairs = _passed(call, positional)
    constant = {name for name, argument in pairs if _constant_argument(argument, caller, classes)}
    return constant | (set(callee.with_defaults) - {name for name, _ in pairs})


def _tracers_passed(
    call: ast.Call, positional: tuple[str, ...], caller: FunctionInfo
) -> frozenset[str]:
    """The params `call` gives a tracer parameter of `caller` that the caller never rebinds."""
    tracers = caller.tracer_params
    if not tracers:
        return frozenset()
    names = {
        name: argument.id
        for name, argument in _passed(call, positional)
        if isinstance(argument, ast.Name) and argument.id in tracers
    }
    if not names:
        return frozenset()
    rebound = _rebound_names(caller)
    return frozenset(name for name, argument in names.items() if argument not in rebound)


def _rebound_names(function: FunctionInfo) -> set[str]:
    """Names `function`'s own body assigns (`x = ...`, `for x in`, `x += 1`…)."""
    found: set[str] = set()
    stack: list[ast.AST] = list(function.node.body) if isinstance(function.node.body, list) else []
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            found.add(node.id)
        for child in ast.iter_child_nodes(node):
            if not isinstance(
                child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
            ):
                stack.append(child)
    return found


def _unpacks(call: ast.Call) -> bool:
    """`f(*args)` / `f(**kwargs)`: which parameter gets which argument is not readable."""
    return any(isinstance(a, ast.Starred) for a in call.args) or any(
        k.arg is None for k in call.keywords
    )


def _passed(call: ast.Call, positional: tuple[str, ...]) -> list[tuple[str, ast.expr]]:
    """(parameter, argument) for each argument `call` passes by position or keyword; none
    when it unpacks `*args` or `**kwargs`."""
    if _unpacks(call):
        return []
    pairs = list(zip(positional, call.args, strict=False))
    return pairs + [(k.arg, k.value) for k in call.keywords if k.arg]
