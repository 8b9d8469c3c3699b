"""The query API of the analysis layer: what a rule asks about the code it visits."""

from __future__ import annotations

import ast
import functools
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

from jaxlint.analysis.cst_walk import walk
from jaxlint.analysis.jax_api import CONSTANT_CONSTRUCTORS, TraceKind
from jaxlint.analysis.names import ImportTable, dotted_ast, dotted_cst
from jaxlint.analysis.scope import FunctionInfo, ModuleIndex, imports_in
from jaxlint.analysis.tracers import Tracers
from jaxlint.analysis.values import FunctionValues, Kind
from jaxlint.diagnostics import Span


@dataclass(eq=False)
class Frame:
    """A function being visited, with its value analysis built on first use."""

    node: cst.FunctionDef | cst.Lambda
    info: FunctionInfo
    parent: Frame | None
    resolve: Callable[[cst.BaseExpression], str | None]  # names as seen from this function
    module_defs: Mapping[str, FunctionInfo]  # the module's functions, by name
    module_imports: ImportTable  # the module's imports
    _values: FunctionValues | None = None
    _tracers: Tracers | None = None
    _branches: _Branches | None = None

    @property
    def values(self) -> FunctionValues:
        if self._values is None:
            parent_values = self.parent.values if self.parent is not None else None
            self._values = FunctionValues(
                self.node,
                self.info,
                traced=self.info.trace is not None,
                parent=parent_values,
                resolve=self.resolve,
                module_defs=self.module_defs,
                module_imports=self.module_imports,
            )
        return self._values

    @property
    def traced(self) -> bool:
        return self.info.trace is not None

    @property
    def branches(self) -> _Branches:
        """What the `if`s of this function say about the nodes under them (see _Branches)."""
        if self._branches is None:
            self._branches = _Branches(self.resolve)
            walk(self.node, self._branches)
        return self._branches

    @property
    def tracers(self) -> Tracers:
        if self._tracers is None:
            self._tracers = Tracers(self.values)
        return self._tracers


