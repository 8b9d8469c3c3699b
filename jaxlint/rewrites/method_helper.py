"""JAX301's rewrite: a jitted method → a plain method calling a jitted module-level helper.

The helper takes the attributes of `self` the method reads as arguments. An attribute is static
only when every store to it in the module gives a hashable non-array value (a flag, a string, a
tuple, a configuration parameter of `__init__`); an attribute any store may make an array is
traced, and refused if the method uses it as a Python value. The method's `static_argnums` and
`donate_argnums` become names on the helper (its positions differ: `self` is gone and the
attributes come first). Attributes are read on every call, so there is no stale cache.
"""

from __future__ import annotations

import ast
import enum
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TypeGuard

import libcst as cst

from jaxlint.analysis.cst_walk import walk
from jaxlint.analysis.scope import ClassInfo, FunctionInfo, JitRoot
from jaxlint.engine.edits import Edit, ImportSpec, Refusal, Replacement
from jaxlint.engine.rule import UnitContext
from jaxlint.rules._codegen import fresh_name, is_docstring, names_in

STATIC_KEYWORDS = frozenset({"shape", "axis", "axes", "num", "dtype", "length", "size", "n"})
_REDUCTIONS = ("sum", "mean", "max", "min", "prod", "std", "var", "argmax", "argmin", "all", "any")
# positional arguments that must be Python values: of `jnp.<name>(...)` / `x.<name>(...)`
# (None: every argument)
STATIC_FUNCTION_ARGUMENTS: dict[str, tuple[int, ...]] = {
    "reshape": (1,),
    "transpose": (1,),
    "swapaxes": (1, 2),
    "moveaxis": (1, 2),
    "broadcast_to": (1,),
    "expand_dims": (1,),
    "squeeze": (1,),
    "tile": (1,),
    "repeat": (1,),
    "split": (1,),
    "zeros": (0,),
    "ones": (0,),
    "empty": (0,),
    "full": (0,),
    "eye": (0, 1),
    "arange": (0, 1, 2),
    "linspace": (2,),
    "one_hot": (1,),
    "concatenate": (1,),
    "stack": (1,),
    "cumsum": (1,),
    "cumprod": (1,),
    **{name: (1,) for name in _REDUCTIONS},
}
STATIC_METHOD_ARGUMENTS: dict[str, tuple[int, ...] | None] = {
    "reshape": None,
    "transpose": None,
    "swapaxes": (0, 1),
    "squeeze": (0,),
    "repeat": (0, 1),
    "astype": (0,),
    "cumsum": (0,),
    "cumprod": (0,),
    **{name: (0,) for name in _REDUCTIONS},
}
# builtins whose arguments must be concrete Python values under jit
PYTHON_VALUE_CALLS = frozenset({"range", "int", "float", "bool", "complex"})
ARRAY_MODULES = frozenset({"jax.numpy", "numpy", "jax.nn", "jax.lax"})
# jit options that do not refer to argument positions: copied onto the helper as they are
POSITION_FREE_OPTIONS = frozenset(
    {"inline", "keep_unused", "device", "backend", "out_shardings", "compiler_options"}
)
ARGUMENT_OPTIONS = ("static_argnums", "static_argnames", "donate_argnums", "donate_argnames")
MUTATING_METHODS = frozenset(
    {"append", "extend", "insert", "pop", "popitem", "remove", "clear", "update", "setdefault"}
    | {"add", "discard", "sort", "reverse", "fill", "resize", "put", "itemset"}
)
PROPERTY_DECORATORS = frozenset({"property", "cached_property"})
# bases that set no instance attributes
ATTRIBUTE_FREE_BASES = frozenset(
    {"object", "builtins.object", "abc.ABC", "typing.Generic", "typing.Protocol"}
)


class Kind(enum.Enum):
    """What a store to an attribute may put there."""

    NONE = "None"
    BOOL = "a bool"
    INT = "an int"
    FLOAT = "a float"
    STR = "a string"
    TUPLE = "a tuple"
    PARAM = "a parameter of `__init__`"  # configuration, by convention; never an array literal
    UNKNOWN = "a value that may be an array"


# values that cannot (strings), should not (flags) or may not work as (tuples as shapes) tracers
STATIC_BY_TYPE = frozenset({Kind.BOOL, Kind.STR, Kind.TUPLE})
ARRAY_COMPATIBLE_DEFAULTS = frozenset({Kind.NONE, Kind.BOOL, Kind.INT, Kind.FLOAT})


def helper_edit(method: cst.FunctionDef, root: JitRoot, context: UnitContext) -> Edit | Refusal:
    """The static-arg helper rewrite of a jitted method, or why it is refused."""
    info = context.function
    assert info is not None and info.class_info is not None
    class_info = info.class_info
    refusal = _unsupported_jit(method, root, info, context)
    if refusal is not None:
        return refusal
    options = _jit_options(method.decorators[0])
    if isinstance(options, Refusal):
        return options
    jit, keywords = options
    reading = _read_method(method, keywords, info, context)
    if isinstance(reading, Refusal):
        return reading
    uses, signature, method_static, donated = reading
    static = _static_attributes(uses, class_info, context, info.positional[0])
    if isinstance(static, Refusal):
        return static

    receiver = info.positional[0]
    taken = set(context.index.imports.aliases) | set(context.index.imports.module_defined)
    class_name = class_info.node.name
    helper_name = fresh_name(f"_{_snake(class_name)}_{info.name.strip('_')}", taken)
    # helper parameters: traced attributes, then static ones, then the method's own
    ordered = [a for a in uses.attributes if a not in static] + static
    attribute_params = _attribute_parameters(
        ordered, uses.names | set(signature.names) | {receiver, helper_name}, receiver
    )
    static_names = [attribute_params[a] for a in static] + method_static
    decorator, imports = _helper_decorator(jit, keywords, static_names, donated, context)
    helper_def = _helper_def(method, helper_name, attribute_params, receiver, decorator)
    new_method = _forwarding_method(method, helper_name, list(attribute_params), receiver)
    notes = [f"static: {', '.join(static_names)}"] if static_names else []
    if donated:
        notes.append(f"donated: {', '.join(donated)}")
    return Edit(
        replacements=_placed(method, new_method, helper_def, class_name, context),
        description=f"jitted method → module-level helper `{helper_name}`"
        + (f" ({'; '.join(notes)})" if notes else ""),
        imports=imports,
        verify_target=f"{class_name}.{info.name}",
        module_names=(helper_name,),
        restages=True,
    )


