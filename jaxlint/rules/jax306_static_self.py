"""JAX306 static-self (opt-in): a jitted method with `self` static, on a class that is not
immutable: stale results, or a ValueError at the call."""

from __future__ import annotations

import ast

import libcst as cst

from jaxlint.analysis.jax_api import FILTERING_JITS, REFERENCE_SEMANTICS_APIS
from jaxlint.analysis.names import dotted_ast
from jaxlint.analysis.scope import ClassInfo, FunctionInfo, FunctionNode
from jaxlint.analysis.unit_summary import UnitSummary
from jaxlint.engine.requests import MethodToHelper
from jaxlint.engine.rule import Rule

DATACLASSES = frozenset({"dataclasses.dataclass", "chex.dataclass"})
# host callbacks: the function they are given runs on the host at every call, not in the trace
CALLBACKS = frozenset({"io_callback", "pure_callback", "callback", "id_tap"})
FROZEN_BY_DESIGN = frozenset(
    {"flax.struct.dataclass", "equinox.Module", "typing.NamedTuple", "flax.struct.PyTreeNode"}
)


class StaticSelf(Rule):
    code = "JAX306"
    name = "static-self"
    severity = "warning"
    fix_kind = "verified"
    opt_in = True
    summary = "jit with `self` static on a class that is not immutable: stale results or ValueError"

    @classmethod
    def may_apply(cls, unit: UnitSummary) -> bool:
        return any(f.class_info is not None for f in unit.jitted)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        info = self.context.function
        if info is None or info.class_info is None or not info.is_method or info.is_classmethod:
            return
        receiver = info.positional[0]
        for root in info.roots:
            if root.via != "decorator" or root.api in FILTERING_JITS | REFERENCE_SEMANTICS_APIS:
                continue
            if root.static_params is None or receiver not in root.static_params:
                continue
            problem = _mutability(info.class_info, receiver, info.name)
            if problem is None:
                continue
            function = info.node
            assert not isinstance(function, ast.Lambda)  # (it has decorators)
            assert isinstance(root.node, ast.expr)  # a decorator root's node is the decorator
            position = function.decorator_list.index(root.node)
            name = info.class_info.node.name
            self.report(
                node.decorators[position],
                f"`{receiver}` is static in the jit of `{name}.{info.name}`, but {problem}; "
                "jit a module-level helper that takes the attributes the method reads instead",
                fix=self.context.rewrite(MethodToHelper(node, root)),
            )


def _mutability(info: ClassInfo, receiver: str, method: str) -> str | None:
    """Why hashing an instance does not make a safe cache key for `method`, or None when it
    does."""
    decorators = set(info.decorator_names)
    if decorators & FROZEN_BY_DESIGN or set(info.base_names) & FROZEN_BY_DESIGN:
        return None
    for decorator, qualified in zip(info.node.decorator_list, info.decorator_names, strict=True):
        if qualified not in DATACLASSES:
            continue
        keywords = decorator.keywords if isinstance(decorator, ast.Call) else []
        if any(
            k.arg == "frozen" and isinstance(k.value, ast.Constant) and k.value.value is True
            for k in keywords
        ):
            return None
        return (
            "a `@dataclass` that is not frozen defines `__eq__` and sets `__hash__` to None: "
            "every call raises ValueError (Non-hashable static arguments are not supported)"
        )
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
    stale = sorted((writers.keys() & read) - computed)
    if stale:
        by = sorted({writers[a] for a in stale})
        return (
            f"`{'`, `'.join(stale)}` {'is' if len(stale) == 1 else 'are'} changed after "
            f"construction (by `{'`, `'.join(by)}`): the compiled code keeps the values it saw "
            "first, and later calls return stale results"
        )
    # identity hashing with attributes set only at construction compiles once per instance and
    # is correct (evosax's algorithms): a cost, not a wrong result
    return None


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
