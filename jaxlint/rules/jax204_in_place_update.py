"""JAX204 in-place-update: `x[i] = v` / `x[i] += v` on a JAX array raises TypeError."""

from __future__ import annotations

from typing import TypeGuard

import libcst as cst

from jaxlint.analysis.cst_text import code_of
from jaxlint.analysis.cst_walk import OwnScopeVisitor, subtree, walk
from jaxlint.analysis.host_queries.jax_stores import STORES_INTO_JAX_RESULTS
from jaxlint.analysis.unit_summary import UnitSummary
from jaxlint.analysis.values import Kind
from jaxlint.engine.edits import Edit, ImportSpec, Refusal
from jaxlint.engine.rule import Rule
from jaxlint.rules._codegen import JaxSpelling

ERROR = "TypeError (JAX arrays are immutable and do not support in-place item assignment)"
AT_METHODS: dict[type[cst.BaseAugOp], str] = {
    cst.AddAssign: "add",
    cst.SubtractAssign: "subtract",
    cst.MultiplyAssign: "multiply",
    cst.DivideAssign: "divide",
    cst.PowerAssign: "power",
}
# calls whose result is a JAX array (when the value analysis agrees it is an array)
JAX_MAKERS = ("jax.numpy.", "jax.random.", "jax.lax.", "jax.nn.", "jax.scipy.", "jax.device_put")
ARRAY_METHODS = frozenset(
    {
        "astype",
        "reshape",
        "copy",
        "transpose",
        "squeeze",
        "ravel",
        "flatten",
        "sum",
        "mean",
        "clip",
        "round",
        "conj",
        "swapaxes",
        "repeat",
    }
)
INT_ARITHMETIC = (cst.Add, cst.Subtract, cst.Multiply, cst.FloorDivide, cst.Modulo)
INT_CALLS = frozenset({"builtins.int", "builtins.len", "operator.index"})


