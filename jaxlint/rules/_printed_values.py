"""What a print's arguments are made of, as JAX201 and JAX206 and the print rewrite ask it
(`ValueQueries`): which hold tracers, which are text made at trace time."""

from __future__ import annotations

import libcst as cst

from jaxlint.analysis.cst_walk import OwnScopeVisitor, walk
from jaxlint.analysis.jax_api import SHAPE_PROJECTIONS
from jaxlint.analysis.query import Frame
from jaxlint.analysis.values import Kind
from jaxlint.engine.requests import ValueQueries
from jaxlint.engine.rule import UnitContext
from jaxlint.rules._printed_text import makes_text

STATIC_METADATA = frozenset({"shape", "dtype", "ndim", "size", "weak_type", "sharding"})
# Attributes of an array that are Python values fixed at trace time.
STATIC_PROJECTIONS = STATIC_METADATA | {"aval", "nbytes", "itemsize"}
NOT_VALUES = (cst.Lambda, cst.FunctionDef, cst.ClassDef)
DISPLAYS = (cst.List, cst.Tuple, cst.Set, cst.Dict)  # judged by what they hold
SHAPE_CALLS = frozenset({*SHAPE_PROJECTIONS, "jax.numpy.ndim", "numpy.ndim", "numpy.size"})


class PrintedValues:
    """What a print's arguments are made of, as the print rewrites ask (`ValueQueries`): which
    hold tracers, which are text made at trace time."""

    def __init__(self, context: UnitContext) -> None:
        self.context = context
        self._binding_cache: dict[int, tuple[Frame, dict[str, list[cst.BaseExpression]]]] = {}

    def queries(self) -> ValueQueries:
        context = self.context
        return ValueQueries(
            traced=context.holds_traced,
            array=lambda e: context.kind(e) == Kind.ARRAY,
            parameter=lambda e: (
                isinstance(e, cst.Name)
                and context.function is not None
                and e.value in context.function.params
            ),
            mentions_traced=self.mentions_traced,
            builtin=self.builtin,
            text=self.holds_text,
        )

    def builtin(self, func: cst.BaseExpression) -> str | None:
        """`str` when `func` is the builtin `str` (not a local or imported `str`)."""
        qualified = self.context.resolve(func)
        if qualified is not None and qualified.startswith("builtins."):
            return qualified[len("builtins.") :]
        return None

    def mentions_traced(self, expression: cst.BaseExpression) -> bool:
        """May the value, or its text, come from a traced value (`x`, `str(x)`, `msg = f"{x}"`)?

        Static projections of arrays (`x.shape`, `x.dtype`, `len(x)`) do not count. A local name
        counts when any value bound to it does; a container may hold arrays.
        """
        return self._mentions(expression, set())

    def holds_text(self, expression: cst.BaseExpression) -> bool:
        """Might this hold a str made in the function from values (`"%s" % x`, `msg = str(x)`)?"""
        return self._text(expression, set())

    def _mentions(self, expression: cst.CSTNode, seen: set[str]) -> bool:
        context = self.context
        if isinstance(expression, NOT_VALUES):
            return isinstance(expression, cst.Lambda) and self._mentions(expression.body, seen)
        if isinstance(expression, cst.BaseExpression):
            attribute = expression.attr.value if isinstance(expression, cst.Attribute) else ""
            if attribute in STATIC_PROJECTIONS:
                return False  # `.shape` / `.dtype` / `.ndim` of anything (`tc[0].shape`): static
            if context.holds_traced(expression):
                return True
            if isinstance(expression, cst.Name):
                bound = self._bound(expression.value, seen)
                if bound:  # a local list is what was put into it (`shape += [n, m // k]`)
                    return any(self._mentions(v, seen) for v in bound)
            if context.kind(expression) == Kind.CONTAINER and not isinstance(expression, DISPLAYS):
                return True  # a list or tuple that may hold arrays
            if isinstance(expression, cst.Attribute):
                return self._mentions(expression.value, seen)
            if isinstance(expression, cst.Call) and context.resolve(expression.func) in SHAPE_CALLS:
                return False  # `jnp.shape(x)`: static, whatever it is called on
            if (
                isinstance(expression, cst.Call)
                and self.builtin(expression.func) == "len"
                and len(expression.args) == 1
                and context.kind(expression.args[0].value).traced
            ):
                return False
        return any(self._mentions(child, seen) for child in _value_children(expression))

    def _text(self, expression: cst.CSTNode, seen: set[str]) -> bool:
        if isinstance(expression, cst.BaseExpression) and makes_text(expression, self.builtin):
            return True
        if isinstance(expression, cst.Name):
            return any(self._text(v, seen) for v in self._bound(expression.value, seen))
        if isinstance(expression, NOT_VALUES):
            return False
        return any(self._text(child, seen) for child in _value_children(expression))

    def _bound(self, name: str, seen: set[str]) -> list[cst.BaseExpression]:
        """Values bound to `name` in the function that binds it (once per query)."""
        if name in seen:
            return []
        seen.add(name)
        frame = self.context.frame
        while frame is not None:
            bindings = self._bindings(frame)
            if name in bindings or name in frame.info.local_names:
                return bindings.get(name, [])
            frame = frame.parent
        return []  # a module-level name: fixed at trace time

    def _bindings(self, frame: Frame) -> dict[str, list[cst.BaseExpression]]:
        """Name → the values bound to it in the frame's function (nested scopes excluded)."""
        cache = self._binding_cache
        cached = cache.get(id(frame))
        if cached is None or cached[0] is not frame:
            collector = _BindingCollector()
            walk(frame.node.body, collector)
            cached = cache[id(frame)] = (frame, collector.bindings)
        return cached[1]


def _value_children(node: cst.CSTNode) -> list[cst.CSTNode]:
    """Children that are values: not `a.attr`'s `attr`, nor `f(k=v)`'s `k`."""
    if isinstance(node, cst.Attribute):
        return [node.value]
    if isinstance(node, cst.Arg):
        return [node.value]
    return list(node.children)


class _BindingCollector(OwnScopeVisitor):
    def __init__(self) -> None:
        self.bindings: dict[str, list[cst.BaseExpression]] = {}

    def _bind(self, target: cst.CSTNode, value: cst.BaseExpression) -> None:
        if isinstance(target, cst.Name):
            self.bindings.setdefault(target.value, []).append(value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._bind(element.value, value)
        elif isinstance(target, cst.StarredElement):
            self._bind(target.value, value)

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._bind(target.target, node.value)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self._bind(node.target, node.value)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._bind(node.target, node.value)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._bind(node.target, node.value)

    def visit_For(self, node: cst.For) -> None:
        self._bind(node.target, node.iter)

    def visit_WithItem(self, node: cst.WithItem) -> None:
        if node.asname is not None:
            self._bind(node.asname.name, node.item)
