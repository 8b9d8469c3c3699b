"""Example inputs from the module's own calls of the target, evaluated without running user code.

`normalize(jnp.ones((4, 3)))` at module level, or `params = Params(w=jnp.zeros((3, 2)), b=...)`
followed by `loss(params, x)` in a `main()`, say what the target is called with. Each argument
is evaluated by a small interpreter that knows literals, tuples, lists and dicts, arithmetic on
Python numbers, names assigned such values earlier in the same scope or at module level, and
calls of an allow-list only: jax.numpy / numpy array constructors with bounded sizes, jax.random
keys made from literals and samplers of them, and the module's own dataclasses and NamedTuples
(with generated `__init__`s and no `__post_init__`). Anything else (a call of a user function,
an attribute of a runtime object) is not evaluated and the argument is left to the ladder.

The value found becomes an argument *kind*, not a fixed value: an array its shape and dtype (so
the variants of jaxlint.verify.inputs still resize and retype it), a container its fields, a
Python literal itself.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import math
from collections.abc import Iterator
from typing import Any

import jax
import numpy as np

from jaxlint.analysis.jax_api import DTYPE_NAMES
from jaxlint.verify.arg_kind import ArgKind
from jaxlint.verify.classes import Resolver, is_project_class
from jaxlint.verify.namespace import last_name, source_tree

MAX_CALLS = 32  # calls of the target read per module
MAX_SITE_KINDS = 4  # kinds per parameter
MAX_ELEMENTS = 1 << 20  # the largest array a call site may make
MAX_DEPTH = 16  # nesting of the evaluated expression (names followed included)

_CONSTRUCTORS = frozenset(
    {
        "zeros",
        "ones",
        "full",
        "empty",
        "eye",
        "identity",
        "arange",
        "linspace",
        "array",
        "asarray",
        "zeros_like",
        "ones_like",
        "full_like",
    }
)
_SAMPLERS = frozenset(
    {
        "PRNGKey",
        "key",
        "split",
        "fold_in",
        "normal",
        "uniform",
        "randint",
        "bernoulli",
        "truncated_normal",
    }
)
_SEEDED = frozenset({"PRNGKey", "key", "fold_in"})
ALLOWED_CALLS = frozenset(
    {f"jax.numpy.{n}" for n in _CONSTRUCTORS | DTYPE_NAMES}
    | {f"numpy.{n}" for n in _CONSTRUCTORS | DTYPE_NAMES}
    | {f"jax.random.{n}" for n in _SAMPLERS}
)
ALLOWED_VALUES = frozenset(
    {f"jax.numpy.{n}" for n in DTYPE_NAMES} | {f"numpy.{n}" for n in DTYPE_NAMES} | {"math.pi"}
)
_LIBRARY_ROOTS = ("jax", "numpy", "math")


class _Unsafe(Exception):
    """The expression is not one the interpreter evaluates."""


_PARAMETER = object()  # a name bound as a parameter of an enclosing function: unknown value


@dataclasses.dataclass(frozen=True)
class _Unpacked:
    """Element `index` of what `node` evaluates to (`a, b = node`)."""

    node: ast.expr
    index: int


def call_site_kinds(
    function: object, name: str, names: list[str], method: bool, resolver: Resolver | None
) -> dict[str, tuple[ArgKind, ...]]:
    """Parameter → kinds of what the module's calls of `name(...)` pass for it, first call first."""
    try:
        _, tree = source_tree(function)
    except (AttributeError, TypeError, SyntaxError, ValueError):
        return {}
    evaluator = _Evaluator(tree, resolver)
    found: dict[str, list[ArgKind]] = {}
    for call, scopes in _calls(tree, name, method=method):
        # `model.apply(variables, x)` passes `x` to a flax linen module's `__call__`
        passed = call.args[1:] if _is_linen_entry(call, name) else call.args
        pairs = list(zip(names, passed, strict=False))
        pairs += [(k.arg, k.value) for k in call.keywords if k.arg in names]
        for param, argument in pairs:
            if isinstance(argument, ast.Starred):
                break
            kinds = found.setdefault(param, [])
            if len(kinds) >= MAX_SITE_KINDS:
                continue
            try:
                value = evaluator.evaluate(argument, scopes, call.lineno, 0)
                kind = kind_of_value(value, f"call at line {call.lineno}")
            except Exception:  # not evaluable (_Unsafe), or a constructor refused its arguments
                continue
            if all(k.describe() != kind.describe() for k in kinds):
                kinds.append(kind)
    return {param: tuple(kinds) for param, kinds in found.items() if kinds}


