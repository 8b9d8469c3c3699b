"""JAX301's rewrite: a jitted method → a plain method calling a jitted module-level helper.

The helper takes the attributes of `self` the method reads as arguments: arrays and numbers
are traced, attributes used as Python values (branch tests, ranges, shapes, flags and strings
set in `__init__`) are static. Attributes are read on every call, so there is no stale cache.
"""

from __future__ import annotations

import re

import libcst as cst

from jaxlint.context import UnitContext
from jaxlint.fixes.codegen import fresh_name, is_docstring, names_in
from jaxlint.fixes.edits import Edit, ImportSpec, Refusal
from jaxlint.scope import JitRoot

STATIC_KEYWORDS = frozenset({"shape", "axis", "axes", "num", "dtype", "length", "size", "n"})
STATIC_ANNOTATIONS = frozenset({"bool", "str", "tuple", "Tuple"})


def helper_edit(method: cst.FunctionDef, root: JitRoot, context: UnitContext) -> Edit | Refusal:
    """The static-arg helper rewrite of a jitted method, or why it is refused."""
    info = context.function
    assert info is not None and info.class_info is not None
    if info.is_classmethod:
        return Refusal(
            "for a classmethod, `static_argnums=0` is the simpler fix (classes hash by identity)"
        )
    if len(method.decorators) != 1:
        return Refusal("the method has decorators besides jit")
    receiver = info.positional[0]
    uses = _SelfUses(receiver)
    method.body.visit(uses)
    if uses.problem:
        return Refusal(uses.problem)
    class_node = _module_class(context.wrapper.module, method)
    taken = set(context.index.imports.aliases) | set(context.index.imports.module_defined)
    class_name = info.class_info.node.name
    helper_name = fresh_name(f"_{_snake(class_name)}_{info.name.strip('_')}", taken)

    params = method.params
    original = [p.name.value for p in (*params.posonly_params, *params.params)][1:]
    used_names = uses.names | set(original) | {p.name.value for p in params.kwonly_params}
    static = [
        a
        for a in uses.attributes
        if a in uses.static or _static_in_init(info.class_info.node, a, receiver)
    ]
    # helper parameters: traced attributes, then static ones, then the method's own
    ordered = [a for a in uses.attributes if a not in static] + static
    attribute_params = {a: (a if a not in used_names else f"{receiver}_{a}") for a in ordered}
    static_attributes = [attribute_params[a] for a in static]
    static_names = list(dict.fromkeys(static_attributes + _static_method_params(root, original)))

    helper = _helper_def(
        method, helper_name, attribute_params, receiver, static_names, root, context
    )
    if isinstance(helper, Refusal):
        return helper
    helper_def, imports = helper
    new_method = _forwarding_method(method, helper_name, list(attribute_params), receiver)
    if class_node is None:
        # A unit parsed on its own (check mode) has no class around the method: the edit is
        # rebuilt on the whole module when fixing.
        replacements = {method: new_method}
    else:
        new_class = class_node.deep_replace(method, new_method)
        anchor = _last_helper_after(context.wrapper.module, class_node, f"_{_snake(class_name)}_")
        if anchor is None:
            replacements = {class_node: cst.FlattenSentinel([new_class, helper_def])}
        else:  # after the helpers made for this class's other methods: keep method order
            replacements = {
                class_node: new_class,
                anchor: cst.FlattenSentinel([anchor, helper_def]),
            }
    return Edit(
        replacements=replacements,  # type: ignore[arg-type]
        description=f"jitted method → module-level helper `{helper_name}`"
        + (f" (static: {', '.join(static_names)})" if static_names else ""),
        imports=imports,
        verify_target=f"{class_name}.{info.name}",
    )


class _SelfUses(cst.CSTVisitor):
    """`self.attr` reads of a method body, and anything else done with `self` (refused)."""

    def __init__(self, receiver: str) -> None:
        super().__init__()
        self.receiver = receiver
        self.attributes: list[str] = []
        self.static: set[str] = set()
        self.names: set[str] = set()
        self.problem: str | None = None
        self._static_depth = 0

    def _is_self_attribute(self, node: cst.BaseExpression) -> bool:
        return (
            isinstance(node, cst.Attribute)
            and isinstance(node.value, cst.Name)
            and node.value.value == self.receiver
        )

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        if self._is_self_attribute(node):
            name = node.attr.value
            if name not in self.attributes:
                self.attributes.append(name)
            if self._static_depth:
                self.static.add(name)
            return False
        return True

    def visit_Call(self, node: cst.Call) -> bool:
        if self._is_self_attribute(node.func):
            self.problem = f"the method calls `{self.receiver}.{node.func.attr.value}(...)`"  # type: ignore[attr-defined]
            return False
        if isinstance(node.func, cst.Name) and node.func.value in (
            "range",
            "super",
            "getattr",
            "vars",
        ):
            if node.func.value != "range":
                self.problem = f"the method uses `{node.func.value}()` on `{self.receiver}`"
                return False
            self._static_depth += 1
            for argument in node.args:
                argument.visit(self)
            self._static_depth -= 1
            return False
        for argument in node.args:
            if argument.keyword is not None and argument.keyword.value in STATIC_KEYWORDS:
                self._static_depth += 1
                argument.value.visit(self)
                self._static_depth -= 1
        return True

    def _static_test(self, test: cst.BaseExpression) -> None:
        self._static_depth += 1
        test.visit(self)
        self._static_depth -= 1

    def visit_If(self, node: cst.If) -> None:
        self._static_test(node.test)

    def visit_While(self, node: cst.While) -> None:
        self._static_test(node.test)

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self._static_test(node.test)

    def visit_For(self, node: cst.For) -> None:
        self._static_test(node.iter)

    def visit_Slice(self, node: cst.Slice) -> None:
        self._static_depth += 1

    def leave_Slice(self, original_node: cst.Slice) -> None:
        self._static_depth -= 1

    def visit_AssignTarget(self, node: cst.AssignTarget) -> bool:
        if self.receiver in names_in(node.target):
            self.problem = f"the method writes to `{self.receiver}`"
            return False
        return True

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if self.receiver in names_in(node.target):
            self.problem = f"the method writes to `{self.receiver}`"

    def visit_Name(self, node: cst.Name) -> None:
        self.names.add(node.value)
        if node.value == self.receiver:
            self.problem = f"the method uses `{self.receiver}` itself, not only its attributes"