class InPlaceUpdate(Rule):
    code = "JAX204"
    name = "in-place-update"
    severity = "error"
    fix_kind = "safe"
    summary = "`x[i] = v` on a JAX array: TypeError, JAX arrays are immutable (use x.at[i].set)"
    # host code: a store into a name the same top-level statement binds to a JAX call's result
    host_query = STORES_INTO_JAX_RESULTS

    @classmethod
    def may_apply(cls, unit: UnitSummary) -> bool:
        # traced code: a traced array needs no JAX call to be one (`v = state * 0.9`)
        return cls.code in unit.host_candidates or (unit.traced and unit.stores_into)

    def visit_Assign(self, node: cst.Assign) -> None:
        if len(node.targets) != 1:
            for target in node.targets:
                self._check(target.target, None, node, chained=True)
            return
        self._check(node.targets[0].target, None, node)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._check(node.target, node.operator, node)

    def _check(
        self,
        target: cst.BaseExpression,
        operator: cst.BaseAugOp | None,
        statement: cst.Assign | cst.AugAssign,
        chained: bool = False,
    ) -> None:
        if not isinstance(target, cst.Subscript):
            return
        base = target.value
        context = self.context
        if not isinstance(base, cst.Name) or not self._made_by_jax(base, depth=4):
            return
        if any(
            isinstance(e.slice, cst.Index) and isinstance(e.slice.value, cst.SimpleString)
            for e in target.slice
        ):
            return  # `params["w"] = ...`: a dict (a JAX array has no string keys)
        if context.maybe_unstaged_branch(statement):
            return  # `if isinstance(x, np.ndarray): x[i] = v` and the like
        index = ", ".join(code_of(e.slice) for e in target.slice)
        method = "set" if operator is None else AT_METHODS.get(type(operator), "set")
        written = code_of(operator).strip() if operator else "="
        self.report(
            statement,
            f"`{code_of(target)} {written} ...` on `{code_of(base)}`, a JAX array, raises "
            f"TypeError: JAX arrays are immutable; write "
            f"`{code_of(base)} = {code_of(base)}.at[{index}].{method}(...)`",
            fix=self._fix(target, operator, statement, chained),
        )

    def _fix(
        self,
        target: cst.Subscript,
        operator: cst.BaseAugOp | None,
        statement: cst.Assign | cst.AugAssign,
        chained: bool,
    ) -> Edit | Refusal:
        base = target.value
        problem = self._store_problem(target, operator, chained)
        if problem:
            return Refusal(problem)
        function = self.context.function
        if not isinstance(base, cst.Name) or function is None:
            return Refusal(
                f"`{code_of(base)}` is not a local name: other references to the array would "
                "not see the update; rebind it by hand"
            )
        name = base.value
        if name in function.params:
            return self._parameter_fix(name, statement)
        if name not in function.local_names:
            return Refusal(f"`{name}` is not a local name of `{function.name}`")
        aliased = _aliased(self.context.frame.node if self.context.frame else None, name)
        if aliased:
            return aliased
        method = "set" if operator is None else AT_METHODS[type(operator)]
        result = f"{name}.at[...].{method}(v)"
        if isinstance(operator, cst.DivideAssign):  # (see _at_update)
            exact = _integer_division(target, operator, statement.value)
            result = (
                f"{name}.at[...].set(({name}[...] / v).astype({name}.dtype)), NumPy's dtype"
                + (
                    " (an integer array divided as integers, exactly)"
                    if exact
                    else " (an integer array's quotient is float32 without x64, NumPy's float64: "
                    "past 2**24 the truncated value can differ)"
                )
                if _one_element(target)
                else f"{name}.at[...].divide(v) (of an integer array NumPy raises: `/=` on "
                "a slice needs a float array; .at[].divide makes the array float)"
            )
        spelling = JaxSpelling.of(self.context)
        return Edit(
            replacements={statement: _at_update(target, operator, statement, spelling)},
            imports=_jax_import(spelling, _integer_division(target, operator, statement.value)),
            description=f"{name}[...] {'=' if operator is None else code_of(operator).strip()} v"
            f" → {name} = {result}",
        )

    def _store_problem(
        self, target: cst.Subscript, operator: cst.BaseAugOp | None, chained: bool
    ) -> str | None:
        """Why this store has no `.at[]` form equal to NumPy's, if it has none."""
        if chained:
            return "a chained assignment (`a = x[i] = v`): split it first"
        if operator is not None and type(operator) not in AT_METHODS:
            return f"`{code_of(operator).strip()}` has no `.at[]` method"
        if (
            isinstance(operator, cst.DivideAssign)
            and _one_element(target)
            and any(isinstance(node, cst.Call) for node in subtree(*target.slice))
        ):
            # the exact form reads `x[i]` again: a call in the index would run twice
            return "the index calls a function, and `/=` reads `x[i]` again: bind it to a name"
        return self._index_problem(target, operator)

    def _parameter_fix(self, name: str, statement: cst.Assign | cst.AugAssign) -> Edit | Refusal:
        """Every store into parameter `name` rewritten at once (one left as it was would raise
        on the array the others made), verified against the original run on NumPy copies of
        its inputs: under jit the original raises on every call. The edit is the first
        reported store's; the others point to it.

        Only in a function that runs nowhere but under staging: called eagerly on a NumPy
        array, its caller may expect the array changed in place (NumPy's contract).
        """
        context = self.context
        frame = context.frame
        target_name = context.verify_target()
        if not context.only_staged or frame is None or frame.parent is not None or not target_name:
            return Refusal(
                f"`{name}` is a parameter, and callers may expect their array changed in place "
                f"(NumPy's contract): return `{name} = {name}.at[...]...` to them by hand"
            )
        aliased = _aliased(frame.node, name)
        if aliased:
            return aliased
        stores = _stores_into(frame.node, name)
        lead = next(
            store
            for store, store_target, _, _ in stores
            if store is statement
            or (
                self._made_by_jax(_stored_name(store_target), depth=4)
                and not context.maybe_unstaged_branch(store)
            )
        )
        if lead is not statement:
            return Refusal(
                f"one fix rewrites every store into `{name}`: the one on line "
                f"{context.span(lead).line}"
            )
        replacements: dict[cst.CSTNode, cst.CSTNode] = {}
        spelling = JaxSpelling.of(context)
        for store, store_target, operator, chained in stores:
            problem = self._store_problem(store_target, operator, chained)
            if problem is None and context.reaching_values(_stored_name(store_target)):
                problem = f"`{name}` is also rebound in `{frame.info.name}`"
            if problem:
                line = context.span(store).line
                return Refusal(f"the store into `{name}` on line {line}: {problem}")
            replacements[store] = _at_update(store_target, operator, store, spelling)
        count = len(replacements)
        return Edit(
            replacements=replacements,
            description=f"{count} store{'s' if count != 1 else ''} into parameter `{name}` → "
            f"{name} = {name}.at[...]...",
            kind="verified",
            verify_target=target_name,
            numpy_reference=True,
            imports=_jax_import(
                spelling,
                any(_integer_division(t, op, store.value) for store, t, op, _ in stores),
            ),
        )

    def _index_problem(self, target: cst.Subscript, operator: cst.BaseAugOp | None) -> str | None:
        """Why `.at[index]` may differ from NumPy's item assignment, if it may."""
        for element in target.slice:
            part = element.slice
            if isinstance(part, cst.Slice):
                continue
            assert isinstance(part, cst.Index)  # a subscript's other element
            value = part.value
            if isinstance(value, cst.Comparison) or (
                isinstance(value, cst.UnaryOperation) and isinstance(value.operator, cst.BitInvert)
            ):
                return f"`{code_of(value)}` is a boolean mask: see JAX105, or use jnp.where"
            if isinstance(value, cst.Ellipsis) or (
                isinstance(value, cst.Name) and value.value == "None"
            ):
                continue
            if not self._scalar_int(value, depth=3):
                return (
                    f"`{code_of(value)}` may be an array of indices or a mask: with a position "
                    "twice, NumPy keeps the last write, `.at[].set` any one and `.at[].add` "
                    "every one"
                )
        return None

    def _made_by_jax(self, name: cst.Name, depth: int, parameters: bool = True) -> bool:
        """Positive evidence that `name` holds a JAX array here: every binding of it that
        reaches this point is one (`g = jnp.zeros(n)`, `y = g[1:] * 2`, `z = y.T`), or, in
        staged code outside Pallas kernels, a traced parameter with array evidence. A NumPy
        result (`np.asarray(g)`), a container, or an unknown call is not."""
        context = self.context
        frame = context.frame
        if frame is None or depth == 0:
            return False
        bindings = context.reaching_values(name)
        if not bindings:
            return (
                parameters
                and name.value in frame.info.params
                and frame.values.parameter_reaches(name.value, name)
                and self._traced_array_parameter(name)
            )
        if name.value in frame.info.params and frame.values.parameter_reaches(name.value, name):
            return False  # the parameter's own value may reach too
        return all(
            kind == "assign" and self._jax_value(value, depth)  # type: ignore[arg-type]  # assigned
            for kind, value in bindings
        )

    def _traced_array_parameter(self, name: cst.Name) -> bool:
        context = self.context
        if not context.staged or context.unproven_array(name):
            return False
        if any("pallas" in q or "mosaic" in q for q in context.index.imports.aliases.values()):
            return False  # kernel parameters are Refs, whose `ref[...] = v` is the store API
        return context.kind(name) == Kind.ARRAY

    def _jax_value(self, value: cst.BaseExpression, depth: int) -> bool:
        """Is the expression's value a JAX array by construction?"""
        context = self.context
        if isinstance(value, cst.Call):
            qualified = context.resolve(value.func) or ""
            if qualified.startswith(JAX_MAKERS):
                return context.kind(value) == Kind.ARRAY
            func = value.func
            if isinstance(func, cst.Attribute) and func.attr.value in ARRAY_METHODS:
                return self._jax_value(func.value, depth)
            if (
                isinstance(func, cst.Attribute)
                and isinstance(func.value, cst.Subscript)
                and isinstance(func.value.value, cst.Attribute)
                and func.value.value.attr.value == "at"
            ):
                return self._jax_value(func.value.value.value, depth)  # `x.at[i].set(v)`
            return False
        if isinstance(value, cst.Subscript):
            return self._jax_value(value.value, depth)
        if isinstance(value, cst.Attribute) and value.attr.value in ("T", "mT", "real", "imag"):
            return self._jax_value(value.value, depth)
        if isinstance(value, cst.BinaryOperation):
            sides = (value.left, value.right)
            if any(isinstance(v, (cst.List, cst.Tuple, cst.ListComp)) for v in sides):
                return False  # `[0.0] * (n + 1)`: a Python list
            jax_side = any(self._jax_value(v, depth) for v in sides)
            numpy_side = any(self._numpy_value(v) for v in sides)
            if not jax_side:  # `state * 0.9` of a traced parameter: a number cannot be NumPy's
                jax_side = any(
                    isinstance(v, cst.Name)
                    and isinstance(other, (cst.Integer, cst.Float))
                    and self._made_by_jax(v, depth - 1)
                    for v, other in (sides, sides[::-1])
                )
            return jax_side and not numpy_side
        if isinstance(value, cst.UnaryOperation):
            return self._jax_value(value.expression, depth)
        if isinstance(value, cst.Name):
            # a traced parameter inside arithmetic may meet NumPy values: only arrays made here
            return self._made_by_jax(value, depth - 1, parameters=False)
        return False

    def _numpy_value(self, value: cst.BaseExpression) -> bool:
        """Does NumPy compute any part of it (`np.sqrt(f(n)) ** k` in the arithmetic)?"""
        stack: list[cst.CSTNode] = [value]
        while stack:
            current = stack.pop()
            if isinstance(current, cst.Call) and (
                self.context.resolve(current.func) or ""
            ).startswith("numpy."):
                return True
            stack.extend(current.children)
        return False

    def _scalar_int(self, value: cst.BaseExpression, depth: int) -> bool:
        """Known to be one Python int: a literal, `len(x)`, `x.shape[0]`, a `range` loop's
        variable, or integer arithmetic of those (selecting one position, never twice)."""
        context = self.context
        if isinstance(value, cst.Integer) or context.kind(value) == Kind.SHAPE:
            return True
        if isinstance(value, cst.UnaryOperation) and isinstance(value.operator, cst.Minus):
            return self._scalar_int(value.expression, depth)
        if isinstance(value, cst.BinaryOperation) and isinstance(value.operator, INT_ARITHMETIC):
            return self._scalar_int(value.left, depth) and self._scalar_int(value.right, depth)
        if isinstance(value, cst.Call):
            return context.resolve(value.func) in INT_CALLS
        if not isinstance(value, cst.Name) or depth == 0:
            return False
        bindings = context.reaching_values(value)
        return bool(bindings) and all(
            (
                kind == "for"
                and isinstance(bound, cst.Call)
                and context.resolve(bound.func) == "builtins.range"
            )
            or (
                kind == "assign" and self._scalar_int(bound, depth - 1)  # type: ignore[arg-type]  # assigned
            )
            for kind, bound in bindings
        )