def kind_of_value(value: Any, origin: str = "") -> ArgKind:
    """The argument kind that makes values like `value`: arrays by shape and dtype."""
    kind = _kind_of(value, 0)
    return dataclasses.replace(kind, origin=origin) if origin else kind


def _kind_of(value: Any, depth: int) -> ArgKind:
    if depth > MAX_DEPTH:
        raise _Unsafe("too deep")
    if isinstance(value, (jax.Array, np.ndarray)):
        dtype = value.dtype
        if (
            isinstance(value, np.ndarray)
            or jax.dtypes.issubdtype(dtype, jax.dtypes.prng_key)
            or (dtype == np.uint32 and value.shape[-1:] == (2,))  # a raw PRNG key: keep it
        ):
            return ArgKind("value", value=value)
        return ArgKind("array", tuple(value.shape), np.dtype(dtype).name)
    if value is None or isinstance(value, (bool, int, float, complex, str)):
        return ArgKind("value", value=value)
    fields = getattr(type(value), "_fields", None) if isinstance(value, tuple) else None
    if isinstance(fields, tuple):  # a NamedTuple
        items = tuple((f, _kind_of(getattr(value, f), depth + 1)) for f in fields)
        return ArgKind("struct", items=items, cls=type(value))
    if isinstance(value, (tuple, list)):
        items = tuple((str(i), _kind_of(v, depth + 1)) for i, v in enumerate(value))
        return ArgKind("tuple", items=items, cls=list if isinstance(value, list) else None)
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return ArgKind("dict", items=tuple((k, _kind_of(v, depth + 1)) for k, v in value.items()))
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        items = tuple(
            (f.name, _kind_of(getattr(value, f.name), depth + 1))
            for f in dataclasses.fields(value)
            if f.init
        )
        return ArgKind("struct", items=items, cls=type(value))
    raise _Unsafe(f"no kind for a {type(value).__name__}")


def _calls(tree: ast.Module, name: str, method: bool) -> Iterator[tuple[ast.Call, list[dict]]]:
    """Calls of `name(...)` (or `obj.name(...)` for a method, `jax.jit(name)(...)`) with the
    assignments of their enclosing scopes, innermost last."""
    found: list[tuple[ast.Call, list[dict]]] = []

    def visit(node: ast.AST, scopes: list[dict]) -> None:
        for child in ast.iter_child_nodes(node):
            if len(found) >= MAX_CALLS:
                return
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                visit(child, scopes + [_assignments(child)])
                continue
            if isinstance(child, ast.Call) and _calls_target(child, name, method):
                found.append((child, scopes))
            visit(child, scopes)

    visit(tree, [_assignments(tree)])
    yield from found


def _calls_target(call: ast.Call, name: str, method: bool) -> bool:
    func = call.func
    if (
        isinstance(func, ast.Call)  # `jax.jit(f)(x)`: the same arguments
        and last_name(func.func) == "jit"
        and func.args
        and isinstance(func.args[0], ast.Name)
    ):
        return not method and func.args[0].id == name
    if method:
        return isinstance(func, ast.Attribute) and (
            func.attr == name or _is_linen_entry(call, name)
        )
    return isinstance(func, ast.Name) and func.id == name


def _is_linen_entry(call: ast.Call, name: str) -> bool:
    """`model.apply(variables, ...)` / `model.init(key, ...)`: a call of a linen `__call__`
    (one of another method names it with `method=`)."""
    func = call.func
    if not (isinstance(func, ast.Attribute) and func.attr in ("apply", "init")):
        return False
    method = next((k.value for k in call.keywords if k.arg == "method"), None)
    if method is None:
        return name == "__call__"
    named = method.value if isinstance(method, ast.Constant) else last_name(method)
    return named == name


def _assignments(
    scope: ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda,
) -> dict[str, list[tuple[int, Any]]]:
    """Name → (line, value expression) of its plain assignments in a scope, and its parameters."""
    names: dict[str, list[tuple[int, Any]]] = {}
    if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        arguments = scope.args
        every = arguments.posonlyargs + arguments.args + arguments.kwonlyargs
        every += [a for a in (arguments.vararg, arguments.kwarg) if a is not None]
        for argument in every:
            names.setdefault(argument.arg, []).append((0, _PARAMETER))
    body = scope.body if isinstance(scope.body, list) else []  # a lambda's body is an expression
    for node in _walk_scope(body):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name):
                names.setdefault(target.id, []).append((node.lineno, node.value))
            elif isinstance(target, ast.Tuple):  # `key, subkey = jax.random.split(key)`
                plain = all(isinstance(e, ast.Name) for e in target.elts)
                for index, element in enumerate(target.elts):
                    for bound in ast.walk(element):
                        if isinstance(bound, ast.Name):
                            value = _Unpacked(node.value, index) if plain else _PARAMETER
                            names.setdefault(bound.id, []).append((node.lineno, value))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            if node.value is not None:
                names.setdefault(node.target.id, []).append((node.lineno, node.value))
        elif isinstance(node, (ast.AugAssign, ast.For, ast.With, ast.NamedExpr)):
            others = [getattr(node, "target", None)] + [
                item.optional_vars for item in getattr(node, "items", [])
            ]
            for other in others:
                for bound in ast.walk(other) if other is not None else ():
                    if isinstance(bound, ast.Name):  # rebound by a loop or in place: unknown
                        names.setdefault(bound.id, []).append((node.lineno, _PARAMETER))
    return names