class Query:
    """What a rule may ask while one traversal visits one unit (a statement holding traced
    functions): is this code traced, what does this name resolve to, what kind of value is this.
    """

    def __init__(
        self,
        index: ModuleIndex,
        wrapper: MetadataWrapper,
        line_offset: int,
        functions: list[FunctionInfo],
    ) -> None:
        self.index = index
        self.wrapper = wrapper
        self.line_offset = line_offset
        self._functions = iter(functions)
        self._positions: Mapping[cst.CSTNode, CodeRange] | None = None
        self.frame: Frame | None = None

    # -- traversal bookkeeping (called by the engine) -------------------------------------------

    def enter_function(self, node: cst.FunctionDef | cst.Lambda) -> None:
        info = next(self._functions)
        self.frame = Frame(
            node,
            info,
            self.frame,
            functools.partial(self.resolve_in, info),
            self.index.module_defs,
            self.index.imports,
        )

    def leave_function(self) -> None:
        assert self.frame is not None
        self.frame = self.frame.parent

    # -- queries for rules ----------------------------------------------------------------------

    @property
    def function(self) -> FunctionInfo | None:
        """The innermost function around the node being visited."""
        return self.frame.info if self.frame is not None else None

    @property
    def traced(self) -> bool:
        """True inside a function body that JAX traces (SPEC §2)."""
        return self.frame is not None and self.frame.traced

    @property
    def abstract(self) -> bool:
        """True where values are abstract (jit, vmap, lax bodies), not just autodiff tracers."""
        return self.frame is not None and self.frame.info.trace == TraceKind.ABSTRACT

    def verify_target(self) -> str | None:
        """What verification runs for an edit here: the outermost def, as `f` or `Class.method`."""
        frame = self.frame
        if frame is None:
            return None
        while frame.parent is not None:
            frame = frame.parent
        info = frame.info
        if info.name == "<lambda>":
            return None
        if info.class_info is not None:
            return f"{info.class_info.node.name}.{info.name}"
        return info.name

    def own_method(self, func: cst.BaseExpression) -> FunctionInfo | None:
        """The method of the current function's class (or a base of the module) that
        `self.<name>(...)` runs, if the call is one."""
        function = self.function
        if not (
            isinstance(func, cst.Attribute)
            and isinstance(func.value, cst.Name)
            and func.value.value == "self"
            and function is not None
            and function.class_info is not None
        ):
            return None
        return function.class_info.all_methods().get(func.attr.value)

    def resolve(self, expression: cst.BaseExpression) -> str | None:
        """Qualified name of a Name/Attribute reference, through imports; None if local."""
        return self.resolve_in(self.function, expression)

    def resolve_in(
        self, function: FunctionInfo | None, expression: cst.BaseExpression
    ) -> str | None:
        """Like `resolve`, with the local names of `function` (and its parents) shadowing."""
        dotted = dotted_cst(expression)
        if dotted is None:
            return None
        if dotted in self.index.jit_decorators:
            return dotted
        head = dotted.split(".")[0]
        if function is not None and function.defining_function(head) is not None:
            return None
        return imports_in(function, self.index.imports).resolve(dotted)

    def helper_does_traced_work(self, call: cst.Call) -> bool:
        """Does `call` run a `def` of this function or the module (called by bare name) whose
        body calls a JAX operation (not a constant constructor) or reads a name that is traced
        here (`_one(i)` returning `X[jnp.argmin(dists[:, i])]`)? One level deep."""
        if self.frame is None or not isinstance(call.func, cst.Name):
            return False
        helper = self.frame.values.function_named(call.func.value)
        if helper is None or isinstance(helper.node, ast.Lambda):
            return False
        resolver = imports_in(helper, self.index.imports)
        own = helper.local_names | set(helper.params)
        for node in ast.walk(helper.node):
            if isinstance(node, ast.Call):
                called = resolver.resolve(dotted_ast(node.func) or "") or ""
                if called.startswith("jax.") and called not in CONSTANT_CONSTRUCTORS:
                    return True
            elif (
                helper.parent is not None  # a closure: its free names are this function's
                and isinstance(node, ast.Name)
                and isinstance(node.ctx, ast.Load)
                and node.id not in own
                and self.kind(cst.Name(node.id)).traced
            ):
                return True
        return False

    def kind(self, expression: cst.BaseExpression) -> Kind:
        """The kind of value an expression holds in the current function."""
        if self.frame is None:
            return Kind.STATIC
        return self.frame.values.kind(expression)

    def holds_traced(self, expression: cst.BaseExpression) -> bool:
        """Does the value hold a tracer: traced, or a tuple/list/dict/f-string holding one?"""
        if isinstance(expression, (cst.Tuple, cst.List, cst.Set)):
            return any(self.holds_traced(e.value) for e in expression.elements)
        if isinstance(expression, cst.Dict):
            return any(
                self.holds_traced(e.value) for e in expression.elements if hasattr(e, "value")
            )
        if isinstance(expression, cst.FormattedString):
            return any(
                self.holds_traced(part.expression)
                for part in expression.parts
                if isinstance(part, cst.FormattedStringExpression)
            )
        return self.kind(expression).traced

    @property
    def staged(self) -> bool:
        """True inside a function JAX stages into a jaxpr (jit, lax bodies, checkpoint, or one
        they call): there Python cannot branch on, or concretize, traced values."""
        return self.frame is not None and self.frame.info.staged

    @property
    def batched(self) -> bool:
        """True inside a function `jax.vmap` maps over: its mapped parameters, and what is
        computed from them, are batch tracers, on which Python cannot branch either."""
        return self.frame is not None and bool(self.frame.info.batched_params)

    @property
    def only_staged(self) -> bool:
        """Does the current function run only under staging: decorated with a jit, or a lax
        body? (`g = jax.jit(f)` leaves `f` callable eagerly, with NumPy and Python semantics.)"""
        info = self.function
        return info is not None and (
            info.staged_body or any(root.via == "decorator" for root in info.roots)
        )

    def in_mode_branch(self, node: cst.CSTNode) -> bool:
        """Under an `if x is None:` (either branch): one mode of a function JAX may stage in
        the other mode only (jax-md's `neighbor_fn` allocates eagerly when `neighbors is None`
        and updates under jit), which a reading of the code alone cannot tell apart."""
        return any(id(node) in branches.inside for branches in self._branches_around())

    def in_concrete_branch(self, node: cst.CSTNode) -> bool:
        """In the branch of `if not isinstance(x, jax.core.Tracer):` (or the `else` of the
        positive test): code written for concrete values, which a trace never runs as such."""
        return any(id(node) in branches.concrete for branches in self._branches_around())

    def maybe_unstaged_branch(self, node: cst.CSTNode) -> bool:
        """In a branch the code may run only unstaged: an `x is None` mode (`in_mode_branch`),
        the concrete side of an `isinstance(x, Tracer)` test (`in_concrete_branch`), or a
        `with jax.ensure_compile_time_eval():` block (JAX runs it eagerly on concrete inputs,
        even under jit). Rules that claim a tracer error there would be guessing."""
        return (
            self.in_mode_branch(node)
            or self.in_concrete_branch(node)
            or any(id(node) in branches.eager for branches in self._branches_around())
        )

    def not_arrays_at(self, node: cst.CSTNode) -> set[str]:
        """Names an `isinstance(x, jnp.ndarray)` test shows are not arrays at `node` (it is in
        the branch where the test is false)."""
        found: set[str] = set()
        for branches in self._branches_around():
            found |= branches.not_array.get(id(node), set())
        return found

    def _branches_around(self) -> Iterator[_Branches]:
        frame = self.frame
        while frame is not None:
            yield frame.branches
            frame = frame.parent

    def certainly_traced(self, expression: cst.BaseExpression) -> bool:
        """Is this value a tracer whenever the code runs staged (jaxlint.analysis.tracers)?"""
        return self.frame is not None and self.frame.tracers.certain(expression)

    def reaching_values(self, name: cst.Name) -> list[tuple[str, cst.CSTNode]]:
        """The bindings of a name that may reach this read of it (FunctionValues)."""
        if self.frame is None:
            return []
        return self.frame.values.reaching_bindings(name.value, name)

    def assumed_traced(self, expression: cst.BaseExpression) -> bool:
        """Traced only by assumption (see FunctionValues.assumed_traced)."""
        return self.frame is not None and self.frame.values.assumed_traced(expression)

    def python_sequence(self, expression: cst.BaseExpression) -> bool:
        """A Python list or tuple built here (see FunctionValues.python_sequence)."""
        return self.frame is not None and self.frame.values.python_sequence(expression)

    def given_sequence(self, expression: cst.BaseExpression) -> bool:
        """A Python sequence whose length the code or its caller chose (see
        FunctionValues.given_sequence)."""
        return self.frame is not None and self.frame.values.given_sequence(expression)

    def fixed_length(self, expression: cst.BaseExpression) -> bool:
        """An array of a literal display (see FunctionValues.fixed_length)."""
        return self.frame is not None and self.frame.values.fixed_length(expression)

    def unproven_array(self, expression: cst.BaseExpression) -> bool:
        """Taken for an array without evidence (see FunctionValues.unproven_array)."""
        return self.frame is not None and self.frame.values.unproven_array(expression)

    def kind_at(self, expression: cst.BaseExpression, at: cst.CSTNode) -> Kind:
        """Like `kind`, but a name's kind as it is at `at` (a loop, or a read of the name): from
        the bindings that reach it in statement order."""
        if self.frame is None:
            return Kind.STATIC
        if isinstance(expression, cst.Name) and expression.value in self.frame.values.env:
            return self.frame.values.name_kind_at(expression.value, at)
        return self.frame.values.kind(expression)

    # -- where objects live (what a write inside traced code reaches) ---------------------

    def owner(self, name: str, function: FunctionInfo, at: cst.CSTNode | None = None) -> str | None:
        """Where the object `name` lives, seen from `function`: "self", "argument", "closure",
        "global" — or None when it is safe to write: created in this function, a fresh
        `*args`/`**kwargs`, an imported module, a parameter rebound on every path to `at`
        (`padding = []`), or a local of an enclosing function traced at the same level."""
        if name in (function.vararg, function.kwarg):
            return None
        frame = self.frame
        if (
            at is not None
            and name in function.params
            and frame is not None
            and frame.info is function
            and not frame.values.parameter_reaches(name, at)
        ):
            return None
        if name in function.params:
            return "self" if function.is_method and name == function.positional[0] else "argument"
        if name in function.local_names:
            return None
        owner = function.defining_function(name) if name not in function.declared_outer else None
        if name in function.declared_outer and function.parent is not None:
            owner = function.parent.defining_function(name)
        if owner is not None:
            if owner.trace is not None and not function.own_trace:
                return None  # the object lives inside the same trace
            return "closure"
        if name in self.index.imports.aliases:
            return None
        return "global"

    def closure_is_traced(self, name: str, function: FunctionInfo) -> bool:
        """Is the enclosing function that binds `name` traced itself?"""
        owner = function.parent.defining_function(name) if function.parent is not None else None
        return owner is not None and owner.trace is not None

    def known_container(self, receiver: cst.BaseExpression, function: FunctionInfo) -> bool:
        """A Python list/dict/set: a local one by the value analysis, a module-level one by its
        assignment."""
        if not isinstance(receiver, cst.Name):
            return False
        name = receiver.value
        if function.defining_function(name) is not None:
            return self.kind(receiver) == Kind.CONTAINER
        return self.index.module_values.get(name) == "container"

    def span(self, node: cst.CSTNode, end_node: cst.CSTNode | None = None) -> Span:
        """File span of a node (or from `node` to the end of `end_node`)."""
        if self._positions is None:
            self._positions = self.wrapper.resolve(PositionProvider)
        start = self._positions[node].start
        end = self._positions[end_node or node].end
        return Span(
            start.line + self.line_offset,
            start.column + 1,
            end.line + self.line_offset,
            end.column + 1,
        )


