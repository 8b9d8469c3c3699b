"""Example inputs: argument kinds from annotations or a ladder of candidates, fixed seeds."""

from __future__ import annotations

import ast
import dataclasses
import heapq
import inspect
import itertools
import math
import types
import typing
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from jaxlint.verify.arg_kind import BOOL, FLOAT, INT, KEY, ArgKind, array_kind
from jaxlint.verify.classes import (
    Resolver,
    constructor_signature,
    is_registered_pytree,
    module_namespace,
    resolver_for,
)
from jaxlint.verify.namespace import last_name, source_tree

# Axis sizes are named dims, n = 7, d = 3, k = 4, the same in every parameter: `X[i] @ w - y[i]`
# finds X: (n, d), y: (n,), w: (d,) as well as the square w: (d, d).
ARRAY_LADDER = (
    array_kind(7),
    array_kind(7, 3),
    array_kind(3),
    array_kind(3, 3),
    array_kind(7, 3, 4),
    array_kind(4),
)
CALL_LADDER = ARRAY_LADDER + (FLOAT, INT, BOOL)
INIT_LADDER = (FLOAT, array_kind(7), INT, BOOL, array_kind(3), array_kind(3, 3))
# Data types tried on top of float32 where the original accepts them.
VARIANT_DTYPES = ("int32", "bool", "bfloat16", "float16", "complex64")
LONG_AXIS = 19
_KEY_NAMES = frozenset({"key", "rng", "prng", "prng_key", "rng_key", "subkey"})

_ARRAY_TYPES = frozenset({"Array", "ndarray", "ArrayLike", "array", "asarray", "Tensor"})
_JAXTYPING_DTYPES = {
    "Float": "float32",
    "Float16": "float16",
    "BFloat16": "bfloat16",
    "Float32": "float32",
    "Float64": "float64",
    "Inexact": "float32",
    "Real": "float32",
    "Num": "float32",
    "Shaped": "float32",
    "Int": "int32",
    "Integer": "int32",
    "Int8": "int8",
    "Int16": "int16",
    "Int32": "int32",
    "Int64": "int64",
    "UInt": "uint32",
    "UInt8": "uint8",
    "UInt16": "uint16",
    "UInt32": "uint32",
    "UInt64": "uint64",
    "Bool": "bool",
    "Complex": "complex64",
    "Complex64": "complex64",
    "Complex128": "complex128",
}
_DIM_SIZES = (7, 3, 5, 4, 6, 2, 8, 9)


@dataclass
class DimTable:
    """Sizes for named jaxtyping dimensions, shared by every parameter of one check."""

    sizes: dict[str, int] = field(default_factory=dict)

    def size(self, name: str) -> int:
        """The size of dimension `name`, picking the next distinct size on first use."""
        if name not in self.sizes:
            self.sizes[name] = _DIM_SIZES[len(self.sizes) % len(_DIM_SIZES)]
        return self.sizes[name]


@dataclass(frozen=True)
class Param:
    """One parameter to fill: its candidate kinds, or none to leave it at its default."""

    name: str
    keyword: bool
    candidates: tuple[ArgKind, ...]


