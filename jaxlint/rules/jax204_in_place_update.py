"""JAX204 in-place-update: `x[i] = v` / `x[i] += v` on a JAX array raises TypeError."""

from __future__ import annotations

import ast
import re

import libcst as cst

from jaxlint.analysis.cst_text import code_of
from jaxlint.analysis.names import dotted_ast
from jaxlint.analysis.scope import ModuleIndex
from jaxlint.analysis.unit_summary import UnitSummary
from jaxlint.analysis.values import Kind
from jaxlint.engine.edits import Edit, Refusal
from jaxlint.engine.rule import Rule

ERROR = "TypeError (JAX arrays are immutable and do not support in-place item assignment)"
AT_METHODS: dict[type[cst.BaseAugOp], str] = {
    cst.AddAssign: "add",
    cst.SubtractAssign: "subtract",
    cst.MultiplyAssign: "multiply",
    cst.DivideAssign: "divide",
    cst.PowerAssign: "power",
}
# `x[...] = v` / `x[...] += v` (not `==`), as text
SUBSCRIPT_STORE = re.compile(r"\]\s*(?:[-+*/%@&|^]|\*\*|//|<<|>>)?=(?!=)")
INT_ARITHMETIC = (cst.Add, cst.Subtract, cst.Multiply, cst.FloorDivide, cst.Modulo)
INT_CALLS = frozenset({"builtins.int", "builtins.len", "operator.index"})


class InPlaceUpdate(Rule):
    code = "JAX204"
    name = "in-place-update"
    severity = "error"
    fix_kind = "safe"
    summary = "`x[i] = v` on a JAX array: TypeError, JAX arrays are immutable (use x.at[i].set)"
    host_node_types = (ast.Assign, ast.AugAssign)

    @classmethod
    def host_text(cls, text: str, index: ModuleIndex) -> bool:
        return SUBSCRIPT_STORE.search(text) is not None and any(
            f"{alias}." in text for alias in _jax_aliases(index)
        )

    @classmethod
    def host_candidate(cls, node: ast.AST, statement: ast.stmt, index: ModuleIndex) -> bool:
        """A store into a name the same top-level statement binds to a JAX call's result."""
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]  # type: ignore[attr-defined]
        stored = {
            t.value.id
            for t in targets
            if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name)
        }
        return bool(stored) and bool(stored & _jax_bound_names(statement, index))

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
        # the value the name holds here: `d = {...}` after `d = jnp.zeros(3)` is a dict
        if context.kind_at(base, base) != Kind.ARRAY or context.unproven_array(base):
            return
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
        if chained:
            return Refusal("a chained assignment (`a = x[i] = v`): split it first")
        if operator is not None and type(operator) not in AT_METHODS:
            return Refusal(f"`{code_of(operator).strip()}` has no `.at[]` method")
        problem = self._index_problem(target, operator)
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
            return Refusal(
                f"`{name}` is a parameter, and callers may expect their array changed in place "
                f"(NumPy's contract): return `{name} = {name}.at[...]...` to them by hand"
            )
        if name not in function.local_names:
            return Refusal(f"`{name}` is not a local name of `{function.name}`")
        alias = _alias(self.context.frame.node if self.context.frame else None, name)
        if alias:
            return Refusal(
                f"`{name}` is also reachable as {alias}, which would not see the update "
                "(`.at[]` makes a new array)"
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
        replacement = cst.Assign(targets=[cst.AssignTarget(target=base)], value=updated)
        return Edit(
            replacements={statement: replacement},
            description=f"{name}[...] {'=' if operator is None else code_of(operator).strip()} v"
            f" → {name} = {name}.at[...].{method}(v)",
        )

    def _index_problem(self, target: cst.Subscript, operator: cst.BaseAugOp | None) -> str | None:
        """Why `.at[index]` may differ from NumPy's item assignment, if it may."""
        for element in target.slice:
            part = element.slice
            if isinstance(part, cst.Slice):
                continue
            value = part.value  # type: ignore[attr-defined]
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
            or (kind == "assign" and self._scalar_int(bound, depth - 1))  # type: ignore[arg-type]
            for kind, bound in bindings
        )


_BOUND_CACHE: dict[int, tuple[ast.stmt, frozenset[str]]] = {}


def _jax_bound_names(statement: ast.stmt, index: ModuleIndex) -> frozenset[str]:
    """Names `statement` assigns a value computed by a `jax.*` call (`g = jnp.zeros(n)`,
    `y = jnp.asarray(x) * 2`), once per statement."""
    cached = _BOUND_CACHE.get(id(statement))
    if cached is not None and cached[0] is statement:
        return cached[1]
    names: set[str] = set()
    for node in ast.walk(statement):
        if isinstance(node, ast.Assign) and _calls_jax(node.value, index):
            for target in node.targets:
                names.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
    _BOUND_CACHE.clear()  # one statement at a time: the engine walks them in order
    _BOUND_CACHE[id(statement)] = (statement, frozenset(names))
    return _BOUND_CACHE[id(statement)][1]


def _calls_jax(value: ast.expr, index: ModuleIndex) -> bool:
    for node in ast.walk(value):
        if isinstance(node, ast.Call):
            qualified = index.imports.resolve(dotted_ast(node.func)) or ""
            if qualified.startswith("jax."):
                return True
    return False


def _jax_aliases(index: ModuleIndex) -> tuple[str, ...]:
    """The module's names for JAX and its modules (`jax`, `jnp`, `lax`, a `np` bound to jnp)."""
    return tuple(
        name for name, qualified in index.imports.aliases.items() if qualified.startswith("jax")
    ) or ("jax",)


def _alias(function: cst.CSTNode | None, name: str) -> str | None:
    """Another reference to the array `name` holds, made in the function, if any."""
    if function is None:
        return None
    finder = _AliasFinder(name)
    function.visit(finder)
    return finder.found


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
