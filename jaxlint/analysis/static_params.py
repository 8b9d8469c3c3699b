"""What a jitted function does with a static parameter, read on its `ast` (JAX304): how its
annotation types it, whether its body needs a concrete value there, and whether a tuple in
place of a list would change what the body does."""

from __future__ import annotations

import ast

from jaxlint.analysis.names import ImportTable, dotted_ast
from jaxlint.analysis.scope import FunctionInfo

ARRAY_TYPES = frozenset({"Array", "ndarray"})
JAXTYPING = frozenset(
    {"Float", "Int", "Bool", "Shaped", "Num", "Complex", "UInt", "Integer", "Inexact", "Real"}
)
MUTABLE_CONTAINERS = frozenset(
    {"list", "List", "dict", "Dict", "set", "Set", "MutableSequence", "MutableMapping"}
)
# where a parameter must be a concrete Python int, so marking it static is right whatever its
# annotation says (`jnp.linspace(0, 1, n)`)
CONCRETE_USES = frozenset(
    {
        "builtins.range",
        "builtins.int",
        "jax.numpy.linspace",
        "jax.numpy.arange",
        "jax.numpy.zeros",
        "jax.numpy.ones",
        "jax.numpy.empty",
        "jax.numpy.full",
        "jax.numpy.eye",
        "jax.numpy.identity",
        "jax.numpy.tri",
    }
)
# what a tuple does as a list does: read, iterate, unpack, measure, convert
_SEQUENCE_READERS = frozenset(
    {
        "len",
        "tuple",
        "list",
        "sorted",
        "enumerate",
        "zip",
        "reversed",
        "iter",
        "sum",
        "min",
        "max",
        "any",
        "all",
        "set",
        "frozenset",
        "dict",
        "map",
        "filter",
        "hash",
    }
)


def annotated_as_array(info: FunctionInfo, param: str) -> bool:
    """Is `param` annotated `jax.Array`, `jnp.ndarray`, or jaxtyping's `Float[Array, "n"]`
    (not `ArrayLike`, which takes Python numbers)?"""
    annotation = info.annotations.get(param)
    return annotation is not None and _array_annotation(annotation)


def annotated_as_mutable_container(info: FunctionInfo, param: str) -> bool:
    """Is `param` annotated `list[int]`, `List[int]`, `dict`, or a union one of whose members
    is one (`Union[int, List[int]]`, `int | list[int]`)?"""
    annotation = info.annotations.get(param)
    return annotation is not None and _mutable_container_annotation(annotation)


def _mutable_container_annotation(annotation: ast.expr) -> bool:
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        return _mutable_container_annotation(annotation.left) or _mutable_container_annotation(
            annotation.right
        )
    head = annotation.value if isinstance(annotation, ast.Subscript) else annotation
    name = (dotted_ast(head) or "").split(".")[-1]
    if name in ("Union", "Optional") and isinstance(annotation, ast.Subscript):
        members = (
            annotation.slice.elts if isinstance(annotation.slice, ast.Tuple) else [annotation.slice]
        )
        return any(_mutable_container_annotation(m) for m in members)
    return name in MUTABLE_CONTAINERS


def _array_annotation(annotation: ast.expr) -> bool:
    if isinstance(annotation, ast.Subscript):
        head = (dotted_ast(annotation.value) or "").split(".")[-1]
        first = annotation.slice.elts[0] if isinstance(annotation.slice, ast.Tuple) else None
        return head in JAXTYPING and first is not None and _array_annotation(first)
    return (dotted_ast(annotation) or "").split(".")[-1] in ARRAY_TYPES


def used_as_concrete(info: FunctionInfo, param: str, imports: ImportTable) -> bool:
    """Is `param` used where only a concrete Python value works (`range(n)`, a shape, a
    `linspace` count, a slice bound)? Then it is static on purpose, whatever its annotation."""
    for node in ast.walk(info.node):
        if isinstance(node, ast.Call) and imports.resolve(dotted_ast(node.func)) in CONCRETE_USES:
            values = [*node.args, *(k.value for k in node.keywords)]
        elif isinstance(node, ast.Slice):
            values = [v for v in (node.lower, node.upper, node.step) if v is not None]
        else:
            continue
        if any(isinstance(n, ast.Name) and n.id == param for v in values for n in ast.walk(v)):
            return True
    return False


def list_only_use(info: FunctionInfo, param: str) -> str | None:
    """A use of parameter `param` in `info`'s body that a tuple in place of a list would change
    (`isinstance(p, list)`, `p + [x]`, `p.append(x)`, `p == [1, 2]`, printing it, handing it to
    a function that may do any of these), as text; None when every use reads it as a sequence:
    `p[i]`, `for x in p`, `a, b = p`, `x in p`, `len(p)`, `jnp.asarray(p)`."""
    parents: dict[int, ast.AST] = {}
    for node in ast.walk(info.node):
        for child in ast.iter_child_nodes(node):
            parents[id(child)] = node
    for node in ast.walk(info.node):
        if not (isinstance(node, ast.Name) and node.id == param and isinstance(node.ctx, ast.Load)):
            continue
        parent = parents.get(id(node))
        if isinstance(parent, ast.Subscript) and parent.value is node:
            continue
        if isinstance(parent, (ast.For, ast.comprehension)) and parent.iter is node:
            continue
        if (
            isinstance(parent, ast.Assign)
            and parent.value is node
            and all(isinstance(t, (ast.Tuple, ast.List)) for t in parent.targets)
        ):
            continue
        if (
            isinstance(parent, ast.Compare)
            and all(isinstance(op, (ast.In, ast.NotIn)) for op in parent.ops)
            and node is not parent.left
        ):
            continue
        if isinstance(parent, ast.Call) and node in parent.args:
            callee = dotted_ast(parent.func) or ""
            if callee in _SEQUENCE_READERS or callee.startswith(("jnp.", "np.", "jax.numpy.")):
                continue
        return ast.unparse(parent) if parent is not None else param
    return None