@dataclass(frozen=True)
class Binding:
    """A chosen kind for each parameter (None: default); makes fresh arguments per input set."""

    params: tuple[Param, ...]
    kinds: tuple[ArgKind | None, ...]
    salt: int

    def make(self, set_index: int) -> tuple[tuple[Any, ...], dict[str, Any]]:
        """Fresh (args, kwargs) for an input set; fresh so donated or mutated inputs do not leak."""
        args: list[Any] = []
        kwargs: dict[str, Any] = {}
        skipped = False  # after a parameter left at its default, the rest go by name
        for position, (param, kind) in enumerate(zip(self.params, self.kinds, strict=True)):
            if kind is None:
                skipped = True
                continue
            value = kind.make(set_index, 1000 * set_index + 37 * position + self.salt)
            if param.keyword or skipped:
                kwargs[param.name] = value
            else:
                args.append(value)
        return tuple(args), kwargs

    def sizes(self) -> list[int]:
        """The distinct axis sizes of the array arguments, in order of appearance."""
        found: list[int] = []
        for kind in self.kinds:
            for shape in kind.shapes() if kind is not None else ():
                found.extend(d for d in shape if d not in found)
        return found

    def leading_sizes(self) -> set[int]:
        """Sizes of the first axis of array arguments (the axes loops run over)."""
        return {shape[0] for k in self.kinds if k is not None for shape in k.shapes() if shape}

    def has_float32_data(self) -> bool:
        """Does any array argument hold float32 data (so dtype variants change something)?"""
        return any(k is not None and k.has_float32() for k in self.kinds)

    def resized(self, old: int, new: int) -> Binding:
        """Every axis of size `old` made `new`, in every array argument."""
        kinds = tuple(k.resized(old, new) if k else None for k in self.kinds)
        return replace(self, kinds=kinds)

    def retyped(self, dtype: str) -> Binding:
        """Float32 data made `dtype` in every array argument."""
        return replace(self, kinds=tuple(k.retyped(dtype) if k else None for k in self.kinds))

    def with_value(self, name: str, value: Any) -> Binding:
        """Parameter `name` (one left at its default) given `value` explicitly."""
        kinds = tuple(
            ArgKind("value", value=value) if p.name == name else k
            for p, k in zip(self.params, self.kinds, strict=True)
        )
        return replace(self, kinds=kinds)

    def profile(self) -> tuple[tuple[str, int, str], ...]:
        """Kind, rank and dtype per argument: signatures with another profile are worth trying."""
        return tuple(k.profile() if k else ("default", 0, "") for k in self.kinds)

    def defaulted(self) -> list[str]:
        """Parameters left at their defaults."""
        return [p.name for p, k in zip(self.params, self.kinds, strict=True) if k is None]

    def describe(self) -> str:
        """`x: float32[7], n: int` for messages."""
        pairs = zip(self.params, self.kinds, strict=True)
        return ", ".join(f"{p.name}: {k.describe()}" for p, k in pairs if k)


def parameters(
    signature: inspect.Signature,
    dims: DimTable,
    ladder: tuple[ArgKind, ...],
    keys: dict[str, tuple[str, ...]] | None = None,
    *,
    unpacked: dict[str, int] | None = None,
    dtypes: dict[str, str] | None = None,
    static: frozenset[str] = frozenset(),
    function: object = None,
    site_name: str | None = None,
    method: bool = False,
) -> tuple[Param, ...]:
    """The parameters to fill, with candidate kinds from annotations or from `ladder`.

    With `function` (whose module holds the annotations' classes), an annotation naming a
    dataclass, NamedTuple or pytree class gives instances built field by field; an unannotated
    parameter is first tried with what the module's calls of `site_name(...)` pass for it
    (literals and array constructors, jaxlint.verify.call_sites; `obj.name(...)` for a method). A
    parameter the body subscripts with strings (`batch["x"]`, in `keys`) is then tried as a dict
    of arrays, of the same and of different shapes per key; one it unpacks into n names
    (`q, p = state`, in `unpacked`) as a tuple of n arrays, the same way. A parameter whose use
    asks for a dtype (`dtypes`: an index, a mask) is also tried with its float32 kinds in that
    dtype (a mask first, an index after the float kinds). A parameter the original's jit makes
    static (`static`) gets Python values only.
    """
    resolver = resolver_for(function) if function is not None else None
    sites: dict[str, tuple[ArgKind, ...]] = {}
    if function is not None:
        from jaxlint.verify.call_sites import call_site_kinds  # it builds on this module

        name: str = site_name if site_name else getattr(function, "__name__", "")
        names = [p.name for p in signature.parameters.values()]
        sites = call_site_kinds(function, name, names, method, resolver)
    params: list[Param] = []
    for p in signature.parameters.values():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        keyword = p.kind == p.KEYWORD_ONLY
        if p.default is not p.empty:  # left at its default (positional ones after it have one too)
            params.append(Param(p.name, keyword, ()))
            continue
        kinds = annotation_kinds(p.annotation, dims, resolver)
        if kinds is None:
            kinds = (KEY,) + ladder if p.name in _KEY_NAMES else ladder
            if keys and p.name in keys:
                kinds = dict_kinds(keys[p.name]) + kinds
            if unpacked and p.name in unpacked:
                kinds = tuple_kinds(unpacked[p.name]) + kinds
        # what the module passes comes first, annotated or not (`din: int` is a layer width:
        # the 3 a call site gives fits the data, the ladder's ints vary between input sets)
        passed = sites.get(p.name, ())
        kinds = passed + tuple(k for k in kinds if k not in passed)
        if dtypes and p.name in dtypes:
            retyped = tuple(dict.fromkeys(k.retyped(dtypes[p.name]) for k in kinds))
            retyped = tuple(k for k in retyped if k not in kinds)
            # `~` raises on float data, so a mask is tried as one first; an index (`table[i]`)
            # may be a float array's row instead: float data is tried first for it
            kinds = retyped + kinds if dtypes[p.name] == "bool" else kinds + retyped
        if p.name in static:  # jit hashes a static argument: Python values only
            kinds = tuple(k for k in kinds if _hashable(k)) or (INT, FLOAT, BOOL)
        params.append(Param(p.name, keyword, kinds))
    return tuple(params)


