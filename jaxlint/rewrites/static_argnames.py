"""JAX103's rewrite: a parameter used only where a concrete value is needed → `static_argnames`.

`@jax.jit def f(x, n): return jnp.zeros(n) + x` raises on every call: `n` is a tracer where a
shape must be a number. Made static (`@partial(jax.jit, static_argnames=("n",))`), `n` is the
Python value the caller passed, and each distinct value compiles once. That is the same function
when every use of `n` needs it concrete (a shape, `range`, a slice bound, an `if`, `int()`, or
arithmetic feeding one of these) — so no traced computation reads it — and every call site in
the module passes a hashable literal. Offered for a module-level function whose jit is its
decorator; verified, since the eager original and the jitted rewrite can be compared directly.
"""

from __future__ import annotations

import ast

import libcst as cst

from jaxlint.analysis.cst_text import code_of
from jaxlint.analysis.cst_walk import walk
from jaxlint.analysis.jax_api import SHAPED
from jaxlint.analysis.scope import FunctionInfo
from jaxlint.engine.edits import Edit, ImportSpec, Refusal
from jaxlint.engine.rule import UnitContext

STATIC_CALLS = frozenset(
    {
        "builtins.range",
        "builtins.int",
        "builtins.float",
        "builtins.bool",
        "builtins.len",
        "operator.index",
    }
)
SHAPE_KEYWORDS = frozenset({"shape", "axis", "length", "num", "N", "n", "M", "k", "size"})
# nodes a static value passes through unchanged in kind: `n // 2`, `(n, 3)`, `-n`, `n > 2`
ARITHMETIC = (
    cst.BinaryOperation,
    cst.UnaryOperation,
    cst.Comparison,
    cst.BooleanOperation,
    cst.Tuple,
    cst.List,
    cst.Element,
    cst.Arg,
    cst.ComparisonTarget,
)
JITS = frozenset({"jax.jit"})


def static_argname_edit(param: str, context: UnitContext) -> Edit | Refusal | None:
    """Add `param` to the function's `static_argnames`, or why not; None when not offered."""
    frame = context.frame
    if frame is None or frame.parent is not None or not isinstance(frame.node, cst.FunctionDef):
        return None
    info = frame.info
    if info.class_info is not None or param not in (*info.positional, *info.keyword_only):
        return None
    decorator = _jit_decorator(frame.node, context)
    if decorator is None:
        return None  # jitted by a call (`g = jax.jit(f)`) or a transform: no decorator to edit
    if info.host_constant_params is None:
        return Refusal(
            f"no call of `{info.name}` in this module shows what callers pass for `{param}`: "
            f"make it static by hand if it is a setting (each value compiles again)"
        )
    if param not in info.host_constant_params:
        return Refusal(
            f"a call of `{info.name}` passes `{param}` something other than a hashable "
            "constant, which static_argnames cannot take"
        )
    problem = _non_static_use(frame.node, param, context)
    if problem:
        return Refusal(f"`{param}` is also {problem}, so it cannot simply be made static")
    replacement = _with_static(decorator, param, info, context)
    if isinstance(replacement, Refusal):
        return replacement
    new_decorator, imports = replacement
    return Edit(
        replacements={decorator: new_decorator},
        description=f"static_argnames += {param!r} (each distinct value compiles once)",
        imports=imports,
        verify_target=context.verify_target(),
        kind="verified",
    )


def _jit_decorator(function: cst.FunctionDef, context: UnitContext) -> cst.Decorator | None:
    """`@jax.jit` or `@partial(jax.jit, ...)`, when it is the function's only jit."""
    found = []
    for decorator in function.decorators:
        expression = decorator.decorator
        if context.resolve(expression) in JITS or (
            isinstance(expression, cst.Call)
            and context.resolve(expression.func) == "functools.partial"
            and expression.args
            and context.resolve(expression.args[0].value) in JITS
        ):
            found.append(decorator)
    return found[0] if len(found) == 1 else None


def _with_static(
    decorator: cst.Decorator, param: str, info: FunctionInfo, context: UnitContext
) -> tuple[cst.Decorator, tuple[ImportSpec, ...]] | Refusal:
    expression = decorator.decorator
    if isinstance(expression, cst.Call):  # partial(jax.jit, ...)
        keywords = {a.keyword.value: a for a in expression.args if a.keyword is not None}
        if "static_argnames" in keywords:
            return Refusal("the jit already has static_argnames: add the name there")
        if "static_argnums" in keywords:
            # with static_argnums given, jit does not map static_argnames to positions: a
            # positional `n` would stay traced, so its position joins static_argnums instead
            argnums = keywords["static_argnums"]
            return _with_static_argnum(expression, decorator, argnums, param, info)
        names = cst.parse_expression(f"({param!r},)")
        arg = cst.Arg(
            keyword=cst.Name("static_argnames"),
            value=names,
            equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")),
        )
        args = [*expression.args]
        space = cst.SimpleWhitespace(" ")
        args[-1] = args[-1].with_changes(comma=cst.Comma(whitespace_after=space))
        return decorator.with_changes(decorator=expression.with_changes(args=[*args, arg])), ()
    partial, imports = _partial_spelling(context)
    jit = cst.Module(body=[]).code_for_node(expression)
    new = cst.parse_expression(f"{partial}({jit}, static_argnames=({param!r},))")
    return decorator.with_changes(decorator=new), imports