def _static_in_init(class_node: object, attribute: str, receiver: str) -> bool:
    """Is `self.<attribute>` set in `__init__` from a str/bool/None/tuple literal or parameter?"""
    import ast

    assert isinstance(class_node, ast.ClassDef)
    for statement in class_node.body:
        if (
            isinstance(statement, ast.AnnAssign)
            and isinstance(statement.target, ast.Name)
            and statement.target.id == attribute
            and _annotation_name(statement.annotation) in STATIC_ANNOTATIONS
        ):
            return True
        if not (isinstance(statement, ast.FunctionDef) and statement.name == "__init__"):
            continue
        annotations = {a.arg: _annotation_name(a.annotation) for a in statement.args.args}
        for node in ast.walk(statement):
            if not isinstance(node, ast.Assign):
                continue
            for target in node.targets:
                if (
                    isinstance(target, ast.Attribute)
                    and target.attr == attribute
                    and isinstance(target.value, ast.Name)
                    and target.value.id == receiver
                ):
                    value = node.value
                    if isinstance(value, ast.Constant) and (
                        isinstance(value.value, (str, bool)) or value.value is None
                    ):
                        return True
                    if isinstance(value, ast.Tuple):
                        return True
                    if (
                        isinstance(value, ast.Name)
                        and annotations.get(value.id) in STATIC_ANNOTATIONS
                    ):
                        return True
    return False


def _annotation_name(annotation: object) -> str:
    import ast

    if isinstance(annotation, ast.Name):
        return annotation.id
    if isinstance(annotation, ast.Subscript):
        return _annotation_name(annotation.value)
    if isinstance(annotation, ast.Attribute):
        return annotation.attr
    return ""


def _static_method_params(root: JitRoot, original: list[str]) -> list[str]:
    """The method's own static parameters, by name (argnums count `self` as 0)."""
    names = [name for name in root.static_argnames if name in original]
    for number in root.static_argnums:
        position = number - 1 if number >= 0 else len(original) + 1 + number - 1
        if 0 <= position < len(original):
            names.append(original[position])
    return names


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


def _jit_expression(decorator: cst.Decorator) -> tuple[cst.BaseExpression, list[cst.Arg]]:
    """The jit callable of a decorator and its keyword arguments (from any spelling)."""
    expression = decorator.decorator
    if isinstance(expression, cst.Call):
        func = expression.func
        if expression.args and expression.args[0].keyword is None:  # partial(jax.jit, ...)
            return expression.args[0].value, [a for a in expression.args[1:] if a.keyword]
        return func, [a for a in expression.args if a.keyword]
    return expression, []


def _helper_def(method, helper_name, attribute_params, receiver, static_names, root, context):
    decorator = method.decorators[0]
    jit, keywords = _jit_expression(decorator)
    keywords = [
        k.with_changes(comma=cst.MaybeSentinel.DEFAULT)
        for k in keywords
        if k.keyword is not None and k.keyword.value not in ("static_argnums", "static_argnames")
    ]
    imports: tuple[ImportSpec, ...] = ()
    if static_names:
        names = ", ".join(repr(n).replace("'", '"') for n in static_names)
        keywords.append(
            cst.Arg(
                keyword=cst.Name("static_argnames"),
                value=cst.parse_expression(
                    f"({names},)" if len(static_names) == 1 else f"({names})"
                ),
                equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")),
            )
        )
    if keywords:
        partial_name = _partial_spelling(context)
        if partial_name == "functools.partial":
            imports = (ImportSpec("functools"),)
        new_decorator = cst.Decorator(
            decorator=cst.Call(
                func=cst.parse_expression(partial_name), args=[cst.Arg(jit), *keywords]
            )
        )
    else:
        new_decorator = cst.Decorator(decorator=jit)

    renamer = _RenameSelfAttributes(receiver, attribute_params)
    body = method.body.visit(renamer)
    if isinstance(body, cst.IndentedBlock) and body.body and is_docstring(body.body[0]):
        body = body.with_changes(body=body.body[1:])  # the docstring stays on the method
    params = method.params
    positional = list(params.params)[1:] if params.params else []
    posonly = list(params.posonly_params)[1:]
    attribute_nodes = [cst.Param(cst.Name(name)) for name in attribute_params.values()]
    if posonly:
        new_params = params.with_changes(
            posonly_params=attribute_nodes + posonly, params=positional
        )
    else:
        new_params = params.with_changes(params=attribute_nodes + positional)
    helper = cst.FunctionDef(
        name=cst.Name(helper_name),
        params=new_params,
        body=body,
        decorators=[new_decorator],
        returns=method.returns,
        asynchronous=method.asynchronous,
        leading_lines=[cst.EmptyLine(indent=False), cst.EmptyLine(indent=False)],
    )
    return helper, imports


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


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()
