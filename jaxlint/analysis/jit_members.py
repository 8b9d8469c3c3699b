"""Jitted callables that return before their result is computed, and the members of a module's
classes that are such callables: what a timing of a call has to wait for (JAX307), asked of this
module and, for the classes of other modules, of the project index."""

from __future__ import annotations

import ast

from jaxlint.analysis.ast_walk import statements
from jaxlint.analysis.jax_api import JIT_APIS
from jaxlint.analysis.names import dotted_ast
from jaxlint.analysis.scope import FunctionInfo, ModuleIndex

WAITING_JITS = frozenset({"equinox.filter_jit"})
CALLBACKS = frozenset(
    {
        "jax.debug.print",
        "jax.debug.callback",
        "jax.pure_callback",
        "jax.experimental.io_callback",
        "jax.experimental.host_callback.id_tap",
        "jax.experimental.host_callback.call",
    }
)


def async_members(index: ModuleIndex) -> list[tuple[str, bool]]:
    """(name, jitted) for each method of the module's top-level classes and each attribute
    their methods bind: jitted when calling it starts a jitted computation and returns before
    it is done (a `@jax.jit` method, `self.train_step = jax.jit(self.train_step)`, `self.update
    = jax.jit(update)` in `__init__`), so a clock read right after the call measures dispatch."""
    found: list[tuple[str, bool]] = []
    for class_info in index.top_level_classes():
        node = class_info.node
        text = "".join(index.lines[node.lineno - 1 : node.end_lineno])
        if "jit" not in text and not index.jit_decorators:
            # a class whose text names no jit binds none: its methods are listed, not jitted
            found += [(name, False) for name in sorted(class_info.methods)]
            continue
        makers = _makers(node, index)
        for name in sorted(set(class_info.methods) | set(makers)):
            method = class_info.methods.get(name)
            if method is not None and method.roots:
                jitted = any(r.api in JIT_APIS for r in method.roots) and not returns_when_done(
                    method, index
                )
            else:
                made_by = makers.get(name, [])
                jitted = bool(made_by) and all(
                    m in JIT_APIS and m not in WAITING_JITS for m in made_by
                )
            found.append((name, jitted))
    return found


def returns_when_done(function: FunctionInfo, index: ModuleIndex) -> bool:
    """Does a call of this jitted function wait for its result? `eqx.filter_jit` blocks before
    returning (to raise `eqx.error_if` errors), and on CPU a computation with a host callback
    (`jax.debug.print`) returns only when it has run; not one whose callback is under a debug
    flag (`if args.debug:`: debugging is off in the runs that are timed)."""
    if any(root.api in WAITING_JITS for root in function.roots):
        return True
    seen, pending = set(), [function]
    while pending:  # the function, and the module's functions it calls or hands to lax
        current = pending.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        for node in _outside_debug_flags(current.node):
            if (
                isinstance(node, ast.Call)
                and index.imports.resolve(dotted_ast(node.func)) in CALLBACKS
            ):
                return True
            if isinstance(node, ast.Name) and node.id in index.module_defs:
                pending.append(index.module_defs[node.id])
    return False


def _outside_debug_flags(root: ast.AST) -> list[ast.AST]:
    """The nodes under `root` but those of `if` statements on a debug flag (`if args.debug:`,
    `if debug_mode:`); a `verbose` flag is often on, and its prints make the call wait."""
    found: list[ast.AST] = []
    stack = [root]
    while stack:
        node = stack.pop()
        found.append(node)
        if isinstance(node, ast.If) and "debug" in ast.unparse(node.test).lower():
            stack.append(node.test)
            stack.extend(node.orelse)
        else:
            stack.extend(ast.iter_child_nodes(node))
    return found


def attribute_makers(class_node: ast.ClassDef, name: str, index: ModuleIndex) -> list[str]:
    """What the class's methods bind `self.<name>` to: the qualified name of each call's
    function (`jax.jit`), or "" for a binding that is not a call."""
    return _makers(class_node, index).get(name, [])


def _makers(class_node: ast.ClassDef, index: ModuleIndex) -> dict[str, list[str]]:
    """`attribute_makers` of every attribute the class binds: one walk of the class."""

    def walk() -> dict[str, list[str]]:
        found: dict[str, list[str]] = {}
        for node in statements(class_node):
            if not isinstance(node, (ast.Assign, ast.AnnAssign)) or node.value is None:
                continue
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if not (
                    isinstance(target, ast.Attribute)
                    and isinstance(target.value, ast.Name)
                    and target.value.id == "self"
                ):
                    continue
                value = node.value
                called = ""
                if isinstance(value, ast.Call):
                    func = value.func
                    if isinstance(func, ast.Call) and func.args:  # `partial(jax.jit, ...)(f)`
                        made_by = index.imports.resolve(dotted_ast(func.func))
                        func = func.args[0] if made_by == "functools.partial" else func
                    called = index.imports.resolve(dotted_ast(func)) or ""
                found.setdefault(target.attr, []).append(called)
        return found

    return index.memoized(("attribute-makers", id(class_node)), walk)
