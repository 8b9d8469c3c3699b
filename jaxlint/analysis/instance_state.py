"""What a class's methods do with the attributes of their instance, read on the `ast`: which a
public method changes after construction while a jitted method reads them (JAX306: a static
`self` then keys stale compiled code), which always hold JAX arrays, and whether a method stores
on its instance at all (JAX305)."""

from __future__ import annotations

import ast

from jaxlint.analysis.ast_walk import walk_ast
from jaxlint.analysis.jax_api import is_array_api
from jaxlint.analysis.names import dotted_ast
from jaxlint.analysis.scope import ClassInfo, FunctionInfo, FunctionNode, ModuleIndex

DATACLASSES = frozenset({"dataclasses.dataclass", "chex.dataclass"})
# host callbacks: the function they are given runs on the host at every call, not in the trace
CALLBACKS = frozenset({"io_callback", "pure_callback", "callback", "id_tap"})
FROZEN_BY_DESIGN = frozenset(
    {"flax.struct.dataclass", "equinox.Module", "typing.NamedTuple", "flax.struct.PyTreeNode"}
)


def frozen_by_design(info: ClassInfo) -> bool:
    """Is the class immutable by what it is (a flax struct, an equinox Module, a NamedTuple)?"""
    decorators = set(info.decorator_names)
    return bool(decorators & FROZEN_BY_DESIGN or set(info.base_names) & FROZEN_BY_DESIGN)


def dataclass_frozen(info: ClassInfo) -> bool | None:
    """For a `@dataclass` (its first dataclass decorator): is it `frozen=True`? None for a class
    no dataclass decorator makes."""
    for decorator, qualified in zip(info.node.decorator_list, info.decorator_names, strict=True):
        if qualified not in DATACLASSES:
            continue
        keywords = decorator.keywords if isinstance(decorator, ast.Call) else []
        return any(
            k.arg == "frozen" and isinstance(k.value, ast.Constant) and k.value.value is True
            for k in keywords
        )
    return None


def stale_attributes(info: ClassInfo, receiver: str, method: str) -> dict[str, str]:
    """The attributes `method` reads (itself or through the methods it calls) that a public
    method changes after construction, each with the first public method found changing it, in
    the attributes' order: the compiled code of a jit with `receiver` static keeps the values it
    saw first."""
    methods = info.all_methods()
    traced = _called_from(methods, [method], receiver)
    setup = _called_from(methods, ["__init__"], receiver)  # a base class's too
    read = {a for m in traced for a in _attributes(methods[m].node, receiver, ast.Load)}
    # what changes after construction: what the class's public methods (a setter, `fit`,
    # `load`, `reset`) assign, themselves or through the methods they call, unless they are
    # jitted and run this method inside their own trace (each trace then sees the new value)
    writers: dict[str, str] = {}  # attribute → the public method that changes it
    for name in methods:
        private = name.startswith("_") and name != "__call__"
        if private or name in setup or name in traced:
            continue
        reach = _called_from(methods, [name], receiver)
        if method in reach and methods[name].roots:
            continue  # a jitted method that sets it, then runs this one inside its own trace
        if method in _retraced_by(methods[name].node, methods, receiver):
            continue  # it hands the method a new static part with each change: a new trace
        for m in reach:
            for attribute in _changed(methods[m].node, methods, receiver):
                writers.setdefault(attribute, name)
    # a method the jitted one runs writes it: each trace computes the value it then reads
    computed = {a for m in traced for a in _attributes(methods[m].node, receiver, ast.Store)}
    return {a: writers[a] for a in sorted((writers.keys() & read) - computed)}


def _changed(node: FunctionNode, methods: dict[str, FunctionInfo], receiver: str) -> set[str]:
    """The attributes the method assigns, less those it only sets back to what they were:
    `x, self.epochs = self.train(x)` where `train` returns `..., self.epochs`."""
    round_trips: set[int] = set()  # id() of the targets that store such a value
    for statement in ast.walk(node):
        if not isinstance(statement, ast.Assign):
            continue
        returned = _returned_attributes(statement.value, methods, receiver)
        for target in statement.targets:
            if isinstance(target, (ast.Tuple, ast.List)):
                for position, element in enumerate(target.elts):
                    attribute = _self_attribute(element, receiver)
                    if attribute is not None and returned.get(position) == attribute:
                        round_trips.add(id(element))
    return {
        n.attr
        for n in ast.walk(node)
        if isinstance(n, ast.Attribute)
        and _self_attribute(n, receiver) is not None
        and isinstance(n.ctx, ast.Store)
        and id(n) not in round_trips
    }


def _returned_attributes(
    value: ast.expr | None, methods: dict[str, FunctionInfo], receiver: str
) -> dict[int, str]:
    """Position → `self.<attr>` that every `return` of the method `value` calls puts there
    (`self.train(x)` whose returns are all `return y, self.epochs` → {1: "epochs"})."""
    name = _self_attribute(value.func, receiver) if isinstance(value, ast.Call) else None
    if name is None or name not in methods:
        return {}
    called = methods[name].node
    returns = [r for r in _own_nodes(called) if isinstance(r, ast.Return)]
    returned = [r.value for r in returns if isinstance(r.value, ast.Tuple)]
    if not returns or len(returned) != len(returns):  # not every `return` gives a tuple
        return {}
    first = returned[0].elts
    found = {}
    for position, element in enumerate(first):
        attribute = _self_attribute(element, receiver)
        if attribute is not None and all(
            len(t.elts) == len(first) and _self_attribute(t.elts[position], receiver) == attribute
            for t in returned
        ):
            found[position] = attribute
    return found