def _jax_import(spelling: JaxSpelling, divides: bool) -> tuple[ImportSpec, ...]:
    """`import jax` where an integer division (`divides`) is spelled `jax.lax.div`, the module
    having no alias of its own for lax."""
    return (ImportSpec("jax"),) if divides and spelling.lax.startswith("jax.") else ()


def _integer_division(
    target: cst.Subscript, operator: cst.BaseAugOp | None, value: cst.BaseExpression
) -> bool:
    """`x[i] /= 2`: one element divided by a positive int literal, which an integer array
    divides as integers (see _at_update)."""
    return (
        isinstance(operator, cst.DivideAssign)
        and _one_element(target)
        and isinstance(value, cst.Integer)
        and value.evaluated_value > 0
    )


def _at_update(
    target: cst.Subscript,
    operator: cst.BaseAugOp | None,
    statement: cst.Assign | cst.AugAssign,
    spelling: JaxSpelling,
) -> cst.Assign:
    """`x[i] op= v` as `x = x.at[i].<method>(v)`; `x[i] /= v` as
    `x = x.at[i].set((x[i] / v).astype(x.dtype))`: NumPy stores the quotient in the array's
    dtype (truncated, for integers), where `.at[].divide` makes an integer array float; by a
    positive integer literal, an integer array's element is divided as integers (exact). On a
    slice NumPy raises for an integer array (same_kind casting) and divides a float one:
    `.at[].divide` there, the difference named in the fix's description."""
    base = target.value
    assert isinstance(base, cst.Name)  # both callers store into a local name
    if isinstance(operator, cst.DivideAssign) and _one_element(target):
        source = cst.Module(body=[]).code_for_node
        array, row, value = (
            source(base),
            source(target.with_changes(lpar=[], rpar=[])),
            source(statement.value),
        )
        indices = source(target).removeprefix(array)  # `[i]`, as written
        if not isinstance(statement.value, _ATOMS):
            value = f"({value})"
        quotient = f"({row} / {value}).astype({array}.dtype)"
        if _integer_division(target, operator, statement.value):
            # NumPy divides an integer element in float64, which truncates to the integer
            # quotient exactly; float32 (no x64) does not beyond 2**24: integer division for
            # integer arrays (the dtype is known when the code is traced)
            np_, lax = spelling.numpy, spelling.lax
            quotient = (
                f"{lax}.div({row}, {np_}.asarray({value}, {array}.dtype)) "
                f"if {np_}.issubdtype({array}.dtype, {np_}.integer) else {quotient}"
            )
        return cst.Assign(
            targets=[cst.AssignTarget(target=base)],
            value=cst.parse_expression(f"{array}.at{indices}.set({quotient})"),
        )
    method = "set" if operator is None else AT_METHODS[type(operator)]
    updated = cst.Call(
        func=cst.Attribute(
            value=target.with_changes(
                value=cst.Attribute(value=base, attr=cst.Name("at")), lpar=[], rpar=[]
            ),
            attr=cst.Name(method),
        ),
        args=[cst.Arg(value=statement.value)],
    )
    return cst.Assign(targets=[cst.AssignTarget(target=base)], value=updated)


