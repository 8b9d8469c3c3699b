"""What kind of value an expression holds inside a function: traced array, shape-derived int, ...

Flow-insensitive: each local name gets the join of everything assigned to it. Parameters of a
traced function are traced unless static; a parameter with no evidence of being a container is
taken for an array (jitted functions take arrays), one iterated with unpacking, indexed by string
or annotated `list`/`dict`/`PyTree` is taken for a pytree container.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from enum import IntEnum
from typing import cast

import libcst as cst

from jaxlint.analysis.cst_walk import walk
from jaxlint.analysis.docstrings import documented_kind
from jaxlint.analysis.jax_api import (
    ARRAY_ANNOTATIONS,
    ARRAY_ATTRIBUTES,
    ARRAY_EVIDENCE_ATTRIBUTES,
    ARRAY_FROM_DATA,
    ARRAY_LAYERS,
    ARRAY_METHODS,
    CONTAINER_ANNOTATIONS,
    DISTRIBUTION_DRAWS,
    DISTRIBUTION_MODULES,
    SEQUENCE_CONSTRUCTORS,
    SHAPE_PROJECTIONS,
    STATIC_ANNOTATIONS,
    STATIC_ATTRIBUTES,
    STATIC_PROJECTIONS,
    STRUCTURED_RESULTS,
    is_array_api,
)
from jaxlint.analysis.names import ImportTable, dotted_cst, target_names
from jaxlint.analysis.scope import FunctionInfo, returns_array, returns_array_tuple


class Kind(IntEnum):
    """Lattice of value kinds; the join of two kinds is the larger."""

    STATIC = 0  # a Python value fixed at trace time
    CONTAINER = 1  # a Python list/tuple/dict of static length (may hold arrays)
    SHAPE = 2  # a static int that comes from an array's shape: len(x), x.shape[0], x.size
    SHAPE_TUPLE = 3  # x.shape
    TRACED = 4  # a traced value of unknown structure (an array or a pytree)
    ARRAY = 5  # a traced array

    @property
    def traced(self) -> bool:
        return self >= Kind.TRACED


EVIDENCE_OPERATORS = (
    cst.Multiply,
    cst.Divide,
    cst.Subtract,
    cst.MatrixMultiply,
    cst.Power,
    cst.FloorDivide,
    cst.Modulo,
    cst.Add,
)

# kinds that hold no tracer: Python values, and the static ints of shapes
_PYTHON_VALUES = (Kind.STATIC, Kind.SHAPE, Kind.SHAPE_TUPLE)

Resolver = Callable[[cst.BaseExpression], "str | None"]

JAX_ARRAY_TYPES = frozenset({"jax.Array", "jax.numpy.ndarray", "jaxtyping.Array"})


class FunctionValues:
    """Value kinds of the names of one function (plus its enclosing functions' for free names)."""

    def __init__(
        self,
        node: cst.FunctionDef | cst.Lambda,
        info: FunctionInfo,
        traced: bool,
        parent: FunctionValues | None,
        resolve: Resolver,
        module_defs: Mapping[str, FunctionInfo] | None = None,
        module_imports: ImportTable | None = None,
    ) -> None:
        self.node = node
        self.info = info
        self.module_defs = module_defs or {}
        self.module_imports = module_imports or ImportTable()
        self.traced = traced
        # traced only by transforms that run the body eagerly: arrays built from Python values
        # are concrete there
        self.eager = traced and info.traced_eagerly
        self.parent = parent
        self.resolve = resolve
        self.env: dict[str, Kind] = {}
        self.locals: set[str] = set(info.local_names)
        self._array_evidence: set[str] = set()
        self._container_evidence: set[str] = set()
        # parameters taken for arrays by default only, and slices of them (`x0 = z[n:]`)
        self._unproven: set[str] = set()
        self._carry_leaves: set[str] = set()
        # helper parameters taken for traced only because traced code calls the helper
        self._assumed: set[str] = set()
        self._collect_evidence()
        self._bind_parameters(traced)
        self._solve()
        self._spread_unproven()

    # -- public queries -------------------------------------------------------------------------

    def kind(self, expression: cst.BaseExpression) -> Kind:
        """The kind of value `expression` evaluates to in this function."""
        return _Evaluator(self).kind(expression)

    def name_kind_at(self, name: str, at: cst.CSTNode) -> Kind:
        """The kind of `name` at `at`, a loop or a read (see `reaching_bindings`); without a
        binding that reaches it, the flow-insensitive kind."""
        reaching = self.reaching_bindings(name, at)
        if not reaching:
            return self.name_kind(name)
        evaluator = _Evaluator(self)
        kinds = []
        for binding_kind, value in reaching:
            if binding_kind == "unpack":
                kinds.append(self.name_kind(name))  # unpacking: the environment knows best
            elif binding_kind == "for":
                element = evaluator.element(value)  # type: ignore[arg-type]  # the iterable
                kinds.append(max(element) if isinstance(element, list) else element)
            elif binding_kind == "aug":
                kinds.append(self.name_kind(name))
            else:
                kinds.append(evaluator.kind(value))  # type: ignore[arg-type]  # an expression
        return max(kinds)

    def reaching_bindings(self, name: str, at: cst.CSTNode) -> list[tuple[str, cst.CSTNode]]:
        """The bindings of `name` that may reach `at` (a loop, or a Name being read): those
        before it, less the ones a later binding overwrites on every path (`starts =
        jnp.arange(n)` then `starts = [...]` in the same block), plus rebindings in a loop
        around it. All bindings when the position of `at` is unknown. An assignment that
        unpacks a value into several names (`i, x = state`) is of kind "unpack"."""
        return self._reaching(name, at)[0]

    def parameter_reaches(self, name: str, at: cst.CSTNode) -> bool:
        """Can the value `name` had on entry still be what `at` reads (no binding before it
        overwrites it on every path)?"""
        return not self._reaching(name, at)[1]

    def _reaching(self, name: str, at: cst.CSTNode) -> tuple[list[tuple[str, cst.CSTNode]], bool]:
        start = self._order_of.get(id(at))
        if start is None:
            return self.bindings_of(name), False
        around = [(s, e) for s, e in self._loop_spans if s <= start <= e]
        at_block = self._block_of.get(id(at), ())
        reaching = []
        for kind, target, value in self._bindings:
            span = self._comprehension_span_of.get(id(target))
            if span is not None and not span[0] <= start <= span[1]:
                continue  # a comprehension's variable, read outside it
            for bound, part in _name_values(target, value):
                if bound != name:
                    continue
                order = self._order_of.get(id(target), 0)
                binding = kind
                if kind == "assign" and part is value and not isinstance(target, cst.Name):
                    binding = "unpack"
                if order < start:
                    block = self._block_of.get(id(target), ())
                    # in the block of `at` or one around it, and not a `for` target (maybe unbound)
                    dominates = kind != "for" and at_block[: len(block)] == block
                    reaching.append((order, binding, part, dominates))
                elif any(s <= order <= e for s, e in around):  # rebound later in a loop around
                    reaching.append((order, binding, part, False))
        last_dominating = max((o for o, _, _, d in reaching if d), default=-1)
        found = [(kind, part) for order, kind, part, _ in reaching if order >= last_dominating]
        return found, last_dominating >= 0

    def name_kind(self, name: str) -> Kind:
        if name in self.env:
            return self.env[name]
        if name in self.locals:
            return Kind.STATIC
        if self.parent is not None:
            return self.parent.name_kind(name)
        return Kind.STATIC

    def bindings_of(self, name: str) -> list[tuple[str, cst.CSTNode]]:
        """(binding kind, the value `name` gets) for each binding of `name` in this function:
        "assign" / "for" (the iterable) / "aug" (the AugAssign); `a, b = x, y` pairs them."""
        return [
            (kind, part)
            for kind, target, value in self._bindings
            for bound, part in _name_values(target, value)
            if bound == name
        ]

    def assumed_traced(self, expression: cst.BaseExpression) -> bool:
        """A helper's parameter, never rebound, taken for traced only because traced code
        calls the helper: the caller may pass a key, a name or a static config. An item or
        attribute of one (`params["w"]`) is as unknown as the parameter."""
        while isinstance(expression, (cst.Subscript, cst.Attribute)):
            expression = expression.value
        return (
            isinstance(expression, cst.Name)
            and expression.value in self._assumed
            and not any(
                expression.value in (n.value for n in target_names(t)) for _, t, _ in self._bindings
            )
        )

    def python_sequence(self, expression: cst.BaseExpression) -> bool:
        """A list or tuple display or comprehension, `list(...)`/`tuple(...)`, a display
        repeated (`D * [n]`), or a local bound only to those: a Python sequence, whatever it
        holds (indexing it needs a Python int)."""
        return self._bound_to(expression, lambda value: self._sequence_value(value, True))

    def given_sequence(self, expression: cst.BaseExpression) -> bool:
        """A Python sequence whose length the code or its caller chose, not the data: a
        display, a display repeated, `list(p)`/`tuple(p)` of a parameter `p` (a static
        setting per column), or a local bound only to those; not a comprehension (`[i * size
        for i in range(n_batches)]` is as long as the data makes it)."""
        return self._bound_to(expression, lambda value: self._sequence_value(value, False))

    def _bound_to(
        self, expression: cst.BaseExpression, test: Callable[[cst.BaseExpression], bool]
    ) -> bool:
        if test(expression):
            return True
        if not isinstance(expression, cst.Name) or expression.value not in self.locals:
            return False
        bound = self.reaching_bindings(expression.value, expression)  # all, out of place
        return bool(bound) and all(
            kind == "assign" and test(value)  # type: ignore[arg-type]  # assigned: an expression
            for kind, value in bound
        )

    def _sequence_value(self, value: cst.BaseExpression, comprehensions: bool) -> bool:
        if isinstance(value, (cst.List, cst.Tuple)):
            return True
        if isinstance(value, cst.ListComp):
            return comprehensions
        if isinstance(value, cst.IfExp):
            return self._sequence_value(value.body, comprehensions) and self._sequence_value(
                value.orelse, comprehensions
            )
        if isinstance(value, cst.Call):
            converted = value.args[0].value if len(value.args) == 1 else None
            return self.resolve(value.func) in ("builtins.list", "builtins.tuple") and (
                comprehensions
                or (isinstance(converted, cst.Name) and converted.value in self.info.params)
            )
        return (
            isinstance(value, cst.BinaryOperation)
            and isinstance(value.operator, cst.Multiply)
            and (isinstance(value.left, cst.List) or isinstance(value.right, cst.List))
        )

    def fixed_length(self, expression: cst.BaseExpression) -> bool:
        """Is this an array whose leading length is written in the code: every binding of the
        name is `jnp.array([...])` of a list or tuple display (nine literal offsets)?"""
        if not isinstance(expression, cst.Name) or expression.value not in self.locals:
            return False
        bound = self.bindings_of(expression.value)
        return bool(bound) and all(
            kind == "assign" and self._array_of_display(value) for kind, value in bound
        )

    def _array_of_display(self, value: cst.CSTNode) -> bool:
        return (
            isinstance(value, cst.Call)
            and self.resolve(value.func) in ARRAY_FROM_DATA
            and bool(value.args)
            and isinstance(value.args[0].value, (cst.List, cst.Tuple))
        )

    def unproven_array(self, expression: cst.BaseExpression) -> bool:
        """Is this value an array only by assumption: a parameter (or a slice of one) with no
        annotation, no array use in the body (`.shape`, arithmetic on it, a `jnp` call on it) and
        no caller passing an array? Such a value is as often a list of arrays (a pytree), whose
        length is fixed at trace time."""
        while isinstance(expression, cst.Subscript) and _is_slice(expression):
            expression = expression.value
        if not isinstance(expression, cst.Name):
            return False
        name = expression.value
        if name in self._unproven:
            return True
        if name in self._carry_leaves and id(expression) in self._order_of:
            # where only the unpacking of the carry reaches it (`m, v = carry`; `[.. for mi in m]`)
            reaching = self.reaching_bindings(name, expression)
            return bool(reaching) and all(kind == "unpack" for kind, _ in reaching)
        if name in self.locals or name in self.env or self.parent is None:
            return False
        return self.parent.unproven_array(expression)

    def function_named(self, name: str) -> FunctionInfo | None:
        """The `def` a bare name calls here: a local one of this function or an enclosing
        one, or one of the module; None for any other binding."""
        scope: FunctionInfo | None = self.info
        while scope is not None:
            if name in scope.local_defs:
                return scope.local_defs[name]
            if name in scope.local_names or name in scope.params:
                return None
            scope = scope.parent
        return self.module_defs.get(name)

    def returns_array(self, function: FunctionInfo) -> bool:
        """Does `function` return a JAX operation's result on every `return` (see
        scope.returns_array)?"""
        return returns_array(function, self.module_imports)

    def returns_array_tuple(self, function: FunctionInfo) -> bool:
        """Does `function` return a tuple of JAX results on every `return` (see
        scope.returns_array_tuple)?"""
        return returns_array_tuple(function, self.module_imports)

    def is_local(self, name: str) -> bool:
        """Bound in this function (or an enclosing one) rather than at module level."""
        return name in self.locals or self.info.encloses_local(name)

    # -- construction ---------------------------------------------------------------------------

    def _collect_evidence(self) -> None:
        collector = _EvidenceCollector(self)
        walk(self.node.body, collector)
        self._bindings = collector.bindings
        self._order_of = collector.order_of
        self._block_of = collector.block_of
        self._loop_spans = collector.loop_spans
        self._comprehension_span_of = collector.comprehension_span_of

    def _call_evidence(self, call: cst.Call, record: Callable[[str, bool], None]) -> None:
        qualified = self.resolve(call.func) or ""
        for argument in call.args:
            if argument.star == "*" and isinstance(argument.value, cst.Name):
                record(argument.value.value, True)
        first = call.args[0].value if call.args else None
        if not isinstance(first, cst.Name):
            return
        if qualified.startswith(("jax.tree_util.", "jax.tree.")) or qualified in (
            "builtins.isinstance",
        ):
            if qualified != "builtins.isinstance" or _names_container_type(call):
                record(first.value, True)
        elif qualified.startswith(SEQUENCE_CONSTRUCTORS):
            pass
        elif is_array_api(qualified):
            record(first.value, False)

    def _bind_parameters(self, traced: bool) -> None:
        info = self.info
        static = info.static_params
        annotations = _cst_annotations(self.node)
        for name in info.params:
            if not traced:  # host code: a JAX array where the annotation says so
                kind = Kind.ARRAY if self._jax_array(annotations.get(name)) else Kind.STATIC
            elif name in static:
                kind = Kind.STATIC
            elif name in (info.vararg, info.kwarg):
                kind = Kind.CONTAINER
            else:
                annotated = _annotation_kind(annotations.get(name))
                kind = annotated if annotated is not None else self._parameter_kind(name)
            self.env[name] = kind

    def _jax_array(self, annotation: cst.BaseExpression | None) -> bool:
        """Is the annotation a JAX array type: `jax.Array`, `jnp.ndarray`, jaxtyping's
        `Float[Array, "n d"]` (not `ArrayLike`, which takes Python and NumPy values too)?"""
        if isinstance(annotation, cst.Subscript):
            head = self.resolve(annotation.value) or ""
            first = annotation.slice[0].slice
            if not head.startswith("jaxtyping.") or not isinstance(first, cst.Index):
                return False
            annotation = first.value
        return annotation is not None and self.resolve(annotation) in JAX_ARRAY_TYPES

    def _parameter_kind(self, name: str) -> Kind:
        """Array or pytree? Evidence in the body and at call sites, else a default by root."""
        hints = self.info.param_hints.get(name, set())
        if not self.info.own_trace and not hints & {"traced", "array"}:
            # what the body does with it says what it is, not that a caller passes a tracer
            self._assumed.add(name)
        if name in self._container_evidence or "container" in hints:
            return Kind.TRACED
        documented = documented_kind(self.node, name)
        if documented == "sequence":
            return Kind.TRACED  # `z : list` in the docstring: a list of arrays
        if name in self._array_evidence or "array" in hints or documented == "array":
            return Kind.ARRAY
        # Functions JAX traces directly are mostly given arrays; helpers often get pytrees.
        if not self.info.own_trace:
            return Kind.TRACED
        if not self.info.slicing:
            self._unproven.add(name)
        return Kind.ARRAY

    def _spread_unproven(self) -> None:
        """A name rebound anywhere is not the parameter any more; a slice of one stays unproven."""
        bound: dict[str, list[cst.CSTNode]] = {}
        for _, target, value in self._bindings:
            for name, part in _name_values(target, value):
                bound.setdefault(name, []).append(part)
        self._unproven -= set(bound)
        for name in self._carry_leaves:
            if len(bound.get(name, ())) == 1:  # bound by the unpacking of the carry only
                self._unproven.add(name)
        for name, values in bound.items():
            if name in self.locals and all(
                isinstance(v, cst.Subscript) and _is_slice(v) and self.unproven_array(v)
                for v in values
            ):
                self._unproven.add(name)

    def _solve(self) -> None:
        for _ in range(8):
            changed = False
            evaluator = _Evaluator(self)
            for kind_of_binding, target, value in self._bindings:
                if kind_of_binding == "for":
                    element = evaluator.element(value)  # type: ignore[arg-type]  # the iterable
                    changed |= self._bind(target, element)
                elif kind_of_binding == "aug":
                    node = value
                    assert isinstance(node, cst.AugAssign)
                    combined = max(evaluator.kind(node.target), evaluator.kind(node.value))
                    changed |= self._bind(target, Kind(combined))
                else:
                    changed |= self._bind_value(
                        target,
                        value,  # type: ignore[arg-type]  # an "assign" binding: an expression
                        evaluator,
                    )
            if not changed:
                break

    def _bind_value(
        self, target: cst.CSTNode, value: cst.BaseExpression, evaluator: _Evaluator
    ) -> bool:
        if (
            isinstance(target, (cst.Tuple, cst.List))
            and isinstance(value, (cst.Tuple, cst.List))
            and len(target.elements) == len(value.elements)
        ):
            return any(
                [
                    self._bind_value(t.value, v.value, evaluator)
                    for t, v in zip(target.elements, value.elements, strict=True)
                ]
            )
        kind = evaluator.kind(value)
        if isinstance(target, (cst.Tuple, cst.List)):
            if kind == Kind.TRACED and self._is_lax_carry(value):
                # `i, x = state` in a lax loop body: the carry's leaves are arrays
                return any(
                    [self._bind(name, self._leaf_kind(name)) for name in target_names(target)]
                )
            element = {
                Kind.SHAPE_TUPLE: Kind.SHAPE,
                Kind.CONTAINER: Kind.TRACED,
            }.get(kind, kind)
            return self._bind(target, element)
        return self._bind(target, kind)

    def _is_lax_carry(self, value: cst.BaseExpression) -> bool:
        """A parameter of a function that a lax loop (scan, fori_loop, while_loop) traces."""
        return (
            isinstance(value, cst.Name)
            and value.value in self.info.params
            and any(
                reason.how == "passed" and reason.api in LAX_LOOP_APIS
                for reason in self.info.reasons
            )
        )

    def _leaf_kind(self, name: cst.Name) -> Kind:
        if name.value in self._container_evidence:
            return Kind.TRACED
        if name.value not in self._array_evidence:
            self._carry_leaves.add(name.value)  # a lax carry holds lists of arrays as often
        return Kind.ARRAY

    def _bind(self, target: cst.CSTNode, kind: Kind | list[Kind]) -> bool:
        if isinstance(target, cst.Name):
            if isinstance(kind, list):
                kind = max(kind) if kind else Kind.STATIC
            name = target.value
            if (
                kind == Kind.TRACED
                and name in self._array_evidence
                and (name not in self._container_evidence)
            ):
                kind = Kind.ARRAY
            old = self.env.get(name)
            new = kind if old is None else max(old, kind)
            if new != old:
                self.env[name] = Kind(new)
                return True
            return False
        if isinstance(target, (cst.Tuple, cst.List)):
            changed = False
            for position, element in enumerate(target.elements):
                if isinstance(kind, list):
                    part = kind[position] if position < len(kind) else Kind.TRACED
                else:
                    part = kind
                value = element.value
                if isinstance(value, cst.StarredElement):
                    value = value.value
                changed |= self._bind(value, part)
            return changed
        if isinstance(target, cst.StarredElement):
            return self._bind(target.value, kind)
        return False


_DISPLAYS = (cst.List, cst.Tuple, cst.ListComp)
# exact types for the collector's per-node hooks (libcst's node classes are not subclassed)
_BINDING_TYPES = frozenset({cst.Assign, cst.AnnAssign, cst.AugAssign, cst.NamedExpr, cst.WithItem})
_COMPREHENSION_TYPES = frozenset({cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp})
_LOOPS = frozenset({cst.For, cst.While})
_SUITES = frozenset({cst.IndentedBlock, cst.SimpleStatementSuite})


class _EvidenceCollector(cst.CSTVisitor):
    """One pass over a function body: its bindings, and evidence of arrays vs containers.

    Nested functions are walked for evidence about the names they share with this function
    (their own parameters excepted), but their bindings belong to them.
    """

    def __init__(self, values: FunctionValues) -> None:
        super().__init__()
        self.values = values
        self.bindings: list[tuple[str, cst.CSTNode, cst.CSTNode]] = []
        self.depth = 0
        self.shadowed: list[set[str]] = []
        # source order, for "which bindings can reach this loop" (`order_of`, `loop_spans`)
        self.sequence = 0
        self.order_of: dict[int, int] = {}  # id(binding target or loop) → sequence number
        # id(binding target or loop) → the statement blocks around it, outermost first
        self.block_of: dict[int, tuple[int, ...]] = {}
        self._blocks: list[int] = []
        self._pending: list[cst.CSTNode] = []  # targets of the binding being visited
        self.loop_spans: list[tuple[int, int]] = []
        self._open_loops: list[int] = []
        # id(comprehension `for` target) → the span of its comprehension: Python 3 scopes the
        # variable to it, so the binding reaches no read outside
        self.comprehension_span_of: dict[int, tuple[int, int]] = {}
        self._open_comprehensions: list[tuple[int, list[int]]] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        # exact types, not isinstance: this runs on every node, and `BaseSuite` is an ABC
        self.sequence += 1
        kind = type(node)
        if self.depth == 0:
            if kind in _LOOPS:
                self.order_of[id(node)] = self.sequence
                self.block_of[id(node)] = tuple(self._blocks)
                self._open_loops.append(self.sequence)
            elif kind is cst.Name or kind is cst.CompFor:
                self.order_of[id(node)] = self.sequence  # a Name: where it is read (or bound)
                self.block_of[id(node)] = tuple(self._blocks)
                if kind is cst.CompFor and self._open_comprehensions:
                    # `kind is`: the cheaper test on this path, which mypy does not narrow by
                    self._open_comprehensions[-1][1].append(id(cast(cst.CompFor, node).target))
            elif kind in _COMPREHENSION_TYPES:
                self._open_comprehensions.append((self.sequence, []))
        if kind in _SUITES:
            self._blocks.append(id(node))
        return super().on_visit(node)

    def on_leave(self, original_node: cst.CSTNode) -> None:
        kind = type(original_node)
        if self.depth == 0:
            if kind in _LOOPS:
                self.loop_spans.append((self._open_loops.pop(), self.sequence))
            elif kind in _COMPREHENSION_TYPES:
                start, target_ids = self._open_comprehensions.pop()
                for target_id in target_ids:
                    self.comprehension_span_of[target_id] = (start, self.sequence)
        if kind in _SUITES:
            self._blocks.pop()
        if self._pending and kind in _BINDING_TYPES:
            for target in self._pending:
                self.order_of[id(target)] = self.sequence
            self._pending.clear()
        super().on_leave(original_node)

    def _evidence(self, name: str, container: bool) -> None:
        if any(name in names for names in self.shadowed):
            return
        target = self.values._container_evidence if container else self.values._array_evidence
        target.add(name)

    def _enter(self, params: cst.Parameters) -> None:
        self.depth += 1
        every = (*params.posonly_params, *params.params, *params.kwonly_params)
        names = {p.name.value for p in every}
        for star in (params.star_arg, params.star_kwarg):
            if isinstance(star, cst.Param):
                names.add(star.name.value)
        self.shadowed.append(names)

    def _leave(self) -> None:
        self.depth -= 1
        self.shadowed.pop()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._enter(node.params)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._leave()

    def visit_Lambda(self, node: cst.Lambda) -> None:
        self._enter(node.params)

    def leave_Lambda(self, original_node: cst.Lambda) -> None:
        self._leave()

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if isinstance(node.value, cst.Name):
            name, attribute = node.value.value, node.attr.value
            if attribute in ARRAY_EVIDENCE_ATTRIBUTES:
                self._evidence(name, container=False)
            elif not attribute.startswith("__"):
                # `.items()`, `state.params`, `graph.nodes`: a container or an object
                self._evidence(name, container=True)

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        for side, other in ((node.left, node.right), (node.right, node.left)):
            if isinstance(side, cst.Name):
                if isinstance(other, (cst.List, cst.Tuple)):
                    self._evidence(side.value, container=True)
                elif isinstance(node.operator, EVIDENCE_OPERATORS):
                    self._evidence(side.value, container=False)

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if isinstance(node.value, cst.Name) and len(node.slice) == 1:
            index = node.slice[0].slice
            if isinstance(index, cst.Index) and isinstance(index.value, cst.SimpleString):
                self._evidence(node.value.value, container=True)

    def visit_Call(self, node: cst.Call) -> None:
        self.values._call_evidence(node, self._evidence)

    def _bind(self, kind: str, target: cst.CSTNode, value: cst.CSTNode) -> None:
        if self.depth == 0:
            self.bindings.append((kind, target, value))
            self.order_of[id(target)] = self.sequence
            self.block_of[id(target)] = tuple(self._blocks)
            if kind != "for":  # an assignment binds after its value is read: stamp it on leave
                self._pending.append(target)

    def visit_For(self, node: cst.For) -> None:
        self._bind("for", node.target, node.iter)
        iterable = node.iter
        while isinstance(iterable, cst.Subscript):  # `for w, b in params[:-1]`
            iterable = iterable.value
        for element, name in _iteration_pairs(node.target, node.iter, self.values.resolve):
            if _used_as_object(node.body, element, self.values.resolve):
                self._evidence(name, container=True)
        if isinstance(iterable, cst.Name) and (
            isinstance(node.target, (cst.Tuple, cst.List))
            or (isinstance(node.target, cst.Name) and _calls(node.body, node.target.value))
        ):
            # `for w, b in params`, `for layer in layers: x = layer(x)`: a Python container
            self._evidence(iterable.value, container=True)

    def _comprehension(self, node: cst.BaseComp, *parts: cst.CSTNode) -> None:
        loop = node.for_in
        if isinstance(loop.iter, cst.Name) and isinstance(loop.target, (cst.Tuple, cst.List)):
            self._evidence(loop.iter.value, container=True)  # `for path, leaf in leaves`
        for element, iterable in _iteration_pairs(loop.target, loop.iter, self.values.resolve):
            if any(_used_as_object(p, element, self.values.resolve) for p in parts):
                self._evidence(iterable, container=True)

    def visit_ListComp(self, node: cst.ListComp) -> None:
        self._comprehension(node, node.elt, *node.for_in.ifs)

    def visit_SetComp(self, node: cst.SetComp) -> None:
        self._comprehension(node, node.elt, *node.for_in.ifs)

    def visit_GeneratorExp(self, node: cst.GeneratorExp) -> None:
        self._comprehension(node, node.elt, *node.for_in.ifs)

    def visit_DictComp(self, node: cst.DictComp) -> None:
        self._comprehension(node, node.key, node.value, *node.for_in.ifs)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self._bind("for", node.target, node.iter)

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._bind("assign", target.target, node.value)
            if isinstance(target.target, (cst.Tuple, cst.List)) and isinstance(
                node.value, cst.Name
            ):
                self._evidence(node.value.value, container=True)  # `h, c = carry`

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self._bind("assign", node.target, node.value)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._bind("aug", node.target, node)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._bind("assign", node.target, node.value)

    def visit_WithItem(self, node: cst.WithItem) -> None:
        if node.asname is not None:
            self._bind("assign", node.asname.name, node.item)


LAX_LOOP_APIS = frozenset(
    {"jax.lax.scan", "jax.lax.fori_loop", "jax.lax.while_loop", "jax.lax.map"}
)


def _calls(body: cst.CSTNode, name: str) -> bool:
    """Is `name(...)` called somewhere in `body`?"""
    finder = _CallFinder(name)
    walk(body, finder)
    return finder.found


class _CallFinder(cst.CSTVisitor):
    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name
        self.found = False

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name) and node.func.value == self.name:
            self.found = True