# Per-key shapes of a parameter dict (`params["w"] @ x + params["b"]`): the same shape for every
# key first, then mixed ones, simplest first (w: (7,3) beside b: (3,)).
DICT_LADDER = (array_kind(7), array_kind(7, 3), array_kind(3), array_kind(3, 3))
MAX_DICT_KINDS = 10


def dict_kinds(keys: tuple[str, ...]) -> tuple[ArgKind, ...]:
    """Dicts of arrays with these keys: uniform shapes, then per-key combinations (bounded)."""
    return _container_kinds("dict", keys)


def tuple_kinds(length: int) -> tuple[ArgKind, ...]:
    """Tuples of `length` arrays (a state unpacked `q, p = state`): as dict_kinds."""
    return _container_kinds("tuple", tuple(str(i) for i in range(length)))


def _container_kinds(
    kind_name: Literal["dict", "tuple"], keys: tuple[str, ...]
) -> tuple[ArgKind, ...]:
    found: list[ArgKind] = [
        ArgKind(kind_name, items=tuple((key, leaf) for key in keys)) for leaf in DICT_LADDER[:2]
    ]
    for combo in _ranked([DICT_LADDER] * len(keys), 4 * MAX_DICT_KINDS):
        kind = ArgKind(kind_name, items=tuple(zip(keys, combo, strict=True)))
        if kind not in found:
            found.append(kind)
        if len(found) >= MAX_DICT_KINDS:
            break
    return tuple(found)


def _ranked(choices: list[tuple[ArgKind, ...]], limit: int) -> Iterator[tuple[ArgKind, ...]]:
    """Up to `limit` picks of one kind per choice, simplest first (lowest total rank), lazily."""
    if any(not c for c in choices):
        return
    first = (0,) * len(choices)
    heap: list[tuple[int, int, tuple[int, ...]]] = [(0, 0, first)]
    seen = {first}
    for _ in range(limit):
        if not heap:
            return
        total, _worst, ranks = heapq.heappop(heap)
        yield tuple(c[r] for c, r in zip(choices, ranks, strict=True))
        for i, rank in enumerate(ranks):
            if rank + 1 < len(choices[i]):
                following = ranks[:i] + (rank + 1,) + ranks[i + 1 :]
                if following not in seen:
                    seen.add(following)
                    heapq.heappush(heap, (total + 1, max(following), following))


def subscript_keys(function: object) -> dict[str, tuple[str, ...]]:
    """Parameter name → the string keys its module subscripts that name with (`batch["x"]`).

    The whole module is read, not only the function: `train_step(params, batch)` usually hands
    `batch` to a `loss_fn(params, batch)` that does the indexing.
    """
    names, tree = _parameters_and_module(function)
    found: dict[str, list[str]] = {}
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Subscript)
            and isinstance(node.value, ast.Name)
            and node.value.id in names
            and isinstance(node.slice, ast.Constant)
            and isinstance(node.slice.value, str)
        ):
            keys = found.setdefault(node.value.id, [])
            if node.slice.value not in keys:
                keys.append(node.slice.value)
    return {name: tuple(keys) for name, keys in found.items()}


def _parameters_and_module(function: object) -> tuple[set[str], ast.Module]:
    """The function's parameter names and its module's tree (none and an empty module when
    either cannot be read): what subscript_keys and unpacked_lengths scan."""
    try:
        names = set(inspect.signature(function).parameters)  # type: ignore[arg-type]  # or raises
        _, tree = source_tree(function)
    except (AttributeError, TypeError, SyntaxError, ValueError):
        return set(), ast.Module(body=[], type_ignores=[])
    return names, tree