def _retraced_by(
    writer: FunctionNode, methods: dict[str, FunctionInfo], receiver: str, depth: int = 3
) -> set[str]:
    """Methods the writer runs with a new flax `TrainState` (built in the writer with a new
    optimizer): its `tx` and `apply_fn` are static fields, hashed into the cache key, so the
    method is traced again on every run of the writer and reads the attributes then."""
    states = {
        target.id
        for statement in ast.walk(writer)
        if isinstance(statement, ast.Assign) and _makes_train_state(statement.value)
        for target in statement.targets
        if isinstance(target, ast.Name)
    }
    return _run_with(writer, states, methods, receiver, depth)


def _makes_train_state(value: ast.expr) -> bool:
    return (
        isinstance(value, ast.Call)
        and (dotted_ast(value.func) or "").endswith("TrainState.create")
        and any(k.arg == "tx" and isinstance(k.value, ast.Call) for k in value.keywords)
    )


def _run_with(
    node: FunctionNode,
    tainted: set[str],
    methods: dict[str, FunctionInfo],
    receiver: str,
    depth: int,
) -> set[str]:
    """Methods `node` calls (or hands to a transform) with an argument derived from `tainted`
    names, and those they run the same way with what they were given."""
    if not tainted or depth == 0:
        return set()
    tainted = set(tainted)
    for _ in range(2):  # `runner = (state, x)`, then `state, x = runner`: names it flows into
        for statement in _own_nodes(node):
            if isinstance(statement, ast.Assign) and _names(statement.value) & tainted:
                for target in statement.targets:
                    tainted |= _names(target)
    found: set[str] = set()
    for call in _own_nodes(node):
        if not isinstance(call, ast.Call):
            continue
        arguments = [*call.args, *(k.value for k in call.keywords)]
        if not any(_names(a) & tainted for a in arguments):
            continue
        for name in _attributes(call, receiver, ast.Load) & methods.keys():
            if name in found:
                continue
            found.add(name)
            inner = methods[name]
            found |= _run_with(
                inner.node,
                set(inner.positional[1:]),
                methods,
                receiver,
                depth - 1,
            )
    return found


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _own_nodes(function: ast.AST) -> list[ast.AST]:
    """The nodes of a function's body outside nested functions and classes."""
    found = []
    pending = list(ast.iter_child_nodes(function))
    while pending:
        node = pending.pop()
        found.append(node)
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            pending += ast.iter_child_nodes(node)
    return found


def _self_attribute(node: ast.AST, receiver: str) -> str | None:
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return node.attr if node.value.id == receiver else None
    return None


def _called_from(methods: dict[str, FunctionInfo], roots: list[str], receiver: str) -> set[str]:
    """`roots` and the methods they call (or pass on) through `self.name`, transitively."""
    seen: set[str] = set()
    pending = [r for r in roots if r in methods]
    while pending:
        name = pending.pop()
        if name in seen:
            continue
        seen.add(name)
        pending += [c for c in _self_calls(methods[name].node, receiver) if c in methods]
    return seen


def _self_calls(node: ast.AST, receiver: str) -> set[str]:
    """Names of `self.<name>` the method uses: the methods it calls, or hands to a
    `lax.scan`, a `partial`, a jit, and the properties it assigns, which run their setters
    (`_called_from` keeps those that are methods). Not a method handed to a host callback
    (`io_callback(self._save, ...)`): it runs on the host at every call, reading `self` then."""
    used = _attributes(node, receiver, ast.Load) | _attributes(node, receiver, ast.Store)
    return used - _callback_methods(node, receiver)


def _callback_methods(node: ast.AST, receiver: str) -> set[str]:
    return {
        call.args[0].attr
        for call in ast.walk(node)
        if isinstance(call, ast.Call)
        and (dotted_ast(call.func) or "").rsplit(".", 1)[-1] in CALLBACKS
        and call.args
        and isinstance(call.args[0], ast.Attribute)
        and _self_attribute(call.args[0], receiver) is not None
    }


def _attributes(node: ast.AST, receiver: str, context: type[ast.expr_context]) -> set[str]:
    """`self.<attr>` read (Load) or assigned (Store, `+=` included) in a method."""
    return {
        n.attr
        for n in ast.walk(node)
        if isinstance(n, ast.Attribute)
        and _self_attribute(n, receiver) is not None
        and isinstance(n.ctx, context)
    }


def array_attribute(class_info: ClassInfo, attribute: str, index: ModuleIndex) -> bool:
    """Does every `self.<attribute> = ...` in the class's methods store a JAX array (a call
    into `jax.numpy`/`jax.random`/`jax.device_put`), and is there one?"""
    values = [
        node.value
        for method in class_info.all_methods().values()
        for node in ast.walk(method.node)
        if isinstance(node, ast.Assign)
        and any(
            isinstance(t, ast.Attribute)
            and t.attr == attribute
            and isinstance(t.value, ast.Name)
            and t.value.id == "self"
            for t in node.targets
        )
    ]
    return bool(values) and all(
        isinstance(v, ast.Call)
        and (
            is_array_api(resolved := index.imports.resolve(dotted_ast(v.func)) or "")
            or resolved == "jax.device_put"
        )
        for v in values
    )


def stores_on_self(method: FunctionInfo) -> bool:
    """Does the method assign an attribute of its `self` (`self.key, k = split(self.key)`)?"""
    receiver = method.positional[0] if method.positional else None
    return receiver is not None and any(
        isinstance(node, ast.Attribute)
        and isinstance(node.ctx, ast.Store)
        and isinstance(node.value, ast.Name)
        and node.value.id == receiver
        for node in walk_ast(method.node)
    )