ARRAY_TYPES = frozenset({"jax.Array", "jax.numpy.ndarray", "numpy.ndarray"})


EAGER_CONTEXTS = frozenset({"jax.ensure_compile_time_eval", "jax.core.eval_context"})


class _Branches(cst.CSTVisitor):
    """One walk of a function's `if`s and conditional expressions, recording by node id:
    `inside` an `x is None` test (either branch), in the `concrete` branch of an
    `isinstance(x, Tracer)` test, and `not_array`: the names an `isinstance(x, jnp.ndarray)`
    test rules out in its false branch."""

    def __init__(self, resolve: Callable[[cst.BaseExpression], str | None]) -> None:
        super().__init__()
        # not `resolve`: that would hide CSTVisitor's own (metadata) `resolve`
        self.resolve_name = resolve
        self.inside: set[int] = set()
        self.concrete: set[int] = set()
        self.eager: set[int] = set()  # inside `with jax.ensure_compile_time_eval():`
        self.not_array: dict[int, set[str]] = {}

    def visit_With(self, node: cst.With) -> None:
        for item in node.items:
            call = item.item
            func = call.func if isinstance(call, cst.Call) else call
            if self.resolve_name(func) in EAGER_CONTEXTS:
                _collect(node.body, self.eager)

    def visit_If(self, node: cst.If) -> None:
        if _tests_none(node.test):
            _collect(node.body, self.inside)
            _collect(node.orelse, self.inside)
        self._typed(node.test, node.body, node.orelse, statement=True)

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self._typed(node.test, node.body, node.orelse, statement=False)

    def _typed(
        self,
        test: cst.BaseExpression,
        body: cst.CSTNode,
        orelse: cst.CSTNode | None,
        statement: bool,
    ) -> None:
        negated = False
        while isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            test, negated = test.expression, not negated
        false_branch = body if negated else orelse
        if statement and _tracer_test(test):
            _collect(false_branch, self.concrete)
        name = self._array_test(test)
        if name is not None:
            ids: set[int] = set()
            _collect(false_branch, ids)
            for key in ids:
                self.not_array.setdefault(key, set()).add(name)

    def _array_test(self, test: cst.BaseExpression) -> str | None:
        """`x` of `isinstance(x, jax.Array)` (or jnp/np `ndarray`, or a tuple holding one)."""
        if not (
            isinstance(test, cst.Call)
            and self.resolve_name(test.func) == "builtins.isinstance"
            and len(test.args) == 2
            and isinstance(test.args[0].value, cst.Name)
        ):
            return None
        types = test.args[1].value
        elements = [e.value for e in types.elements] if isinstance(types, cst.Tuple) else [types]
        if any((self.resolve_name(e) or "") in ARRAY_TYPES for e in elements):
            return test.args[0].value.value
        return None


def _collect(branch: cst.CSTNode | None, into: set[int]) -> None:
    if branch is not None:
        walk(branch, _Collect(into))


class _Collect(cst.CSTVisitor):
    def __init__(self, into: set[int]) -> None:
        super().__init__()
        self.into = into

    def on_visit(self, node: cst.CSTNode) -> bool:
        self.into.add(id(node))
        return True


def _tests_none(test: cst.BaseExpression) -> bool:
    while isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        test = test.expression
    return (
        isinstance(test, cst.Comparison)
        and len(test.comparisons) == 1
        and isinstance(test.comparisons[0].operator, (cst.Is, cst.IsNot))
        and isinstance(test.comparisons[0].comparator, cst.Name)
        and test.comparisons[0].comparator.value == "None"
    )


def _tracer_test(test: cst.BaseExpression) -> bool:
    """`isinstance(x, ...Tracer)` (the caller strips `not`)."""
    if not (isinstance(test, cst.Call) and len(test.args) == 2):
        return False
    func, types = test.func, test.args[1].value
    if not (isinstance(func, cst.Name) and func.value == "isinstance"):
        return False
    last = types.attr.value if isinstance(types, cst.Attribute) else getattr(types, "value", "")
    return last == "Tracer"