def _walk_scope(body: list[ast.stmt]) -> Iterator[ast.AST]:
    """The nodes of a scope's body, not descending into nested functions and classes."""
    stack: list[ast.AST] = list(reversed(body))
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        stack.extend(reversed(list(ast.iter_child_nodes(node))))


class _Evaluator:
    """Evaluates the allow-listed subset of Python described in the module docstring."""

    def __init__(self, tree: ast.Module, resolver: Resolver | None) -> None:
        self.aliases = _import_aliases(tree)
        self.resolver = resolver

    def evaluate(self, node: ast.expr, scopes: list[dict], line: int, depth: int) -> Any:
        if depth > MAX_DEPTH:
            raise _Unsafe("too deep")
        if isinstance(node, ast.Constant):
            if node.value is None or isinstance(node.value, (bool, int, float, complex, str)):
                return node.value
            raise _Unsafe("constant")
        if isinstance(node, (ast.Tuple, ast.List)):
            values = [self.evaluate(e, scopes, line, depth + 1) for e in node.elts]
            return tuple(values) if isinstance(node, ast.Tuple) else values
        if isinstance(node, ast.Dict):
            if not all(isinstance(k, ast.Constant) and isinstance(k.value, str) for k in node.keys):
                raise _Unsafe("dict keys")
            return {
                k.value: self.evaluate(v, scopes, line, depth + 1)
                for k, v in zip(node.keys, node.values, strict=True)
                if isinstance(k, ast.Constant)  # (all are, as tested above)
            }
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            operand = self.evaluate(node.operand, scopes, line, depth + 1)
            if not _is_number(operand):
                raise _Unsafe("unary")
            return -operand if isinstance(node.op, ast.USub) else operand
        if isinstance(node, ast.BinOp):
            return _arithmetic(
                node.op,
                self.evaluate(node.left, scopes, line, depth + 1),
                self.evaluate(node.right, scopes, line, depth + 1),
            )
        if isinstance(node, ast.Name):
            return self._name(node.id, scopes, line, depth)
        if isinstance(node, ast.Attribute):
            qualified = self._qualified(node)
            if qualified in ALLOWED_VALUES:
                return _load(qualified)
            raise _Unsafe("attribute")
        if isinstance(node, ast.Call):
            return self._call(node, scopes, line, depth)
        raise _Unsafe(type(node).__name__)

    def _name(self, name: str, scopes: list[dict], line: int, depth: int) -> Any:
        for level in range(len(scopes) - 1, -1, -1):
            bound = scopes[level].get(name)
            if not bound:
                continue
            # the last assignment before the call (module level: any, a function may run later)
            before = [b for b in bound if b[0] < line] or (bound if level == 0 else [])
            if not before or any(value is _PARAMETER for _, value in bound):
                raise _Unsafe(f"`{name}` has no known value")
            at, value = before[-1]
            if isinstance(value, _Unpacked):
                whole = self.evaluate(value.node, scopes[: level + 1], at, depth + 1)
                if not isinstance(whole, (tuple, list, jax.Array)) or len(whole) <= value.index:
                    raise _Unsafe(f"cannot unpack `{name}`")
                return whole[value.index]
            return self.evaluate(value, scopes[: level + 1], at, depth + 1)
        qualified = self.aliases.get(name)
        if qualified in ALLOWED_VALUES:
            return _load(qualified)
        raise _Unsafe(f"`{name}` is not assigned")

    def _call(self, node: ast.Call, scopes: list[dict], line: int, depth: int) -> Any:
        if any(isinstance(a, ast.Starred) for a in node.args) or any(
            k.arg is None for k in node.keywords
        ):
            raise _Unsafe("star arguments")
        qualified = self._qualified(node.func)
        target: Any = None
        if qualified in ALLOWED_CALLS:
            target = _load(qualified)
        elif qualified is None:  # not a library name: the module's own dataclass or NamedTuple?
            target = self._own_class(node.func)
        if target is None:
            raise _Unsafe(f"call of {ast.unparse(node.func)}")
        args = [self.evaluate(a, scopes, line, depth + 1) for a in node.args]
        kwargs = {  # (every keyword has a name: `**` was refused above)
            k.arg: self.evaluate(k.value, scopes, line, depth + 1)
            for k in node.keywords
            if k.arg is not None
        }
        seeds = qualified is not None and qualified.rsplit(".", 1)[-1] in _SEEDED
        _check_sizes([*args, *kwargs.values()], seeds=seeds)
        return target(*args, **kwargs)

    def _qualified(self, node: ast.expr) -> str | None:
        """`jnp.zeros` → `jax.numpy.zeros` through the module's imports; None for other names."""
        parts: list[str] = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name) or node.id not in self.aliases:
            return None
        return ".".join([self.aliases[node.id], *reversed(parts)])

    def _own_class(self, func: ast.expr) -> type | None:
        if self.resolver is None or not isinstance(func, ast.Name):
            return None
        cls = self.resolver.lookup(func.id)
        return cls if isinstance(cls, type) and _safe_class(cls) else None


