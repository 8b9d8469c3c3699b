"""REPEATED_FRESH_JITS: `jax.jit` of a callable made anew (a lambda, a `partial`, a transform,
a nested def), evaluated repeatedly, so that each evaluation compiles again (JAX302); plus the
module-level facts JAX302 reads: which functions the module calls in loops, whether a nested def
escapes its function, and the names a function reads."""

from __future__ import annotations

import ast
import re

from jaxlint.analysis.ast_walk import statements, walk_ast
from jaxlint.analysis.host_queries import HostQuery
from jaxlint.analysis.jax_api import EAGER_TRANSFORMS, JIT_APIS
from jaxlint.analysis.names import dotted_ast
from jaxlint.analysis.scope import FunctionInfo, ModuleIndex

PARTIALS = frozenset({"functools.partial"})
# transforms that return a new function object each time they are called: `jax.jit(jax.vmap(f))`
# evaluated again is a new function to jit, traced and compiled again (measured: 3 loops, 3
# traces, for jit and pmap of a vmap and jit of a grad)
# (`jax.jvp`/`jax.vjp` compute at once and return no function)
WRAPPING_TRANSFORMS = (EAGER_TRANSFORMS - {"jax.jvp", "jax.vjp"}) | {"jax.checkpoint", "jax.remat"}
JIT_NAMES = frozenset(q.rsplit(".", 1)[1] for q in JIT_APIS)
JIT_TEXT = re.compile(rf"\b(?:{'|'.join(sorted(JIT_NAMES))})\b\s*[(,)#\r\n]")
# container methods that keep what they are given
STORING_METHODS = frozenset({"append", "extend", "insert", "setdefault", "add"})


def _names_a_jit(text: str, index: ModuleIndex, lines: range) -> bool:
    # the substring test first: the regular expression is slow to rule a module out
    return any(name in text for name in JIT_NAMES) and JIT_TEXT.search(text) is not None


def _repeated_fresh_jit(node: ast.AST, statement: ast.stmt, index: ModuleIndex) -> bool | int:
    """`jax.jit(<lambda, partial(...) or a name>)`, or a nested jitted def (whose unit is
    the top-level statement around it, where the loops are)."""
    if isinstance(node, ast.Call):
        func = node.func
        last = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
        if last not in JIT_NAMES or not node.args:
            return False
        made = node.args[0]
        fresh = (
            isinstance(made, ast.Lambda)
            or (
                isinstance(made, ast.Call)
                and index.imports.resolve(dotted_ast(made.func)) in PARTIALS | WRAPPING_TRANSFORMS
            )
            or (isinstance(made, ast.Name) and made.id in _nested_def_names(index))
        )
        return (
            fresh
            and _repeats(node, statement, index)
            and index.imports.resolve(dotted_ast(func)) in JIT_APIS
        )
    assert isinstance(node, ast.FunctionDef)  # the other of the query's node types
    nested = node is not statement and any(_jit_decorator(d, index) for d in node.decorator_list)
    return statement.lineno if nested else False


REPEATED_FRESH_JITS = HostQuery(
    "jits of fresh callables that repeat",
    (ast.Call, ast.FunctionDef),
    _repeated_fresh_jit,
    text=_names_a_jit,
)


def _repeats(call: ast.Call, statement: ast.stmt, index: ModuleIndex) -> bool:
    """Is the jit evaluated repeatedly: inside a loop, or called at once (`jax.jit(g)(x)`)
    in a function the module calls in a loop? (JAX302's own test, read on the `ast`, so
    that only such statements reach libcst.)"""
    parents = index.memoized(
        ("jax302-parents", id(statement)),
        lambda: {
            id(child): node for node in walk_ast(statement) for child in ast.iter_child_nodes(node)
        },
    )
    immediately_called = False
    node: ast.AST = call
    parent = parents.get(id(node))
    if isinstance(parent, ast.Call) and parent.func is call:
        immediately_called = True
    if _kept(call, parents):
        return False
    while parent is not None:
        if isinstance(parent, (ast.For, ast.While, ast.comprehension, ast.ListComp)):
            return True
        if isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return immediately_called and (
                parent.name in called_in_loops(index) or parent.name in index.looped_methods
            )
        node, parent = parent, parents.get(id(parent))
    return False


def _kept(call: ast.Call, parents: dict[int, ast.AST]) -> bool:
    """Is the jit stored into a container as it is made (`levels.append({"apply": jax.jit(f)})`,
    `fns[name] = jax.jit(...)`)? One per item, kept and reused: not made anew per use."""
    node: ast.AST = call
    parent = parents.get(id(node))
    while isinstance(parent, (ast.Dict, ast.List, ast.Tuple, ast.Set)):
        node, parent = parent, parents.get(id(parent))
    if isinstance(parent, ast.Assign) and parent.value is node:
        return any(isinstance(t, (ast.Subscript, ast.Attribute)) for t in parent.targets)
    return (
        isinstance(parent, ast.Call)
        and isinstance(parent.func, ast.Attribute)
        and parent.func.attr in STORING_METHODS
        and node is not parent.func
    )


def _nested_def_names(index: ModuleIndex) -> frozenset[str]:
    """Names of the defs nested in functions of the module."""
    return index.memoized(
        "jax302-nested",
        lambda: frozenset(f.name for f in index.functions if f.parent is not None),
    )