def unpacked_lengths(function: object) -> dict[str, int]:
    """Parameter name → how many names its module unpacks that name into (`q, p = state`):
    a tuple state (a NamedTuple is built from its annotation instead)."""
    names, tree = _parameters_and_module(function)
    found: dict[str, int] = {}
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], (ast.Tuple, ast.List))
            and not any(isinstance(t, ast.Starred) for t in node.targets[0].elts)
            and isinstance(node.value, ast.Name)
            and node.value.id in names
        ):
            found.setdefault(node.value.id, len(node.targets[0].elts))
    return found


def _hashable(kind: ArgKind) -> bool:
    if kind.kind in ("int", "float", "bool"):
        return True
    try:
        return kind.kind == "value" and hash(kind.value) is not None
    except TypeError:
        return False


def data_dtypes(function: object) -> dict[str, str]:
    """Parameter name → a dtype its use in the function's body asks for: `int32` for an index
    (`table[action]`, `x[i % n]`, `.at[idx]`), `bool` for a mask inverted with `~` (also through
    a name bound to one of its method chains, `nodes = grid.flatten()`)."""
    try:
        names = set(inspect.signature(function).parameters)  # type: ignore[arg-type]  # or raises
        code, tree = source_tree(function)
    except (AttributeError, TypeError, SyntaxError, ValueError):
        return {}
    body = next(
        (
            node
            for node in ast.walk(tree)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and node.name == code.co_name
            # the first decorator's line, or the `def` line once verification stripped the jit
            and code.co_firstlineno in {node.lineno, *(d.lineno for d in node.decorator_list)}
        ),
        None,
    )
    nodes = list(ast.walk(body)) if body is not None else []
    # `nodes = grid.flatten()`: a name bound to a method chain of a parameter stands for it
    origin = {name: name for name in names}
    for node in nodes:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            root = _chain_root(node.value)
            target = node.targets[0]
            if isinstance(target, ast.Name) and isinstance(root, ast.Name) and root.id in origin:
                origin.setdefault(target.id, origin[root.id])
    found: dict[str, str] = {}
    for node in nodes:
        if isinstance(node, ast.Subscript):
            for name in ast.walk(node.slice):
                if isinstance(name, ast.Name) and name.id in origin:
                    found.setdefault(origin[name.id], "int32")
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Invert):
            # `~mask`, `~done[t]`, `~grid.flatten()`: the array inverted is a mask
            root = _chain_root(node.operand)
            if isinstance(root, ast.Name) and root.id in origin:
                found.setdefault(origin[root.id], "bool")
    return found


def _chain_root(node: ast.expr) -> ast.expr:
    """`x` of `x`, `x[i]`, `x.flatten()`, `x.T[0]`: what a chain of calls, attributes and
    subscripts starts from."""
    while isinstance(node, (ast.Call, ast.Attribute, ast.Subscript)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node


def call_site_values(function: object, name: str, skip_first: bool) -> dict[str, list[Any]]:
    """Parameter → the literal values its module's calls of `name(...)` pass for it.

    Static flags and modes (`normalize=True`, `mode="mean"`) are varied over these, so both
    branches a caller can take are verified. `skip_first` drops `self` for methods.
    """
    try:
        names = list(inspect.signature(function).parameters)  # type: ignore[arg-type]  # or raises
        _, tree = source_tree(function)
    except (AttributeError, TypeError, SyntaxError, ValueError):
        return {}
    if skip_first:
        names = names[1:]
    found: dict[str, list[Any]] = {}
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and last_name(node.func) == name):
            continue
        pairs = list(zip(names, node.args, strict=False))
        pairs += [(k.arg, k.value) for k in node.keywords if k.arg in names]
        for param, argument in pairs:
            if isinstance(argument, ast.Starred):
                break
            try:
                value = ast.literal_eval(argument)
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                continue
            values = found.setdefault(param, [])
            if value not in values:
                values.append(value)
    return found


def annotation_text(annotation: object) -> str | None:
    """An annotation as source text, whether it is a string or a runtime object."""
    if annotation is inspect.Parameter.empty:
        return None
    if isinstance(annotation, str):
        return annotation
    if isinstance(annotation, type) or inspect.isfunction(annotation):
        return annotation.__qualname__
    return repr(annotation)