def _safe_class(cls: type) -> bool:
    """A project NamedTuple, or a project dataclass whose `__init__` is the generated one."""
    if not is_project_class(cls):
        return False
    if issubclass(cls, tuple) and isinstance(getattr(cls, "_fields", None), tuple):
        return True  # a NamedTuple cannot override `__new__`
    if not dataclasses.is_dataclass(cls) or hasattr(cls, "__post_init__"):
        return False
    init = getattr(cls.__init__, "__code__", None)
    return init is not None and init.co_filename == "<string>"  # written by dataclasses


def _import_aliases(tree: ast.Module) -> dict[str, str]:
    """Local name → what it imports, for the libraries the allow-list knows (jax, numpy, math)."""
    aliases: dict[str, str] = {}
    for stmt in _walk_scope(tree.body):
        if isinstance(stmt, ast.Import):
            for alias in stmt.names:
                if alias.name.split(".")[0] not in _LIBRARY_ROOTS:
                    continue
                if alias.asname:
                    aliases[alias.asname] = alias.name
                else:
                    root = alias.name.split(".")[0]
                    aliases[root] = root
        elif isinstance(stmt, ast.ImportFrom) and stmt.module and not stmt.level:
            if stmt.module.split(".")[0] not in _LIBRARY_ROOTS:
                continue
            for alias in stmt.names:
                aliases[alias.asname or alias.name] = f"{stmt.module}.{alias.name}"
    return aliases


def _load(qualified: str) -> Any:
    module_name, _, attribute = qualified.rpartition(".")
    try:
        return getattr(importlib.import_module(module_name), attribute)
    except (ImportError, AttributeError):
        parent, _, inner = module_name.rpartition(".")  # `numpy.random` style chains
        if not parent:
            raise _Unsafe(qualified) from None
        return getattr(getattr(importlib.import_module(parent), inner), attribute)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _arithmetic(op: ast.operator, left: Any, right: Any) -> Any:
    if isinstance(op, ast.Add) and isinstance(left, tuple) and isinstance(right, tuple):
        return left + right  # shapes: `(n,) + (3,)`
    if not (_is_number(left) and _is_number(right)):
        raise _Unsafe("arithmetic on non-numbers")
    if isinstance(op, (ast.Pow, ast.LShift)) and (abs(right) > 64 or abs(left) > 1 << 20):
        raise _Unsafe("large power")
    operations = {
        ast.Add: lambda a, b: a + b,
        ast.Sub: lambda a, b: a - b,
        ast.Mult: lambda a, b: a * b,
        ast.Div: lambda a, b: a / b,
        ast.FloorDiv: lambda a, b: a // b,
        ast.Mod: lambda a, b: a % b,
        ast.Pow: lambda a, b: a**b,
        ast.LShift: lambda a, b: a << b,
    }
    operation = operations.get(type(op))
    if operation is None:
        raise _Unsafe("operator")
    result = operation(left, right)
    if abs(result) > 1 << 40:
        raise _Unsafe("large number")
    return result


def _check_sizes(values: list[Any], seeds: bool = False) -> None:
    """Refuse shapes and counts that would make an array over MAX_ELEMENTS (a seed may be big)."""
    for value in values:
        if not seeds and _is_number(value) and isinstance(value, int) and value > MAX_ELEMENTS:
            raise _Unsafe("size")
        if not isinstance(value, (tuple, list)):
            continue
        shape = value and all(isinstance(v, int) and not isinstance(v, bool) for v in value)
        if shape and (any(v < 0 for v in value) or math.prod(value) > MAX_ELEMENTS):
            raise _Unsafe("shape")
        _check_sizes(list(value))