def _stores_into(
    function: cst.CSTNode, name: str
) -> list[tuple[cst.Assign | cst.AugAssign, cst.Subscript, cst.BaseAugOp | None, bool]]:
    """The item assignments `name[...] = v` / `name[...] op= v` of a function's own body
    (nested functions and classes are their own scopes): (statement, target, operator, chained)."""
    finder = _StoreFinder(name)
    body = getattr(function, "body", None)
    if isinstance(body, cst.BaseSuite):
        walk(body, finder)
    return finder.stores


def _stored_name(target: cst.Subscript) -> cst.Name:
    """`x` of a `x[...]` that `_StoreFinder` found."""
    assert isinstance(target.value, cst.Name)  # (`_StoreFinder._into`)
    return target.value


class _StoreFinder(OwnScopeVisitor):
    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name
        self.stores: list[
            tuple[cst.Assign | cst.AugAssign, cst.Subscript, cst.BaseAugOp | None, bool]
        ] = []

    def _into(self, target: cst.BaseExpression) -> TypeGuard[cst.Subscript]:
        return (
            isinstance(target, cst.Subscript)
            and isinstance(target.value, cst.Name)
            and target.value.value == self.name
        )

    def visit_Assign(self, node: cst.Assign) -> None:
        chained = len(node.targets) != 1
        for assign_target in node.targets:
            if self._into(assign_target.target):
                self.stores.append((node, assign_target.target, None, chained))

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if self._into(node.target):
            self.stores.append((node, node.target, node.operator, False))