def _jit_decorator(decorator: ast.expr, index: ModuleIndex) -> bool:
    """`@jax.jit`, `@jax.jit(...)` or `@partial(jax.jit, ...)`."""
    func = decorator.func if isinstance(decorator, ast.Call) else decorator
    qualified = index.imports.resolve(dotted_ast(func))
    if qualified in JIT_APIS:
        return True
    return (
        qualified in PARTIALS
        and isinstance(decorator, ast.Call)
        and bool(decorator.args)
        and index.imports.resolve(dotted_ast(decorator.args[0])) in JIT_APIS
    )


def called_in_loops(index: ModuleIndex) -> frozenset[str]:
    """Names of functions (and methods, as `self.name`) the module calls inside a loop."""
    return index.memoized("jax302-called-in-loops", lambda: _names_called_in_loops(index.tree))


def called_in_a_loop(function: FunctionInfo, index: ModuleIndex) -> bool:
    """Does the module call `function` inside a loop, or, for a method, does a class of the
    project call a method of that name through `self` inside one? (A base class's driver loop,
    `for _ in range(n): y = self.inference_step(y)`, runs whatever a subclass in another module
    defines under that name.)"""
    if function.name in called_in_loops(index):
        return True
    return function.class_info is not None and function.name in index.looped_methods


SELF_CALL = re.compile(r"\bself\.(\w+)\s*\(")
# a comprehension on one line whose element calls a method of `self`
SELF_CALL_PER_ITEM = re.compile(r"\bself\.(\w+)\s*\(.*\bfor\b.*\bin\b")


METHOD_DEF = re.compile(r"^([ \t]+)def (\w+)\(\s*self\b", re.MULTILINE)


def methods_jitting_inside(text: str) -> set[str]:
    """Names of the methods (a `def` whose first parameter is `self`) whose body names a jit
    (`@jax.jit` on a nested def, `jax.jit(...)`): read from the text, for the check made again
    once the project index knows which methods are called in loops."""
    if not any(name in text for name in JIT_NAMES):
        return set()
    found = set()
    starts = list(METHOD_DEF.finditer(text))
    for number, match in enumerate(starts):
        indent = match.group(1)
        end = len(text)
        for later in starts[number + 1 :]:
            if len(later.group(1)) <= len(indent):
                end = later.start()
                break
        if JIT_TEXT.search(text, match.end(), end) is not None:
            found.add(match.group(2))
    return found


def methods_called_in_loops(tree: ast.Module, lines: list[str]) -> list[str]:
    """Names the module calls through `self` inside a loop (`self.step(...)` in a `for` or
    `while` body, or in a one-line comprehension), for the project index: what it collects of
    every module is `ModuleIndex.looped_methods`. Read from the loops' text (the statements are
    walked, not their expressions: every module of a project pays for this)."""
    if not any("self." in line for line in lines):
        return []
    names: set[str] = set()
    for statement in statements(tree):
        if isinstance(statement, (ast.For, ast.AsyncFor, ast.While)):
            first = statement.body[0].lineno if isinstance(statement, ast.For) else statement.lineno
            body = "".join(lines[first - 1 : statement.end_lineno])
            names.update(SELF_CALL.findall(body))
    for line in lines:
        if "self." in line and "for" in line:
            names.update(SELF_CALL_PER_ITEM.findall(line))
    return sorted(names)


def _names_called_in_loops(tree: ast.Module) -> frozenset[str]:
    names = set()
    for loop in walk_ast(tree):
        body: list[ast.AST] = []
        if isinstance(loop, (ast.For, ast.While)):
            body = list(loop.body)
        elif isinstance(loop, (ast.ListComp, ast.SetComp, ast.GeneratorExp)):
            body = [loop.elt]
        elif isinstance(loop, ast.DictComp):
            body = [loop.key, loop.value]
        for statement in body:
            for node in walk_ast(statement):
                if isinstance(node, ast.Call):
                    func = node.func
                    if isinstance(func, ast.Name):
                        names.add(func.id)
                    elif isinstance(func, ast.Attribute):
                        names.add(func.attr)
    return frozenset(names)


def escapes(name: str, function: FunctionInfo) -> bool:
    """Does `function` return its nested `name`, or store it (a factory, a cache): then it is
    built once and kept, not made anew for each use."""
    for node in walk_ast(function.node):
        if isinstance(node, ast.Return):
            kept: list[ast.AST] = [node.value] if node.value is not None else []
        elif isinstance(node, ast.Assign):
            stores = any(isinstance(t, (ast.Attribute, ast.Subscript)) for t in node.targets)
            kept = [node.value] if stores else []
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            kept = list(node.args) if node.func.attr in STORING_METHODS else []
        else:
            continue
        if any(_holds(value, name) for value in kept):
            return True
    return False


def _holds(value: ast.AST, name: str) -> bool:
    """Is `value` the function itself, a display holding it, or a transform of it not called
    (`jax.vmap(g)`)? (`jax.vmap(g)(x)` returns what it computed, not the function.)"""
    if isinstance(value, ast.Name):
        return value.id == name
    if isinstance(value, (ast.Tuple, ast.List, ast.Set)):
        return any(_holds(e, name) for e in value.elts)
    if isinstance(value, ast.Dict):
        return any(_holds(v, name) for v in value.values)
    if isinstance(value, ast.Call):
        return any(_holds(a, name) for a in value.args)
    return False


def names_used(function: FunctionInfo) -> set[str]:
    """Every name the function's code mentions, nested functions included (what a jit of it
    may capture, before its own names are taken away)."""
    return {n.id for n in walk_ast(function.node) if isinstance(n, ast.Name)}