def kinds_from_annotation(
    text: str | None, dims: DimTable, resolver: Resolver | None = None
) -> tuple[ArgKind, ...] | None:
    """Candidate kinds an annotation allows, or None when it says nothing usable."""
    return _Annotations(dims, resolver).of_text(text)


def annotation_kinds(
    annotation: object, dims: DimTable, resolver: Resolver | None = None
) -> tuple[ArgKind, ...] | None:
    """Candidate kinds of an annotation given as source text or as a runtime object."""
    if annotation is inspect.Parameter.empty:
        return None
    return _Annotations(dims, resolver).of_object(annotation)


MAX_STRUCT_KINDS = 12  # field-kind combinations tried per dataclass / NamedTuple / pytree class
MAX_TUPLE_KINDS = 6
_MAX_NESTING = 4
_SEQUENCE_HEADS = {"tuple": tuple, "Tuple": tuple, "list": list, "List": list, "Sequence": tuple}


@dataclass(frozen=True)
class _Annotations:
    """Reads annotations: source text, runtime objects, and the classes they name.

    `namespace` is where the annotation was written (a field's class's module); names are looked
    up there, then in the target's module, through `resolver`.
    """

    dims: DimTable
    resolver: Resolver | None = None
    namespace: dict[str, Any] | None = None
    seen: tuple[type, ...] = ()  # classes being built (nested dataclasses), to stop cycles
    depth: int = 0

    def deeper(self, **changes: Any) -> _Annotations:
        return replace(self, depth=self.depth + 1, **changes)

    def of_text(self, text: str | None) -> tuple[ArgKind, ...] | None:
        if not text:
            return None
        try:
            node = ast.parse(text, mode="eval").body
        except SyntaxError:
            return None
        return self.of_node(node)

    def of_object(self, annotation: object) -> tuple[ArgKind, ...] | None:
        if self.depth > _MAX_NESTING:
            return None
        if isinstance(annotation, str):
            return self.of_text(annotation)
        if isinstance(annotation, typing.ForwardRef):
            return self.of_text(annotation.__forward_arg__)
        if isinstance(annotation, type) and typing.get_origin(annotation) is None:
            built = self.of_class(annotation)
            if built is not None:
                return built
            return self.of_text(annotation.__qualname__)
        origin = typing.get_origin(annotation)
        arguments = typing.get_args(annotation)
        if origin is typing.Union or (_UNION_TYPE is not None and origin is _UNION_TYPE):
            for option in arguments:
                kinds = self.deeper().of_object(option)
                if kinds:
                    return kinds
            return None
        if origin is typing.Annotated and arguments:
            return self.deeper().of_object(arguments[0])
        if origin in (tuple, list):
            return self.of_sequence(
                list(arguments), origin, lambda a: self.deeper().of_object(a), ...
            )
        return self.of_text(annotation_text(annotation))

    def of_node(self, node: ast.expr) -> tuple[ArgKind, ...] | None:
        if self.depth > _MAX_NESTING:
            return None
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):  # `X | None`
            return self.deeper().of_node(node.left) or self.deeper().of_node(node.right)
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return self.deeper().of_text(node.value)
        if isinstance(node, ast.Subscript):
            head = last_name(node.value)
            parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            if head in ("Optional", "Union"):
                for option in parts:
                    kinds = self.deeper().of_node(option)
                    if kinds:
                        return kinds
                return None
            if head in _JAXTYPING_DTYPES or head in ("Key", "PRNGKeyArray"):
                return _jaxtyping_kind(head, node.slice, self.dims)
            if head == "Annotated":
                return self.deeper().of_node(parts[0])
            if head in _SEQUENCE_HEADS:
                ellipsis = ast.Constant(...)
                elements = [ellipsis if _is_ellipsis(p) else p for p in parts]
                return self.of_sequence(
                    elements, _SEQUENCE_HEADS[head], lambda n: self.deeper().of_node(n), ellipsis
                )
            return None
        name = last_name(node)
        if name == "float":
            return (FLOAT,)
        if name == "int":
            return (INT,)
        if name == "bool":
            return (BOOL,)
        if name in ("PRNGKeyArray", "KeyArray"):
            return (KEY,)
        if name in _ARRAY_TYPES:
            return ARRAY_LADDER
        if name is None or self.resolver is None:
            return None
        found = self.resolver.lookup(ast.unparse(node), self.namespace)
        if isinstance(found, type) and typing.get_origin(found) is None:
            return self.of_class(found)
        if found is not None:  # an alias: `Params = dict[str, jax.Array]`, `State = "MyState"`
            return self.deeper().of_object(found)
        return None

    def of_sequence(
        self, elements: list[Any], container: type, kinds_of: Any, ellipsis: Any
    ) -> tuple[ArgKind, ...] | None:
        """`tuple[A, B]`: one kind per element; `tuple[A, ...]` two As; `list[A]` two As."""
        if len(elements) == 2 and elements[1] is ellipsis:
            elements = [elements[0], elements[0]]
        elif container is list and len(elements) == 1:
            elements = elements * 2
        if any(e is ellipsis for e in elements) or len(elements) > 8:
            return None
        choices = []
        for element in elements:
            kinds = kinds_of(element)
            if not kinds:
                return None
            choices.append(kinds)
        return tuple(
            ArgKind(
                "tuple",
                items=tuple((str(i), k) for i, k in enumerate(combo)),
                cls=list if container is list else None,
            )
            for combo in _ranked(choices, MAX_TUPLE_KINDS)
        )

    def of_class(self, cls: type) -> tuple[ArgKind, ...] | None:
        """Instances of a dataclass, NamedTuple or pytree class, built field by field."""
        if (cls.__module__, cls.__qualname__) == _NNX_RNGS:  # `rngs: nnx.Rngs`: one seed
            return (ArgKind("struct", items=(("default", INT),), cls=cls),)
        if cls in self.seen or len(self.seen) >= _MAX_NESTING:
            return None
        fields_ = struct_fields(cls)
        if fields_ is None:
            return None
        namespace = module_namespace(cls, self.resolver)
        inner = replace(self, namespace=namespace, seen=self.seen + (cls,), depth=0)
        names: list[str] = []
        choices: list[tuple[ArgKind, ...]] = []
        for f in fields_:
            if not f.required:
                continue  # left at its default
            kinds = inner.of_object(f.annotation) if f.annotation is not _EMPTY else None
            if f.static:  # a Python value: part of the tree structure, not a leaf
                kinds = tuple(k for k in kinds or () if k.kind in ("int", "float", "bool"))
                kinds = kinds or (INT, BOOL, FLOAT)
            elif not kinds:
                kinds = DICT_LADDER
            names.append(f.name)
            choices.append(kinds)
        return tuple(
            ArgKind("struct", items=tuple(zip(names, combo, strict=True)), cls=cls)
            for combo in _ranked(choices, MAX_STRUCT_KINDS)
        )