def _iteration_pairs(
    target: cst.BaseExpression,
    iterable: cst.BaseExpression,
    resolve: Callable[[cst.BaseExpression], str | None],
) -> list[tuple[str, str]]:
    """(element name, iterated name) pairs: `for u in v`, `for u, w in zip(v, dvdt)`."""
    if isinstance(target, cst.Name) and isinstance(iterable, cst.Name):
        return [(target.value, iterable.value)]
    if (
        isinstance(target, cst.Tuple)
        and isinstance(iterable, cst.Call)
        and resolve(iterable.func) == "builtins.zip"
    ):
        return [
            (element.value.value, argument.value.value)
            for element, argument in zip(target.elements, iterable.args, strict=False)
            if isinstance(element.value, cst.Name) and isinstance(argument.value, cst.Name)
        ]
    return []


def _used_as_object(
    node: cst.CSTNode, name: str, resolve: Callable[[cst.BaseExpression], str | None]
) -> bool:
    """Is `name` used as a Python object in `node`: a non-array attribute read, `isinstance`?"""
    finder = _ObjectUse(name, resolve)
    walk(node, finder)
    return finder.found


class _ObjectUse(cst.CSTVisitor):
    def __init__(self, name: str, resolve: Callable[[cst.BaseExpression], str | None]) -> None:
        super().__init__()
        self.name = name
        # not `resolve`: that would hide CSTVisitor's own (metadata) `resolve`
        self.resolve_name = resolve
        self.found = False

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if (
            isinstance(node.value, cst.Name)
            and node.value.value == self.name
            and node.attr.value not in ARRAY_EVIDENCE_ATTRIBUTES
            and not node.attr.value.startswith("__")
        ):
            self.found = True

    def visit_Call(self, node: cst.Call) -> None:
        if (
            self.resolve_name(node.func) == "builtins.isinstance"
            and node.args
            and isinstance(node.args[0].value, cst.Name)
            and node.args[0].value.value == self.name
        ):
            self.found = True