def _unsupported_jit(
    method: cst.FunctionDef, root: JitRoot, info: FunctionInfo, context: UnitContext
) -> Refusal | None:
    """Why the jit itself rules the rewrite out (before the method's body is read)."""
    if info.is_classmethod:
        return Refusal(
            "for a classmethod, `static_argnums=0` is the simpler fix (classes hash by identity)"
        )
    if root.api != "jax.jit":
        return Refusal(
            f"only `jax.jit` is rewritten: the helper's new arguments would change what "
            f"`{root.api}` does with them"
        )
    if len(method.decorators) != 1:
        return Refusal("the method has decorators besides jit")
    jit_attribute = _jit_attribute_use(context.index.tree, info.name)
    if jit_attribute:
        return Refusal(
            f"the module uses `{info.name}.{jit_attribute}`, which the plain method would not have"
        )
    return None


def _read_method(
    method: cst.FunctionDef,
    keywords: dict[str, cst.Arg],
    info: FunctionInfo,
    context: UnitContext,
) -> tuple[_SelfUses, _Signature, list[str], list[str]] | Refusal:
    """What the method reads of its receiver, its signature, and the parameters its jit makes
    static and donates; or why the method cannot become a helper."""
    receiver = info.positional[0]
    modules = {
        local
        for local, qualified in context.index.imports.aliases.items()
        if qualified in ARRAY_MODULES
    }
    uses = _SelfUses(receiver, _unconditional_reads(method.body), modules)
    walk(method.body, uses)
    if uses.problem:
        return Refusal(uses.problem)
    signature = _Signature.of(method.params)
    assert info.class_info is not None
    problem = _signature_problem(method, signature, _class_scope_names(info.class_info.node))
    if problem:
        return Refusal(problem)
    method_static = _argument_names(keywords, "static", signature, receiver)
    if isinstance(method_static, Refusal):
        return method_static
    donated = _argument_names(keywords, "donate", signature, receiver)
    if isinstance(donated, Refusal):
        return donated
    problem = _default_problem(signature, set(method_static), uses.static_names)
    if problem:
        return Refusal(problem)
    return uses, signature, method_static, donated


def _static_attributes(
    uses: _SelfUses, class_info: ClassInfo, context: UnitContext, receiver: str
) -> list[str] | Refusal:
    """The attributes the helper takes as static arguments (the others are traced), or why one
    of them can be neither."""
    bases = _with_bases(class_info)
    stores = _AttributeStores(context.index.tree, bases, _subclasses(bases, context))
    static: list[str] = []
    for attribute in uses.attributes:
        decision = _classify(attribute, uses, stores, receiver)
        if isinstance(decision, Refusal):
            return decision
        if decision:
            static.append(attribute)
    return static


def _placed(
    method: cst.FunctionDef,
    new_method: cst.FunctionDef,
    helper_def: cst.FunctionDef,
    class_name: str,
    context: UnitContext,
) -> dict[cst.CSTNode, Replacement]:
    """The replacements that swap the method for its forwarding version and put the helper
    after its class (after the helpers made for the class's other methods: method order)."""
    class_node = _module_class(context.wrapper.module, method)
    if class_node is None:
        # A unit parsed on its own (check mode) has no class around the method: the edit is
        # rebuilt on the whole module when fixing.
        return {method: new_method}
    new_class = class_node.deep_replace(method, new_method)
    anchor = _last_helper_after(context.wrapper.module, class_node, f"_{_snake(class_name)}_")
    if anchor is None:
        return {class_node: cst.FlattenSentinel([new_class, helper_def])}
    return {class_node: new_class, anchor: cst.FlattenSentinel([anchor, helper_def])}


JIT_ATTRIBUTES = frozenset({"lower", "trace", "eval_shape", "clear_cache", "__wrapped__"})


def _jit_attribute_use(tree: ast.Module, method_name: str) -> str | None:
    """An attribute of the jitted function (`predict.lower`) the module reads, if any."""
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and node.attr in JIT_ATTRIBUTES
            and isinstance(node.value, ast.Attribute)
            and node.value.attr == method_name
        ):
            return node.attr
    return None


def _signature_problem(
    method: cst.FunctionDef, signature: _Signature, class_names: set[str]
) -> str | None:
    """Why the method's parameters cannot move to a module-level helper, if they cannot."""
    if len(signature.posonly) > 1:
        return "the method has positional-only parameters"
    if signature.star_kwarg is not None:
        return (
            f"the method takes `**{signature.star_kwarg}`, whose keys could collide with the "
            "helper's parameters for the attributes"
        )
    params = method.params
    annotations = [
        (f"the annotation of `{p.name.value}`", p.annotation)
        for p in [*params.posonly_params, *params.params, *params.kwonly_params]
        if p.annotation is not None
    ]
    if method.returns is not None:
        annotations.append(("the return annotation", method.returns))
    for what, annotation in annotations:
        hidden = sorted(names_in(annotation) & class_names)
        if hidden:
            return (
                f"{what} names the class body's `{hidden[0]}`, which a module-level helper "
                "cannot see"
            )
    return None


def _attribute_parameters(attributes: list[str], taken: set[str], receiver: str) -> dict[str, str]:
    """The helper's parameter name for each attribute: its own, unless the body uses that."""
    names: dict[str, str] = {}
    for attribute in attributes:
        # `self.__w` is `self._Class__w`; the helper's parameter need not look private
        private = attribute.startswith("__") and not attribute.endswith("__")
        base = attribute[2:] if private else attribute
        names[attribute] = fresh_name(base if base not in taken else f"{receiver}_{base}", taken)
    return names


# -- what the method does with `self` -------------------------------------------------------------