def _aliased(function: cst.CSTNode | None, name: str) -> Refusal | None:
    """The refusal when the function makes another reference to the array `name` holds."""
    if function is None:
        return None
    finder = _AliasFinder(name)
    walk(function, finder)
    if finder.found is None:
        return None
    return Refusal(
        f"`{name}` is also reachable as {finder.found}, which would not see the update "
        "(`.at[]` makes a new array)"
    )


class _AliasFinder(cst.CSTVisitor):
    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name
        self.found: str | None = None

    def _is_name(self, node: cst.BaseExpression | None) -> bool:
        return isinstance(node, cst.Name) and node.value == self.name

    def visit_Assign(self, node: cst.Assign) -> None:
        value = node.value
        if self._is_name(value):
            self.found = self.found or f"`{code_of(node.targets[0].target)}`"
        elif isinstance(value, (cst.List, cst.Tuple, cst.Set)) and any(
            self._is_name(e.value) for e in value.elements
        ):
            self.found = self.found or f"an element of `{code_of(node.targets[0].target)}`"
        elif isinstance(value, cst.Dict) and any(
            self._is_name(getattr(e, "value", None)) for e in value.elements
        ):
            self.found = self.found or f"a value of `{code_of(node.targets[0].target)}`"

    def visit_Call(self, node: cst.Call) -> None:
        if (
            isinstance(node.func, cst.Attribute)
            and node.func.attr.value in ("append", "extend", "insert", "add", "setdefault")
            and any(self._is_name(a.value) for a in node.args)
        ):
            self.found = self.found or f"an item of `{code_of(node.func.value)}`"


def _one_element(target: cst.Subscript) -> bool:
    """Does `x[...]` select one element (no slice, `...` or None in the index)?"""
    return all(
        isinstance(e.slice, cst.Index)
        and not isinstance(e.slice.value, cst.Ellipsis)
        and not (isinstance(e.slice.value, cst.Name) and e.slice.value.value == "None")
        for e in target.slice
    )


_ATOMS = (cst.Name, cst.Integer, cst.Float, cst.Attribute, cst.Subscript, cst.Call)