def _name_values(target: cst.CSTNode, value: cst.CSTNode) -> list[tuple[str, cst.CSTNode]]:
    """(name, the value it gets) for each name a binding binds; `a, b = x, y` pairs them up."""
    if (
        isinstance(target, (cst.Tuple, cst.List))
        and isinstance(value, (cst.Tuple, cst.List))
        and len(target.elements) == len(value.elements)
    ):
        return [
            pair
            for t, v in zip(target.elements, value.elements, strict=True)
            for pair in _name_values(t.value, v.value)
        ]
    return [(name.value, value) for name in target_names(target)]


def _is_slice(node: cst.Subscript) -> bool:
    """`z[a:b]`: a slice of a sequence, the same kind of value as `z` (unlike `z[i]`)."""
    return len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Slice)


def _names_container_type(call: cst.Call) -> bool:
    if len(call.args) < 2:
        return False
    names = {dotted_cst(n) for n in _flatten_tuple(call.args[1].value)}
    return bool(names & {"list", "tuple", "dict", "Sequence", "Mapping"})


def _flatten_tuple(node: cst.BaseExpression) -> list[cst.BaseExpression]:
    if isinstance(node, cst.Tuple):
        return [e.value for e in node.elements]
    return [node]


def _cst_annotations(node: cst.FunctionDef | cst.Lambda) -> dict[str, cst.BaseExpression]:
    if isinstance(node, cst.Lambda):
        return {}
    params = node.params
    found = {}
    for param in (*params.posonly_params, *params.params, *params.kwonly_params):
        if param.annotation is not None:
            found[param.name.value] = param.annotation.annotation
    return found