def _with_static_argnum(
    call: cst.Call, decorator: cst.Decorator, argnums: cst.Arg, param: str, info: FunctionInfo
) -> tuple[cst.Decorator, tuple[ImportSpec, ...]] | Refusal:
    """`static_argnums=(2,)` → `static_argnums=(2, 1)` for the parameter at position 1."""
    if param not in info.positional:
        return Refusal(
            f"`{param}` is keyword-only and the jit lists static_argnums: add it by hand"
        )
    try:
        given = ast.literal_eval(cst.Module(body=[]).code_for_node(argnums.value))
    except (ValueError, SyntaxError):
        return Refusal("static_argnums is not a literal: add the position by hand")
    numbers = (given,) if isinstance(given, int) else tuple(given)
    if not all(isinstance(n, int) for n in numbers):
        return Refusal("static_argnums is not a literal: add the position by hand")
    position = info.positional.index(param)
    value = cst.parse_expression(repr((*numbers, position)))
    args = [a if a is not argnums else a.with_changes(value=value) for a in call.args]
    return decorator.with_changes(decorator=call.with_changes(args=args)), ()


def _partial_spelling(context: UnitContext) -> tuple[str, tuple[ImportSpec, ...]]:
    aliases = context.index.imports.aliases
    for name, qualified in aliases.items():
        if qualified == "functools.partial":
            return name, ()
    for name, qualified in aliases.items():
        if qualified == "functools":
            return f"{name}.partial", ()
    return "functools.partial", (ImportSpec("functools"),)


def _non_static_use(function: cst.FunctionDef, param: str, context: UnitContext) -> str | None:
    """How `param` is used other than as a concrete value, or None when it never is."""
    finder = _Uses(param, context)
    walk(function.body, finder)
    return finder.problem


class _Uses(cst.CSTVisitor):
    def __init__(self, param: str, context: UnitContext) -> None:
        super().__init__()
        self.param = param
        self.context = context
        self.stack: list[cst.CSTNode] = []
        self.problem: str | None = None

    def on_visit(self, node: cst.CSTNode) -> bool:
        if self.problem is not None:
            return False
        if isinstance(node, cst.Name) and node.value == self.param:
            self.problem = self._judge(node)
        self.stack.append(node)
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        if self.stack and self.stack[-1] is original_node:
            self.stack.pop()

    def _judge(self, name: cst.Name) -> str | None:
        parent = self.stack[-1] if self.stack else None
        if (isinstance(parent, cst.Attribute) and parent.attr is name) or (
            isinstance(parent, cst.Arg) and parent.keyword is name
        ):
            return None  # `x.n`, `f(n=...)`: another name spelled the same
        child: cst.CSTNode = name
        for parent in reversed(self.stack):
            if isinstance(parent, (cst.AssignTarget, cst.AugAssign)) or (
                isinstance(parent, (cst.For, cst.CompFor)) and parent.target is child
            ):
                return "reassigned"
            if isinstance(parent, (cst.If, cst.While, cst.IfExp)) and parent.test is child:
                return None
            if isinstance(parent, cst.Assert) and parent.test is child:
                return None
            if isinstance(parent, cst.Slice):
                return None
            if isinstance(parent, cst.Index):
                return "an index (a traced value works)"
            if isinstance(parent, cst.Call) and child is not parent.func:
                return self._call_use(parent, child)
            if isinstance(parent, cst.Attribute) and parent.value is child:
                return f"read as `{self.param}.{parent.attr.value}`"
            if not isinstance(parent, ARITHMETIC):
                return f"used as a value in `{code_of(child)}`"
            child = parent
        return f"used as a value in `{code_of(child)}`"

    def _call_use(self, call: cst.Call, argument: cst.CSTNode) -> str | None:
        qualified = self.context.resolve(call.func) or ""
        if qualified in STATIC_CALLS or qualified.startswith("math."):
            return None
        arg = argument if isinstance(argument, cst.Arg) else None
        keyword = arg.keyword.value if arg is not None and arg.keyword is not None else None
        if qualified.startswith(("jax.numpy.", "jax.lax.", "jax.random.")):
            if keyword in SHAPE_KEYWORDS:
                return None
            if arg is not None and keyword is None and _is_shape_position(qualified, call, arg):
                return None
        if isinstance(call.func, cst.Attribute) and call.func.attr.value in ("reshape", "repeat"):
            return None
        return f"an argument of `{cst.Module(body=[]).code_for_node(call.func)}(...)`"


def _is_shape_position(qualified: str, call: cst.Call, arg: cst.Arg) -> bool:
    """The shape argument of an array constructor (`jnp.zeros(n)`, `jnp.full((n, 3), v)`)."""
    position = SHAPED.get(qualified, (None, None))[0]
    positional = [a for a in call.args if a.keyword is None]
    return position is not None and position < len(positional) and positional[position] is arg
