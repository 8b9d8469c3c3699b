"""DISPLAYS_TO_STATIC_ARGS: calls of jitted functions with static parameters passing a display
or a call (a list where a tuple belongs), and `jax.vmap` of such a function, which may map a
static parameter (JAX304); plus the module facts behind them: which names' calls go through a
jit with static parameters, and which names the module calls."""

from __future__ import annotations

import ast

from jaxlint.analysis.host_queries import HostQuery
from jaxlint.analysis.names import dotted_ast
from jaxlint.analysis.scope import FunctionInfo, JitRoot, ModuleIndex

AST_DISPLAYS = (ast.List, ast.Set, ast.Dict, ast.ListComp, ast.SetComp, ast.DictComp)


def _names_a_static_callable(text: str, index: ModuleIndex, lines: range) -> bool:
    if "vmap" in text and has_static_methods(index):
        return True  # `jax.vmap(partial(self.move, ...))` may map a static parameter
    return any(name in text for name in static_callables(index))


def _display_to_static_args(node: ast.AST, statement: ast.stmt, index: ModuleIndex) -> bool:
    """A call of a module-level jitted function (or a jit alias) passing a display."""
    assert isinstance(node, ast.Call)  # (the query's node types)
    func = node.func
    if index.imports.resolve(dotted_ast(func)) == "jax.vmap":
        # `jax.vmap(partial(self.move, ...))`: its calls may map a static parameter
        return _maps_a_static_callable(node, index)
    if not isinstance(func, ast.Name) or not static_roots(func.id, index):
        return False
    values = [*node.args, *(k.value for k in node.keywords)]
    return any(isinstance(v, (*AST_DISPLAYS, ast.Call)) for v in values)


DISPLAYS_TO_STATIC_ARGS = HostQuery(
    "calls of static-arg jits passing displays",
    (ast.Call,),
    _display_to_static_args,
    text=_names_a_static_callable,
)


def _maps_a_static_callable(vmap: ast.Call, index: ModuleIndex) -> bool:
    """Does `jax.vmap(f, ...)` map a jitted function with static parameters: `f` (or the
    function a `partial` binds) a static callable of the module, or `self.<method>` of a class
    jitting a method with static parameters? A local name for `f` may be either."""
    mapped = vmap.args[0] if vmap.args else None
    if (
        isinstance(mapped, ast.Call)
        and index.imports.resolve(dotted_ast(mapped.func)) == "functools.partial"
        and mapped.args
    ):
        mapped = mapped.args[0]
    if isinstance(mapped, ast.Attribute):
        return has_static_methods(index)
    return isinstance(mapped, ast.Name) and (
        mapped.id in static_callables(index) or has_static_methods(index)
    )


def static_roots(name: str, index: ModuleIndex) -> list[tuple[FunctionInfo, JitRoot]]:
    """The jit roots calling `name` goes through, when they have static parameters: a
    decorated module-level function, or a `g = jax.jit(f, static_...)` alias."""
    found = []
    info = index.module_defs.get(name)
    if info is not None:
        found += [(info, r) for r in info.roots if r.via == "decorator" and r.static_params]
    for target in index.aliases.get(name, []):
        found += [(target, r) for r in target.roots if r.via == "call" and r.static_params]
    return [(i, r) for i, r in found if i.class_info is None]


def has_static_methods(index: ModuleIndex) -> bool:
    """Does a class of the module jit a method with static parameters by decorator?"""
    return index.memoized(
        "jax304-static-methods",
        lambda: any(
            r.via == "decorator" and r.static_params
            for class_info in index.classes.values()
            for method in class_info.methods.values()
            for r in method.roots
        ),
    )


def static_callables(index: ModuleIndex) -> frozenset[str]:
    """The names whose calls go through a jit with static parameters (`static_roots`)."""
    return index.memoized(
        "jax304-static-callables",
        lambda: frozenset(
            name for name in [*index.module_defs, *index.aliases] if static_roots(name, index)
        ),
    )


def called_in_module(name: str, index: ModuleIndex) -> bool:
    """Does the module call `name(...)`?"""
    called = index.memoized(
        "jax304-called",
        lambda: frozenset(
            node.func.id
            for node in ast.walk(index.tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
        ),
    )
    return name in called