def _union_kind(kinds: list[Kind | None]) -> Kind | None:
    """A union that admits a container may be one: its structure is unknown."""
    known = [k for k in kinds if k is not None]
    if Kind.TRACED in known:
        return Kind.TRACED
    return max(known, default=None)


def _annotation_kind(annotation: cst.BaseExpression | None) -> Kind | None:
    if annotation is None:
        return None
    if isinstance(annotation, cst.SimpleString):
        return None
    head = annotation
    while isinstance(head, cst.Subscript):
        head = head.value
    if isinstance(annotation, cst.BinaryOperation):  # `Array | None`, `Array | tuple[Array]`
        return _union_kind([_annotation_kind(annotation.left), _annotation_kind(annotation.right)])
    dotted = dotted_cst(head)
    if dotted is None:
        return None
    last = dotted.split(".")[-1]
    if last in ("Optional", "Union") and isinstance(annotation, cst.Subscript):
        kinds = [
            _annotation_kind(e.slice.value)
            for e in annotation.slice
            if isinstance(e.slice, cst.Index)
        ]
        return _union_kind(kinds)
    if last in ARRAY_ANNOTATIONS:
        return Kind.ARRAY
    if last in CONTAINER_ANNOTATIONS:
        return Kind.TRACED
    if last in STATIC_ANNOTATIONS:
        return Kind.STATIC
    return None