class _SelfUses(cst.CSTVisitor):
    """`self.attr` reads of a method body, and anything else done with `self` (refused)."""

    def __init__(
        self, receiver: str, unconditional: set[cst.CSTNode], array_modules: set[str]
    ) -> None:
        super().__init__()
        self.receiver = receiver
        self._unconditional = unconditional
        self._array_modules = array_modules
        self.attributes: list[str] = []
        self.static: set[str] = set()  # attributes used as Python values
        # attributes passed whole where a sequence works as well (`jnp.pad(x, self.pad)`,
        # `for n in self.sizes`): a list there runs eagerly, and is unhashable as a static one
        self.whole: set[str] = set()
        self.static_names: set[str] = set()  # names used as Python values
        self.conditional: set[str] = set()  # attributes read only on some paths
        self.names: set[str] = set()
        self.problem: str | None = None
        self._static_depth = 0

    def _is_self_attribute(self, node: cst.BaseExpression) -> TypeGuard[cst.Attribute]:
        return (
            isinstance(node, cst.Attribute)
            and isinstance(node.value, cst.Name)
            and node.value.value == self.receiver
        )

    def _refuse(self, problem: str) -> None:
        if self.problem is None:
            self.problem = problem

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        if self._is_self_attribute(node):
            name = node.attr.value
            if name not in self.attributes:
                self.attributes.append(name)
            if self._static_depth:
                self.static.add(name)
            if node not in self._unconditional:
                self.conditional.add(name)
            return False
        return True

    def visit_Call(self, node: cst.Call) -> bool:
        func = node.func
        if self._is_self_attribute(func):
            self._refuse(f"the method calls `{self.receiver}.{func.attr.value}(...)`")
            return False
        if (
            isinstance(func, cst.Attribute)
            and self._is_self_attribute(func.value)
            and func.attr.value in MUTATING_METHODS
        ):
            attribute = func.value.attr.value
            self._refuse(
                f"the method changes `{self.receiver}.{attribute}` in place "
                f"(`.{func.attr.value}(...)`)"
            )
            return False
        if isinstance(func, cst.Name) and func.value == "super":
            self._refuse(f"the method uses `super()` on `{self.receiver}`")
            return False
        if isinstance(func, cst.Name) and func.value in PYTHON_VALUE_CALLS:
            self._static_depth += 1
            for argument in node.args:
                walk(argument, self)
            self._static_depth -= 1
            return False
        positions = self._static_positions(func)
        for position, argument in enumerate(node.args):
            self._note_whole(argument.value)
            if argument.keyword is not None:
                static = argument.keyword.value in STATIC_KEYWORDS
            else:
                static = not argument.star and (positions is None or position in positions)
            if static:
                self._static_depth += 1
                walk(argument.value, self)
                self._static_depth -= 1
        return True

    def _note_whole(self, value: cst.BaseExpression) -> None:
        if self._is_self_attribute(value):
            self.whole.add(value.attr.value)

    def _static_positions(self, func: cst.BaseExpression) -> tuple[int, ...] | None:
        """Positional arguments of a call that are shapes or axes (None: all of them)."""
        if not isinstance(func, cst.Attribute):
            return ()
        name = func.attr.value
        if isinstance(func.value, cst.Name) and func.value.value in self._array_modules:
            return STATIC_FUNCTION_ARGUMENTS.get(name, ())
        if (
            isinstance(func.value, cst.Attribute)
            and isinstance(func.value.value, cst.Name)
            and func.value.value.value in self._array_modules
        ):
            return ()  # `np.random.<name>`, `jnp.linalg.<name>`: not the shape functions
        return STATIC_METHOD_ARGUMENTS.get(name, ())

    def visit_Comparison(self, node: cst.Comparison) -> bool:
        # `self.b is None` holds for a traced array as well: not a use as a Python value
        if self._static_depth and all(
            isinstance(c.operator, (cst.Is, cst.IsNot))
            and (_is_none(c.comparator) or _is_none(node.left))
            for c in node.comparisons
        ):
            depth, self._static_depth = self._static_depth, 0
            walk(node.left, self)
            for comparison in node.comparisons:
                walk(comparison.comparator, self)
            self._static_depth = depth
            return False
        return True

    def _static_test(self, test: cst.BaseExpression) -> None:
        self._static_depth += 1
        walk(test, self)
        self._static_depth -= 1

    def visit_If(self, node: cst.If) -> None:
        self._static_test(node.test)

    def visit_While(self, node: cst.While) -> None:
        self._static_test(node.test)

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self._static_test(node.test)

    def visit_Assert(self, node: cst.Assert) -> None:
        self._static_test(node.test)

    def visit_For(self, node: cst.For) -> None:
        self._check_store(node.target)
        self._note_whole(node.iter)
        self._static_test(node.iter)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self._check_store(node.target)
        self._note_whole(node.iter)

    def visit_Slice(self, node: cst.Slice) -> None:
        self._static_depth += 1

    def leave_Slice(self, original_node: cst.Slice) -> None:
        self._static_depth -= 1

    def _check_store(self, target: cst.CSTNode) -> bool:
        if self.receiver in names_in(target):
            self._refuse(f"the method writes to `{self.receiver}`")
            return False
        return True

    def visit_AssignTarget(self, node: cst.AssignTarget) -> bool:
        return self._check_store(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._check_store(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._check_store(node.target)

    def visit_AsName(self, node: cst.AsName) -> None:
        self._check_store(node.name)

    def visit_Del(self, node: cst.Del) -> None:
        self._check_store(node.target)

    def visit_Name(self, node: cst.Name) -> None:
        self.names.add(node.value)
        if self._static_depth:
            self.static_names.add(node.value)
        if node.value == self.receiver:
            self._refuse(f"the method uses `{self.receiver}` itself, not only its attributes")
        elif node.value.startswith("__") and not node.value.endswith("__"):
            self._refuse(f"`{node.value}` is name-mangled inside the class but not in a helper")
        elif node.value == "__class__":
            self._refuse("the method uses `__class__`, which a module-level helper does not have")


def _is_none(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value == "None"


def _unconditional_reads(body: cst.BaseSuite) -> set[cst.CSTNode]:
    """Attribute nodes of a body evaluated on every call: in simple statements up to the first
    compound one (and in its header), outside `x if c else y`, `and`/`or` operands after the
    first, lambdas and comprehensions."""
    collector = _Unconditional()
    if isinstance(body, cst.SimpleStatementSuite):  # `def f(self, x): return ...`
        walk(body, collector)
        return set(collector.nodes)
    for statement in body.body:
        if isinstance(statement, cst.SimpleStatementLine):
            walk(statement, collector)
            if any(isinstance(s, (cst.Return, cst.Raise)) for s in statement.body):
                break
            continue
        if isinstance(statement, (cst.If, cst.While)):
            walk(statement.test, collector)
        elif isinstance(statement, cst.For):
            walk(statement.iter, collector)
        elif isinstance(statement, cst.With):
            for item in statement.items:
                walk(item.item, collector)
        break
    return set(collector.nodes)


class _Unconditional(cst.CSTVisitor):
    def __init__(self) -> None:
        super().__init__()
        self.nodes: list[cst.CSTNode] = []

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self.nodes.append(node)

    def visit_IfExp(self, node: cst.IfExp) -> bool:
        walk(node.test, self)
        return False

    def visit_BooleanOperation(self, node: cst.BooleanOperation) -> bool:
        walk(node.left, self)
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_ListComp(self, node: cst.ListComp) -> bool:
        return False

    def visit_SetComp(self, node: cst.SetComp) -> bool:
        return False

    def visit_DictComp(self, node: cst.DictComp) -> bool:
        return False

    def visit_GeneratorExp(self, node: cst.GeneratorExp) -> bool:
        return False


# -- the method's own parameters and jit options --------------------------------------------------


@dataclass(frozen=True)
class _Signature:
    """The method's parameters after `self`."""

    positional: tuple[str, ...]  # including `self` at 0, as argnums count
    posonly: frozenset[str]
    kwonly: tuple[str, ...]
    star_arg: str | None
    star_kwarg: str | None
    defaults: dict[str, cst.BaseExpression] = field(default_factory=dict)

    @classmethod
    def of(cls, params: cst.Parameters) -> _Signature:
        positional = [*params.posonly_params, *params.params]
        star = params.star_arg
        return cls(
            positional=tuple(p.name.value for p in positional),
            posonly=frozenset(p.name.value for p in params.posonly_params),
            kwonly=tuple(p.name.value for p in params.kwonly_params),
            star_arg=star.name.value if isinstance(star, cst.Param) else None,
            star_kwarg=params.star_kwarg.name.value if params.star_kwarg else None,
            defaults={
                p.name.value: p.default
                for p in [*positional, *params.kwonly_params]
                if p.default is not None
            },
        )

    @property
    def names(self) -> tuple[str, ...]:
        extra = tuple(n for n in (self.star_arg, self.star_kwarg) if n is not None)
        return (*self.positional[1:], *self.kwonly, *extra)


def _jit_options(
    decorator: cst.Decorator,
) -> tuple[cst.BaseExpression, dict[str, cst.Arg]] | Refusal:
    """The jit callable of a decorator and its keyword arguments (from any spelling)."""
    expression = decorator.decorator
    if not isinstance(expression, cst.Call):
        return expression, {}
    arguments = list(expression.args)
    jit = expression.func
    if arguments and arguments[0].keyword is None and not arguments[0].star:  # partial(jit, ...)
        jit = arguments.pop(0).value
    keywords: dict[str, cst.Arg] = {}
    for argument in arguments:
        if argument.keyword is None:
            return Refusal("the jit decorator has arguments that are not `name=value`")
        name = argument.keyword.value
        if name not in POSITION_FREE_OPTIONS and name not in ARGUMENT_OPTIONS:
            return Refusal(
                f"`{name}=` of the jit decorator may refer to argument positions, which move "
                "in the helper"
            )
        keywords[name] = argument
    return jit, keywords


def _argument_names(
    keywords: dict[str, cst.Arg], kind: str, signature: _Signature, receiver: str
) -> list[str] | Refusal:
    """The method parameters named by `<kind>_argnums` / `<kind>_argnames`, as names."""
    names: list[str] = []
    allowed = set(signature.positional[1:]) | set(signature.kwonly)
    for suffix in ("argnums", "argnames"):
        argument = keywords.get(f"{kind}_{suffix}")
        if argument is None:
            continue
        spelled = f"`{kind}_{suffix}={cst.Module([]).code_for_node(argument.value)}`"
        try:
            value = ast.literal_eval(cst.Module([]).code_for_node(argument.value))
        except (ValueError, SyntaxError):
            return Refusal(f"{spelled} is not a literal")
        values = value if isinstance(value, (tuple, list)) else (value,)
        for item in values:
            if suffix == "argnums":
                name = _position_name(item, signature)
                if isinstance(name, Refusal):
                    return Refusal(f"{spelled}: {name.reason}")
            else:
                name = item
            if name == receiver and kind == "static":
                continue  # static self (JAX306): the helper takes attributes, read every call
            if name == receiver:
                return Refusal(f"{spelled} names `{receiver}`")
            if not isinstance(name, str) or name not in allowed:
                return Refusal(f"{spelled}: `{name}` is not a parameter of the method")
            if name in signature.posonly:
                return Refusal(f"{spelled}: `{name}` is positional-only, so it has no name")
            if name not in names:
                names.append(name)
    return names


def _position_name(number: object, signature: _Signature) -> str | Refusal:
    """The parameter at an argnum of the method (`self` is 0)."""
    positional = signature.positional
    if not isinstance(number, int) or isinstance(number, bool):
        return Refusal(f"`{number!r}` is not a position")
    if number < 0:
        if signature.star_arg or any(p in signature.defaults for p in positional):
            return Refusal(
                "a negative position counts from the end of each call's arguments, and this "
                "method's calls can differ in length"
            )
        number += len(positional)
    if number >= len(positional):
        where = f"`*{signature.star_arg}`" if signature.star_arg else "no parameter"
        return Refusal(f"position {number} is {where}")
    if number < 0:
        return Refusal(f"position {number} is no parameter")
    return positional[number]


def _default_problem(
    signature: _Signature, static: set[str], python_values: set[str]
) -> str | None:
    """Why forwarding a parameter with a default would change it, if it would.

    jit leaves an omitted default a Python value; the forwarding method always passes it, so
    the helper would see it traced.
    """
    for name, default in signature.defaults.items():
        if name in static:
            continue
        code = cst.Module([]).code_for_node(default)
        if not _cst_default_kind(default) <= ARRAY_COMPATIBLE_DEFAULTS:
            return (
                f"parameter `{name}` defaults to `{code}`, which is not a JAX type: under jit it "
                "works only when the caller omits it, but the forwarding method always passes "
                f"it, so the helper would trace it (declare `{name}` in `static_argnames`)"
            )
        if name in python_values:
            return (
                f"parameter `{name}` (default `{code}`) is used as a Python value, which under "
                "jit it is only when the caller omits it; the forwarding method always passes "
                f"it, so the helper would trace it (declare `{name}` in `static_argnames`)"
            )
    return None


def _cst_default_kind(default: cst.BaseExpression) -> frozenset[Kind]:
    try:
        expression = ast.parse(cst.Module([]).code_for_node(default), mode="eval").body
    except SyntaxError:
        return frozenset({Kind.UNKNOWN})
    return _value_kind(expression, None)


# -- what the attributes hold ---------------------------------------------------------------------


def _classify(
    attribute: str, uses: _SelfUses, stores: _AttributeStores, receiver: str
) -> bool | Refusal:
    """Is the attribute static (True) or traced (False), or why the rewrite is refused."""
    read = f"`{receiver}.{attribute}`"
    member = stores.members.get(attribute)
    if member == "method":
        return Refusal(f"the method reads {read}, a method, as a value")
    kinds, unknown_source = stores.kinds(attribute)
    if member == "property":
        kinds |= {Kind.UNKNOWN}
        unknown_source = unknown_source or "it is a property"
    if not kinds:
        kinds = {Kind.UNKNOWN}
        if stores.foreign_bases:
            unknown_source = f"a base class from another module (`{stores.foreign_bases[0]}`)"
        else:
            unknown_source = "nothing in this module assigns it"
    if attribute in uses.conditional and member == "property":
        return Refusal(
            f"{read} is a property read only on some paths: the forwarding method would "
            "evaluate it on every call"
        )
    if attribute in uses.conditional and not stores.always_set(attribute):
        return Refusal(
            f"{read} is read only on some paths and `__init__` does not always set it: the "
            "forwarding method would read it on every call (AttributeError when unset)"
        )
    if attribute in uses.static:
        if Kind.UNKNOWN in kinds:
            return Refusal(
                f"{read} is used as a Python value (a branch test, a range, a shape), so it "
                f"must be static, but {unknown_source} may make it an array"
            )
        return _hashable_as_passed(attribute, read, uses, kinds)
    if Kind.UNKNOWN in kinds and Kind.STR in kinds:
        return Refusal(
            f"{read} may be a string, which only a static argument can be, but "
            f"{unknown_source} may make it an array"
        )
    if Kind.UNKNOWN not in kinds and bool(kinds & STATIC_BY_TYPE):
        return _hashable_as_passed(attribute, read, uses, kinds)
    return False


def _hashable_as_passed(
    attribute: str, read: str, uses: _SelfUses, kinds: set[Kind]
) -> bool | Refusal:
    """A static attribute (True), unless a parameter of `__init__` sets it and the method
    passes it whole, where a list works as well as a tuple (a config file's list)."""
    if attribute in uses.whole and Kind.PARAM in kinds:
        return Refusal(
            f"{read} is passed whole where a list works as well as a tuple (a shape, pad "
            "widths, an iterable), and a parameter of `__init__` sets it: a list from the caller "
            "(a config file's) would be unhashable as the helper's static argument"
        )
    return True


def _class_scope_names(class_node: ast.ClassDef) -> set[str]:
    """Names bound in a class body (visible to its method signatures, not to module code)."""
    names: set[str] = set()
    for statement in class_node.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(statement.name)
        elif isinstance(statement, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            names |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
        elif isinstance(statement, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in statement.names}
    return names


def _with_bases(class_info: ClassInfo) -> list[ClassInfo]:
    """The class and its base classes in this module."""
    classes = [class_info]
    for info in classes:
        classes.extend(b for b in info.local_bases if b not in classes)
    return classes


def _subclasses(bases: list[ClassInfo], context: UnitContext) -> list[ClassInfo]:
    """The module's classes deriving from the class (their instances run its methods too)."""
    subclasses: list[ClassInfo] = []
    changed = True
    while changed:
        changed = False
        for info in context.index.classes.values():
            if info in bases or info in subclasses:
                continue
            if any(b is bases[0] or b in subclasses for b in info.local_bases):
                subclasses.append(info)
                changed = True
    return subclasses


class _AttributeStores:
    """Every store to an attribute in the module, by attribute name, and what it may hold.

    Stores through any object count (`obj.mean = ...` outside the class too): over-counting
    only makes an attribute traced or the rewrite refused, never wrongly static.
    """

    def __init__(
        self, tree: ast.Module, bases: list[ClassInfo], subclasses: list[ClassInfo]
    ) -> None:
        related = bases + subclasses
        self._kinds: dict[str, set[Kind]] = {}
        self._unknown: dict[str, str] = {}  # attribute → where a maybe-array store is
        self._set_on_init: set[str] = set()
        self.members: dict[str, str] = {}  # "method" | "property", of the related classes
        self.dynamic: str | None = None  # where attributes are set by computed name
        self.foreign_bases = [
            b or "an unresolved base"
            for c in bases
            for b in c.base_names
            if b not in ATTRIBUTE_FREE_BASES and not any(b == r.node.name for r in bases)
        ]
        self._related_nodes = {id(c.node) for c in related}
        self._other_receiver: str | None = None
        self._class_name = ""
        for class_info in related:
            # only the class's own and its bases' `__init__` set what its instances always have
            self._read_class(class_info, sets_instances=class_info in bases)
        self._walk(tree, None)

    def kinds(self, attribute: str) -> tuple[set[Kind], str]:
        """What the attribute may hold, and where a maybe-array value comes from."""
        kinds = set(self._kinds.get(attribute, ()))
        source = self._unknown.get(attribute, "")
        if self.dynamic is not None:
            kinds.add(Kind.UNKNOWN)
            source = source or self.dynamic
        return kinds, source

    def always_set(self, attribute: str) -> bool:
        """Set before any method runs: a class attribute, a field, a top-level `__init__` store."""
        return attribute in self._set_on_init and attribute not in self.members

    def _add(self, attribute: str, kinds: frozenset[Kind], where: str) -> None:
        self._kinds.setdefault(attribute, set()).update(kinds)
        if Kind.UNKNOWN in kinds:
            self._unknown.setdefault(attribute, where)

    def _read_class(self, class_info: ClassInfo, sets_instances: bool) -> None:
        node = class_info.node
        dataclass = any(d.split(".")[-1] == "dataclass" for d in class_info.decorator_names)
        where = f"the body of class `{node.name}`"
        for statement in node.body:
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
                decorators = {_dotted_tail(d) for d in statement.decorator_list}
                is_property = bool(decorators & PROPERTY_DECORATORS) or any(
                    isinstance(d, ast.Attribute) and d.attr in ("setter", "getter")
                    for d in statement.decorator_list
                )
                self.members[statement.name] = "property" if is_property else "method"
            elif isinstance(statement, ast.Assign):
                for target in statement.targets:
                    for name, value in _pairs(target, statement.value):
                        if isinstance(name, ast.Name):
                            self._add(name.id, _value_kind(value, None), where)
                            if sets_instances:
                                self._set_on_init.add(name.id)
            elif isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
                field_name = statement.target.id
                kinds = _annotation_kind(statement.annotation)
                if statement.value is not None:
                    kinds = kinds if dataclass else _value_kind(statement.value, None)
                self._add(field_name, kinds, where)
                if sets_instances and (statement.value is not None or dataclass):
                    self._set_on_init.add(field_name)
            elif isinstance(statement, (ast.ClassDef,)):
                self.members[statement.name] = "method"
        init = next(
            (s for s in node.body if isinstance(s, ast.FunctionDef) and s.name == "__init__"),
            None,
        )
        if sets_instances and init is not None and init.args.args:
            receiver = init.args.args[0].arg
            for statement in init.body:
                if isinstance(statement, (ast.Return, ast.Raise)):
                    break
                if isinstance(statement, ast.Assign):
                    for target in statement.targets:
                        for name, _ in _pairs(target, statement.value):
                            if _is_attribute_of(name, receiver):
                                self._set_on_init.add(name.attr)
                elif (
                    isinstance(statement, ast.AnnAssign)
                    and statement.value is not None
                    and _is_attribute_of(statement.target, receiver)
                ):
                    self._set_on_init.add(statement.target.attr)

    def _walk(self, node: ast.AST, function: ast.FunctionDef | ast.AsyncFunctionDef | None) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                self._walk_class(child)
            elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self._walk(child, child)
            elif isinstance(child, ast.Lambda):
                self._walk(child, None)
            else:
                self._store(child, function)
                self._walk(child, function)

    def _walk_class(self, node: ast.ClassDef) -> None:
        """A class body; stores through the receiver of an unrelated class's method are skipped
        (that `self` is another class's instance)."""
        related = id(node) in self._related_nodes
        for statement in node.body:
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
                arguments = [*statement.args.posonlyargs, *statement.args.args]
                outer = (self._other_receiver, self._class_name)
                if not related and arguments and not _is_static_def(statement):
                    self._other_receiver = arguments[0].arg
                self._class_name = node.name
                self._walk(statement, statement)
                self._other_receiver, self._class_name = outer
            else:
                self._walk(ast.Module(body=[statement], type_ignores=[]), None)

    def _store(
        self, node: ast.AST, function: ast.FunctionDef | ast.AsyncFunctionDef | None
    ) -> None:
        line = getattr(node, "lineno", None) or getattr(function, "lineno", "?")
        if function is None:
            where = f"line {line}"
        elif self._class_name:
            where = f"`{self._class_name}.{function.name}` (line {line})"
        else:
            where = f"`{function.name}` (line {line})"
        unknown = frozenset({Kind.UNKNOWN})
        if isinstance(node, ast.Assign):
            for target in node.targets:
                for name, value in _pairs(target, node.value):
                    self._store_target(name, _value_kind(value, function), where)
        elif isinstance(node, ast.AugAssign) or (
            isinstance(node, ast.AnnAssign) and node.value is not None
        ):
            assert node.value is not None  # (mypy does not carry the test through the `or`)
            self._store_target(node.target, _value_kind(node.value, function), where)
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            self._store_target(node.target, unknown, where)
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            self._store_target(node.optional_vars, unknown, where)
        elif isinstance(node, ast.Call):
            self._store_call(node, function, where)

    def _other_object(self, node: ast.AST) -> bool:
        """Is `node` the receiver of an unrelated class's method?"""
        return isinstance(node, ast.Name) and node.id == self._other_receiver

    def _store_target(self, target: ast.AST, kinds: frozenset[Kind], where: str) -> None:
        if isinstance(target, ast.Attribute):
            if not self._other_object(target.value):
                self._add(target.attr, kinds, where)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                self._store_target(element, frozenset({Kind.UNKNOWN}), where)
        elif isinstance(target, ast.Starred):
            self._store_target(target.value, frozenset({Kind.UNKNOWN}), where)
        elif (
            isinstance(target, ast.Subscript)
            and isinstance(target.value, ast.Attribute)
            and target.value.attr == "__dict__"
            and not self._other_object(target.value.value)
        ):
            self.dynamic = self.dynamic or f"{where} writes `__dict__`"

    def _store_call(self, node: ast.Call, function: ast.AST | None, where: str) -> None:
        func = node.func
        name = _dotted_tail(func)
        if name in ("setattr", "__setattr__") and len(node.args) == 3:
            if self._other_object(node.args[0]):
                return
            attribute, value = node.args[1], node.args[2]
            if isinstance(attribute, ast.Constant) and isinstance(attribute.value, str):
                self._add(attribute.value, _value_kind(value, function), where)
            else:
                self.dynamic = self.dynamic or f"`setattr` with a computed name at {where}"
        elif (
            name == "update"
            and isinstance(func, ast.Attribute)
            and (
                (
                    isinstance(func.value, ast.Attribute)
                    and func.value.attr == "__dict__"
                    and not self._other_object(func.value.value)
                )
                or (
                    isinstance(func.value, ast.Call)
                    and _dotted_tail(func.value.func) == "vars"
                    and not any(self._other_object(a) for a in func.value.args)
                )
            )
        ):
            self.dynamic = self.dynamic or f"{where} updates `__dict__`"


def _is_static_def(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return any(_dotted_tail(d) == "staticmethod" for d in function.decorator_list)


def _pairs(target: ast.AST, value: ast.AST) -> Iterator[tuple[ast.AST, ast.AST]]:
    """(target, value) pairs of an assignment, unpacking matching tuples."""
    if (
        isinstance(target, (ast.Tuple, ast.List))
        and isinstance(value, (ast.Tuple, ast.List))
        and len(target.elts) == len(value.elts)
        and not any(isinstance(e, ast.Starred) for e in [*target.elts, *value.elts])
    ):
        for element, element_value in zip(target.elts, value.elts, strict=True):
            yield from _pairs(element, element_value)
    elif isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            unknown = ast.Constant(value=...)
            yield (element.value if isinstance(element, ast.Starred) else element), unknown
    else:
        yield target, value


def _is_attribute_of(node: ast.AST, receiver: str) -> TypeGuard[ast.Attribute]:
    return (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == receiver
    )


def _dotted_tail(node: ast.AST) -> str:
    if isinstance(node, ast.Call):
        return _dotted_tail(node.func)
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


_CONSTANT_KINDS = ((bool, Kind.BOOL), (int, Kind.INT), (float, Kind.FLOAT), (complex, Kind.FLOAT))
_CONVERSION_KINDS = {"int": Kind.INT, "len": Kind.INT, "bool": Kind.BOOL, "float": Kind.FLOAT}
_CONVERSION_KINDS |= {"str": Kind.STR, "repr": Kind.STR}
_NUMBERS = frozenset({Kind.BOOL, Kind.INT, Kind.FLOAT})


def _value_kind(node: ast.AST, function: ast.AST | None) -> frozenset[Kind]:
    """What an expression stored into an attribute may be (inside `function`, for parameters)."""
    unknown = frozenset({Kind.UNKNOWN})
    if isinstance(node, ast.Constant):
        if node.value is None:
            return frozenset({Kind.NONE})
        if isinstance(node.value, (str, bytes)):
            return frozenset({Kind.STR})
        for python_type, kind in _CONSTANT_KINDS:
            if isinstance(node.value, python_type):
                return frozenset({kind})
        return unknown
    if isinstance(node, ast.Tuple):
        elements = frozenset().union(*(_value_kind(e, function) for e in node.elts))
        if Kind.UNKNOWN in elements or any(isinstance(e, ast.Starred) for e in node.elts):
            return unknown
        return frozenset({Kind.PARAM if Kind.PARAM in elements else Kind.TUPLE})
    if isinstance(node, ast.UnaryOp):
        if isinstance(node.op, ast.Not):
            return frozenset({Kind.BOOL})
        operand = _value_kind(node.operand, function)
        return operand if operand <= _NUMBERS | {Kind.PARAM} else unknown
    if isinstance(node, ast.BinOp):
        operands = _value_kind(node.left, function) | _value_kind(node.right, function)
        if Kind.UNKNOWN in operands or Kind.NONE in operands:
            return unknown
        if Kind.PARAM in operands:
            return frozenset({Kind.PARAM})
        if operands <= {Kind.STR} or operands <= {Kind.TUPLE}:
            return operands
        if operands <= _NUMBERS:
            return frozenset({Kind.FLOAT if Kind.FLOAT in operands else Kind.INT})
        return unknown
    if isinstance(node, ast.IfExp):
        return _value_kind(node.body, function) | _value_kind(node.orelse, function)
    if isinstance(node, ast.BoolOp):
        return frozenset().union(*(_value_kind(v, function) for v in node.values))
    # `.shape` of an array is a tuple of ints (of anything else: rare enough to trust the name)
    if isinstance(node, ast.Attribute) and node.attr == "shape":
        return frozenset({Kind.TUPLE})
    if (
        isinstance(node, ast.Subscript)
        and isinstance(node.value, ast.Attribute)
        and node.value.attr == "shape"
    ):
        return frozenset({Kind.INT if not isinstance(node.slice, ast.Slice) else Kind.TUPLE})
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        converted = _CONVERSION_KINDS.get(node.func.id)
        return frozenset({converted}) if converted is not None else unknown
    if isinstance(node, ast.Name) and isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return _parameter_kind(function, node.id)
    return unknown


def _parameter_kind(function: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> frozenset[Kind]:
    """What a parameter may hold: from its annotation, else its default, else (in `__init__`)
    configuration by convention; a `None` default says it is optional, not what it holds."""
    arguments = function.args
    positional = [*arguments.posonlyargs, *arguments.args]
    defaults: dict[str, ast.expr] = dict(
        zip(
            [a.arg for a in positional][len(positional) - len(arguments.defaults) :],
            arguments.defaults,
            strict=True,
        )
    )
    defaults |= {
        a.arg: d
        for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True)
        if d is not None
    }
    parameter = next((a for a in [*positional, *arguments.kwonlyargs] if a.arg == name), None)
    if parameter is None or name in _rebound_names(function):
        return frozenset({Kind.UNKNOWN})  # a local variable, `*args`, `**kwargs`, or rebound
    if parameter.annotation is not None:
        return _annotation_kind(parameter.annotation)
    if name in defaults:
        kinds = _value_kind(defaults[name], None)
        if Kind.NONE in kinds:
            return frozenset({Kind.UNKNOWN})
        if Kind.TUPLE in kinds and function.name == "__init__":
            return kinds | {Kind.PARAM}  # `pad=(0, 0)`: a caller may pass a list as well
        return kinds
    return frozenset({Kind.PARAM if function.name == "__init__" else Kind.UNKNOWN})


def _rebound_names(function: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """Names the function body assigns (a parameter rebound there no longer is the argument)."""
    return {
        node.id
        for node in ast.walk(function)
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del))
    }


_ANNOTATION_KINDS = {"bool": Kind.BOOL, "int": Kind.INT, "float": Kind.FLOAT, "complex": Kind.FLOAT}
_ANNOTATION_KINDS |= {"str": Kind.STR, "bytes": Kind.STR, "tuple": Kind.TUPLE, "Tuple": Kind.TUPLE}
_ANNOTATION_KINDS |= {"None": Kind.NONE}


def _annotation_kind(annotation: ast.AST) -> frozenset[Kind]:
    """What a value with this annotation may be: only builtin scalar types, tuples, Optional."""
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:
            annotation = ast.parse(annotation.value, mode="eval").body
        except SyntaxError:
            return frozenset({Kind.UNKNOWN})
    if isinstance(annotation, ast.Constant) and annotation.value is None:
        return frozenset({Kind.NONE})
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        return _annotation_kind(annotation.left) | _annotation_kind(annotation.right)
    if isinstance(annotation, ast.Subscript):
        head = _dotted_tail(annotation.value)
        arguments = annotation.slice
        elements = arguments.elts if isinstance(arguments, ast.Tuple) else [arguments]
        if head == "Optional":
            return _annotation_kind(elements[0]) | {Kind.NONE}
        if head == "Union":
            return frozenset().union(*(_annotation_kind(e) for e in elements))
        if head == "Literal":
            return frozenset().union(*(_value_kind(e, None) for e in elements))
        if head in ("tuple", "Tuple"):
            inner = frozenset().union(
                *(_annotation_kind(e) for e in elements if not isinstance(e, ast.Constant))
            )
            return frozenset({Kind.UNKNOWN if Kind.UNKNOWN in inner else Kind.TUPLE})
        return frozenset({Kind.UNKNOWN})
    if isinstance(annotation, (ast.Name, ast.Attribute)):
        kind = _ANNOTATION_KINDS.get(_dotted_tail(annotation))
        if isinstance(annotation, ast.Attribute) and _dotted_tail(annotation.value) != "builtins":
            kind = None  # `np.bool_`, `jax.Array`, ...
        return frozenset({kind if kind is not None else Kind.UNKNOWN})
    return frozenset({Kind.UNKNOWN})


# -- writing the helper ---------------------------------------------------------------------------


def _helper_decorator(
    jit: cst.BaseExpression,
    keywords: dict[str, cst.Arg],
    static_names: list[str],
    donated: list[str],
    context: UnitContext,
) -> tuple[cst.Decorator, tuple[ImportSpec, ...]]:
    """`@jit` with the position-free options, and the static and donated arguments by name."""
    arguments = [
        argument.with_changes(comma=cst.MaybeSentinel.DEFAULT)
        for name, argument in keywords.items()
        if name in POSITION_FREE_OPTIONS
    ]
    for keyword, names in (("static_argnames", static_names), ("donate_argnames", donated)):
        if names:
            spelled = ", ".join(f'"{n}"' for n in names)
            arguments.append(
                cst.Arg(
                    keyword=cst.Name(keyword),
                    value=cst.parse_expression(
                        f"({spelled},)" if len(names) == 1 else f"({spelled})"
                    ),
                    equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")),
                )
            )
    if not arguments:
        return cst.Decorator(decorator=jit), ()
    partial_name = _partial_spelling(context)
    imports = (ImportSpec("functools"),) if partial_name == "functools.partial" else ()
    call = cst.Call(func=cst.parse_expression(partial_name), args=[cst.Arg(jit), *arguments])
    return cst.Decorator(decorator=call), imports


def _helper_def(
    method: cst.FunctionDef,
    helper_name: str,
    attribute_params: dict[str, str],
    receiver: str,
    decorator: cst.Decorator,
) -> cst.FunctionDef:
    renamer = _RenameSelfAttributes(receiver, attribute_params)
    body = method.body.visit(renamer)
    assert isinstance(body, cst.BaseSuite)  # the renamer changes attributes, not blocks
    if isinstance(body, cst.IndentedBlock) and len(body.body) > 1 and is_docstring(body.body[0]):
        body = body.with_changes(body=body.body[1:])  # the docstring stays on the method
    params = method.params

    def plain(param: cst.Param) -> cst.Param:
        # the method passes every argument: defaults would be dead, and they may name class
        # attributes that a module-level function cannot see
        return param.with_changes(default=None, equal=cst.MaybeSentinel.DEFAULT)

    # `self` is the first positional parameter; no other is positional-only (refused)
    positional = [plain(p) for p in [*params.posonly_params, *params.params][1:]]
    attribute_nodes = [cst.Param(cst.Name(name)) for name in attribute_params.values()]
    new_params = params.with_changes(
        posonly_params=[],
        posonly_ind=cst.MaybeSentinel.DEFAULT,
        params=attribute_nodes + positional,
        kwonly_params=[plain(p) for p in params.kwonly_params],
    )
    return cst.FunctionDef(
        name=cst.Name(helper_name),
        params=new_params,
        body=body,
        decorators=[decorator],
        returns=method.returns,
        asynchronous=method.asynchronous,
        leading_lines=[cst.EmptyLine(indent=False), cst.EmptyLine(indent=False)],
    )


def _partial_spelling(context: UnitContext) -> str:
    for local, qualified in context.index.imports.aliases.items():
        if qualified == "functools.partial":
            return local
    for local, qualified in context.index.imports.aliases.items():
        if qualified == "functools":
            return f"{local}.partial"
    return "functools.partial"


class _RenameSelfAttributes(cst.CSTTransformer):
    def __init__(self, receiver: str, attribute_params: dict[str, str]) -> None:
        super().__init__()
        self.receiver = receiver
        self.attribute_params = attribute_params

    def leave_Attribute(
        self, original_node: cst.Attribute, updated_node: cst.Attribute
    ) -> cst.BaseExpression:
        if isinstance(updated_node.value, cst.Name) and updated_node.value.value == self.receiver:
            name = self.attribute_params.get(updated_node.attr.value)
            if name is not None:
                return cst.Name(name)
        return updated_node


def _forwarding_method(
    method: cst.FunctionDef, helper_name: str, attributes: list[str], receiver: str
) -> cst.FunctionDef:
    params = method.params
    arguments = [f"{receiver}.{a}" for a in attributes]
    for param in [*params.posonly_params, *params.params][1:]:
        arguments.append(param.name.value)
    if isinstance(params.star_arg, cst.Param):
        arguments.append(f"*{params.star_arg.name.value}")
    for param in params.kwonly_params:
        arguments.append(f"{param.name.value}={param.name.value}")
    if params.star_kwarg is not None:
        arguments.append(f"**{params.star_kwarg.name.value}")
    call = cst.parse_statement(f"return {helper_name}({', '.join(arguments)})")
    statements: list[cst.BaseStatement] = []
    body = method.body
    if isinstance(body, cst.IndentedBlock) and body.body and is_docstring(body.body[0]):
        statements.append(body.body[0])
    statements.append(call)
    header = body.header if isinstance(body, cst.IndentedBlock) else cst.TrailingWhitespace()
    removed_comment = next(
        (d.trailing_whitespace.comment for d in method.decorators if d.trailing_whitespace.comment),
        None,
    )
    if removed_comment is not None and header.comment is None:
        # the removed decorator line's comment moves to the `def` line
        header = header.with_changes(whitespace=cst.SimpleWhitespace("  "), comment=removed_comment)
    return method.with_changes(
        decorators=[],
        body=cst.IndentedBlock(body=statements, header=header),
        # comment lines above the removed decorator stay above the method
        leading_lines=[
            *method.leading_lines,
            *(d for dec in method.decorators for d in dec.leading_lines),
        ],
    )


def _last_helper_after(
    module: cst.Module, class_node: cst.ClassDef, prefix: str
) -> cst.FunctionDef | None:
    """The last of the module-level helpers (`_<class>_...`) that directly follow the class."""
    statements = list(module.body)
    position = next(i for i, s in enumerate(statements) if s is class_node)
    last = None
    for statement in statements[position + 1 :]:
        if not (isinstance(statement, cst.FunctionDef) and statement.name.value.startswith(prefix)):
            break
        last = statement
    return last


def _module_class(module: cst.Module, method: cst.FunctionDef) -> cst.ClassDef | None:
    for statement in module.body:
        if (
            isinstance(statement, cst.ClassDef)
            and isinstance(statement.body, cst.IndentedBlock)
            and any(s is method for s in statement.body.body)
        ):
            return statement
    return None


def _snake(name: str) -> str:
    """`StandardScaler` → `standard_scaler`, `SGD` → `sgd`, `MLPHead` → `mlp_head`."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", name).lower()