_NNX_RNGS = ("flax.nnx.rnglib", "Rngs")  # flax nnx's key holder, made from an int seed
_UNION_TYPE = getattr(types, "UnionType", None)
_EMPTY = inspect.Parameter.empty


def _is_ellipsis(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is Ellipsis


@dataclass(frozen=True)
class StructField:
    """A constructor argument of a dataclass, NamedTuple or pytree class."""

    name: str
    annotation: Any  # source text, a runtime object, or _EMPTY
    required: bool  # no default
    # `field(metadata={"static": True})`, `eqx.field(static=True)`, `pytree_node=False`
    static: bool


def struct_fields(cls: type) -> list[StructField] | None:
    """The fields to build `cls` from, or None when it is not a class built from its fields.

    NamedTuples and dataclasses (`chex.dataclass`, `flax.struct.dataclass`, equinox Modules are
    dataclasses at runtime) by their fields; a dataclass with its own `__init__` (an equinox
    Module's) and a registered pytree class by its `__init__`'s annotated parameters.
    """
    if not isinstance(cls, type):
        return None
    fields = getattr(cls, "_fields", None) if issubclass(cls, tuple) else None
    if isinstance(fields, tuple):  # a NamedTuple
        annotations = getattr(cls, "__annotations__", {})
        defaults = getattr(cls, "_field_defaults", {})
        return [
            StructField(name, annotations.get(name, _EMPTY), name not in defaults, False)
            for name in fields
        ]
    try:
        init = [
            p
            for p in constructor_signature(cls).parameters.values()
            if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
        ]
    except (TypeError, ValueError):
        return None
    if dataclasses.is_dataclass(cls):
        declared = [f for f in dataclasses.fields(cls) if f.init]
        if [f.name for f in declared] == [p.name for p in init]:
            return [
                StructField(
                    f.name,
                    f.type,
                    f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING,
                    f.metadata.get("static") is True or f.metadata.get("pytree_node") is False,
                )
                for f in declared
            ]
    elif not is_registered_pytree(cls):
        return None  # another class's constructor may do anything: not called
    required = [p for p in init if p.default is p.empty]
    if any(p.kind == p.POSITIONAL_ONLY for p in required):
        return None
    if not required or any(p.annotation is p.empty for p in required):
        return None  # "whose `__init__` takes annotated fields": nothing to go on otherwise
    return [StructField(p.name, p.annotation, p.default is p.empty, False) for p in init]


def _jaxtyping_kind(head: str, index: ast.expr, dims: DimTable) -> tuple[ArgKind, ...] | None:
    if head in ("Key", "PRNGKeyArray"):
        return (KEY,)
    parts = index.elts if isinstance(index, ast.Tuple) else [index]
    if len(parts) != 2 or not isinstance(parts[1], ast.Constant):
        return None
    shape = _shape_from_dims(str(parts[1].value), dims)
    return (ArgKind("array", shape, _JAXTYPING_DTYPES[head]),)


def _shape_from_dims(spec: str, dims: DimTable) -> tuple[int, ...]:
    shape: list[int] = []
    for token in spec.split():
        token = token.lstrip("#")
        if token == "..." or token.startswith("*"):
            continue  # variadic dimensions: none
        if token.isdigit():
            shape.append(int(token))
        elif token.isidentifier():
            shape.append(4 if token == "_" else dims.size(token))
        else:
            shape.append(4)  # an expression like `n+1`: any size
    return tuple(shape)


def candidate_bindings(params: tuple[Param, ...], salt: int, limit: int) -> Iterator[Binding]:
    """Up to `limit` kind combinations, simplest first (lowest total ladder rank)."""
    choices: list[list[ArgKind | None]] = [list(p.candidates) or [None] for p in params]
    # Keep the product small: several-parameter functions get shorter ladders.
    while math.prod(len(c) for c in choices) > 5000:
        longest = max(choices, key=len)
        longest.pop()
    ranked = sorted(
        itertools.product(*(range(len(c)) for c in choices)),
        key=lambda ranks: (sum(ranks), max(ranks, default=0), ranks),
    )
    for ranks in ranked[:limit]:
        kinds = tuple(c[r] for c, r in zip(choices, ranks, strict=True))
        yield Binding(params, kinds, salt)


MAX_VARIANTS = 16


def variants(
    plan: Any, defaults: dict[str, list[Any]]
) -> Iterator[tuple[str, Binding | None, Binding, bool]]:
    """Variations of an accepted signature: (label, init, call, may run a loop zero times).

    Every axis size made 1 and long, loop axes (leading ones) made empty; float32 data made
    each of VARIANT_DTYPES; each defaulted parameter given the other values callers pass.
    """
    init, call = plan.init, plan.call
    both = [b for b in (init, call) if b is not None]
    sizes = list(dict.fromkeys(d for b in both for d in b.sizes()))
    leading = set().union(*(b.leading_sizes() for b in both))

    def vary(transform: Any) -> tuple[Binding | None, Binding]:
        return (transform(init) if init is not None else None), transform(call)

    found: list[tuple[str, Binding | None, Binding, bool]] = []
    for size in sizes:
        for new in (0, 1, LONG_AXIS):
            if new == size or (new == 0 and size not in leading):
                continue
            varied = vary(lambda b, size=size, new=new: b.resized(size, new))
            # a short axis may run a loop zero times (`range(1, n)` with n = 1)
            found.append((f"axis {size}→{new}", *varied, new in (0, 1)))
    if any(b.has_float32_data() for b in both):
        for dtype in VARIANT_DTYPES:
            found.append((f"{dtype} data", *vary(lambda b, dtype=dtype: b.retyped(dtype)), False))
    for name, values in defaults.items():
        if name not in call.defaulted():
            continue
        for value in values:
            with_value = call.with_value(name, value)
            found.append((f"{name}={value!r}", init, with_value, False))
    yield from found[:MAX_VARIANTS]