class _Evaluator:
    """Computes kinds of expressions against a FunctionValues environment."""

    def __init__(self, values: FunctionValues) -> None:
        self.values = values

    def kind(self, node: cst.BaseExpression) -> Kind:
        method: Callable[[cst.BaseExpression], Kind] | None = getattr(
            self, f"_{type(node).__name__}", None
        )
        if method is None:
            return Kind.STATIC
        return method(node)

    # literals and simple names
    def _Name(self, node: cst.Name) -> Kind:
        return self.values.name_kind(node.value)

    def _Attribute(self, node: cst.Attribute) -> Kind:
        if dotted_cst(node) is not None and not self.values.is_local(_head_name(node)):
            return Kind.STATIC  # a module, or a module-level constant: fixed at trace time
        base = self.kind(node.value)
        attribute = node.attr.value
        if not base.traced:
            return Kind.STATIC
        if attribute == "shape":
            return Kind.SHAPE_TUPLE
        if attribute == "size":
            return Kind.SHAPE
        if attribute in STATIC_ATTRIBUTES:
            return Kind.STATIC
        if isinstance(node.value, cst.Name) and attribute in self.values.info.leaf_fields.get(
            node.value.value, ()
        ):
            return Kind.ARRAY  # a number or array field of a dataclass-like pytree
        if base == Kind.ARRAY and attribute in ARRAY_ATTRIBUTES:
            return Kind.ARRAY
        return Kind.TRACED  # a field of a pytree object (arrays have no other attributes)

    def _Subscript(self, node: cst.Subscript) -> Kind:
        base = self.kind(node.value)
        if base == Kind.SHAPE_TUPLE:
            simple = len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index)
            return Kind.SHAPE if simple else Kind.SHAPE_TUPLE
        if base == Kind.CONTAINER:
            return Kind.TRACED
        if base == Kind.STATIC and any(
            isinstance(element.slice, cst.Index) and self.kind(element.slice.value) == Kind.ARRAY
            for element in node.slice
        ):
            # `self.locations[bmu_index]`: only a JAX array takes a traced index (a list, dict
            # or NumPy array raises), and what it gathers is traced
            return Kind.ARRAY
        return base

    def _BinaryOperation(self, node: cst.BinaryOperation) -> Kind:
        if isinstance(node.operator, (cst.Multiply, cst.Add)) and (
            isinstance(node.left, _DISPLAYS) or isinstance(node.right, _DISPLAYS)
        ):
            return Kind.CONTAINER  # `[slice(None)] * ndim`, `xs + [x]`: a Python sequence
        return max(self.kind(node.left), self.kind(node.right))

    def _UnaryOperation(self, node: cst.UnaryOperation) -> Kind:
        operand = self.kind(node.expression)
        return Kind.ARRAY if operand.traced else operand

    def _BooleanOperation(self, node: cst.BooleanOperation) -> Kind:
        return max(self.kind(node.left), self.kind(node.right))

    def _Comparison(self, node: cst.Comparison) -> Kind:
        if all(isinstance(c.operator, (cst.Is, cst.IsNot)) for c in node.comparisons):
            return Kind.STATIC
        kinds = [self.kind(node.left)] + [self.kind(c.comparator) for c in node.comparisons]
        return Kind.ARRAY if any(k.traced for k in kinds) else Kind.STATIC

    def _IfExp(self, node: cst.IfExp) -> Kind:
        return max(self.kind(node.body), self.kind(node.orelse))

    def _NamedExpr(self, node: cst.NamedExpr) -> Kind:
        return self.kind(node.value)

    def _Await(self, node: cst.Await) -> Kind:
        return Kind.TRACED

    def _sequence(self, elements: Sequence[cst.BaseElement]) -> Kind:
        kinds = [self.kind(e.value) for e in elements if hasattr(e, "value")]
        if not kinds:
            return Kind.CONTAINER
        return Kind.CONTAINER if max(kinds) >= Kind.SHAPE else Kind.STATIC

    def _List(self, node: cst.List) -> Kind:
        return self._sequence(node.elements)

    def _Tuple(self, node: cst.Tuple) -> Kind:
        kinds = [self.kind(e.value) for e in node.elements]
        if (
            kinds
            and all(k in (Kind.SHAPE, Kind.SHAPE_TUPLE, Kind.STATIC) for k in kinds)
            and any(k >= Kind.SHAPE for k in kinds)
        ):
            return Kind.SHAPE_TUPLE
        return Kind.STATIC if not kinds or max(kinds) == Kind.STATIC else Kind.CONTAINER

    def _Set(self, node: cst.Set) -> Kind:
        return self._sequence(node.elements)

    def _Dict(self, node: cst.Dict) -> Kind:
        return Kind.CONTAINER

    def _ListComp(self, node: cst.ListComp) -> Kind:
        return Kind.CONTAINER if self.kind(node.elt).traced else Kind.STATIC

    _SetComp = _ListComp
    _GeneratorExp = _ListComp

    def _DictComp(self, node: cst.DictComp) -> Kind:
        return Kind.CONTAINER

    def _Call(self, node: cst.Call) -> Kind:
        qualified = self.values.resolve(node.func)
        arguments = [self._argument_kind(a) for a in node.args]
        strongest = max(arguments, default=Kind.STATIC)
        if qualified is not None:
            return self._known_call(qualified, node, arguments, strongest)
        if isinstance(node.func, cst.Attribute):
            receiver = self.kind(node.func.value)
            method = node.func.attr.value
            if method in DISTRIBUTION_DRAWS and _distribution(node.func.value, self.values):
                return Kind.ARRAY  # `dist.Normal(m, s).sample(key, (n,))`: a JAX array
            if receiver == Kind.ARRAY:
                if method == "tolist":
                    return Kind.CONTAINER
                if method == "item":
                    return Kind.STATIC
                return Kind.ARRAY if method in ARRAY_METHODS else Kind.TRACED
            if receiver.traced or receiver == Kind.CONTAINER:
                return Kind.TRACED
        if (
            strongest.traced
            and isinstance(node.func, cst.Call)
            and self.values.resolve(node.func.func) in ARRAY_LAYERS
        ):
            return Kind.ARRAY  # `nn.Dense(4)(x)`
        callee = self.kind(node.func)
        if callee.traced or strongest.traced:
            return Kind.TRACED
        return Kind.STATIC

    def _argument_kind(self, argument: cst.Arg) -> Kind:
        kind = self.kind(argument.value)
        value = argument.value
        if (
            argument.star
            and self.values.traced
            and isinstance(value, cst.Name)
            and value.value in (self.values.info.vararg, self.values.info.kwarg)
        ):
            return Kind.TRACED  # `f(*args)` in traced code passes the tracers `args` holds
        return kind

    def _known_call(
        self, qualified: str, node: cst.Call, arguments: list[Kind], strongest: Kind
    ) -> Kind:
        if qualified in SHAPE_PROJECTIONS:
            if not strongest.traced:
                return Kind.STATIC
            return Kind.SHAPE_TUPLE if SHAPE_PROJECTIONS[qualified] == "tuple" else Kind.SHAPE
        if qualified.startswith("builtins."):
            name = qualified[len("builtins.") :]
            if name == "len":
                return Kind.SHAPE if arguments and arguments[0] == Kind.ARRAY else Kind.STATIC
            if name == "min" and not strongest.traced and _literal_int_argument(node):
                return Kind.STATIC  # `min(5, n // 10 + 2)`: at most 5, whatever the data
            if name in ("min", "max", "abs", "round", "pow", "divmod", "sum"):
                if strongest.traced:
                    return Kind.ARRAY if Kind.ARRAY in arguments else Kind.TRACED
                return Kind.SHAPE if strongest >= Kind.SHAPE else Kind.STATIC
            if name in (
                "list",
                "tuple",
                "dict",
                "sorted",
                "reversed",
                "enumerate",
                "zip",
                "map",
                "filter",
            ):
                return (
                    Kind.CONTAINER
                    if strongest.traced or strongest == Kind.CONTAINER
                    else Kind.STATIC
                )
            if name == "getattr" and arguments:
                return Kind.TRACED if arguments[0].traced else Kind.STATIC
            if name in ("int", "operator.index") and arguments and arguments[0] == Kind.SHAPE:
                return Kind.SHAPE
            return Kind.STATIC  # int(), float(), isinstance(), str(), range(), print(), ...
        if qualified == "jax.random.split":
            # an array of `num` keys: as long as an array when `num` comes from a shape
            return Kind.ARRAY if Kind.SHAPE in arguments[1:] else Kind.TRACED
        if qualified in STRUCTURED_RESULTS:
            return Kind.TRACED
        if is_array_api(qualified):
            if self.values.eager and all(k in _PYTHON_VALUES for k in arguments):
                return Kind.STATIC  # `jnp.zeros((n,))` under a vmap alone: a concrete array
            return Kind.ARRAY
        if qualified in STATIC_PROJECTIONS or qualified.startswith(("jax.numpy.", "jax.dtypes.")):
            return Kind.STATIC  # static projections: result_type, issubdtype, finfo, ...
        if qualified.startswith(("numpy.", "math.")):
            if strongest.traced:
                return Kind.TRACED
            return Kind.SHAPE if strongest >= Kind.SHAPE else Kind.STATIC
        if qualified in ("jax.device_put", "jax.lax.stop_gradient", "jax.block_until_ready"):
            return max(strongest, Kind.TRACED) if strongest.traced else Kind.ARRAY
        return Kind.TRACED if strongest.traced else Kind.STATIC

    # iteration
    def element(self, iterable: cst.BaseExpression) -> Kind | list[Kind]:
        if isinstance(iterable, cst.Call):
            qualified = self.values.resolve(iterable.func) or ""
            arguments = [a.value for a in iterable.args]
            if qualified == "builtins.range":
                return Kind.STATIC
            if qualified == "builtins.enumerate" and arguments:
                inner = self.element(arguments[0])
                return [Kind.STATIC, max(inner) if isinstance(inner, list) else inner]
            if qualified == "builtins.zip":
                parts = [self.element(a) for a in arguments]
                return [max(p) if isinstance(p, list) else p for p in parts]
            if qualified in ("builtins.reversed", "builtins.sorted", "builtins.iter") and arguments:
                return self.element(arguments[0])
            if isinstance(iterable.func, cst.Attribute) and iterable.func.attr.value == "items":
                return [Kind.STATIC, Kind.TRACED]
        if isinstance(iterable, (cst.List, cst.Tuple, cst.Set)):
            kinds = [self.kind(e.value) for e in iterable.elements]
            return max(kinds, default=Kind.STATIC)
        kind = self.kind(iterable)
        return {
            Kind.SHAPE_TUPLE: Kind.SHAPE,
            Kind.CONTAINER: Kind.TRACED,
            Kind.SHAPE: Kind.STATIC,
        }.get(kind, kind)


def _distribution(node: cst.BaseExpression, values: FunctionValues) -> bool:
    """A distribution made on the spot: `dist.MultivariateNormal(mean, cov)` of numpyro."""
    return isinstance(node, cst.Call) and (values.resolve(node.func) or "").startswith(
        DISTRIBUTION_MODULES
    )


def _head_name(node: cst.BaseExpression) -> str:
    while isinstance(node, (cst.Attribute, cst.Subscript, cst.Call)):
        node = node.value if not isinstance(node, cst.Call) else node.func
    return node.value if isinstance(node, cst.Name) else ""


def _literal_int_argument(node: cst.Call) -> bool:
    return any(
        isinstance(a.value, cst.Integer) and not a.star and a.keyword is None for a in node.args
    )
