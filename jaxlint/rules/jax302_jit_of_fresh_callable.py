"""JAX302 jit-of-fresh-callable: a jit of a callable made anew each time, so it compiles again."""

from __future__ import annotations

import ast
import re
from collections.abc import Set as AbstractSet

import libcst as cst

from jaxlint.analysis.ast_walk import walk_ast
from jaxlint.analysis.cst_text import code_of
from jaxlint.analysis.cst_walk import subtree as walk_cst
from jaxlint.analysis.cst_walk import walk
from jaxlint.analysis.jax_api import EAGER_TRANSFORMS, JIT_APIS
from jaxlint.analysis.names import dotted_ast, target_names
from jaxlint.analysis.scope import FunctionInfo, ModuleIndex
from jaxlint.analysis.unit_summary import UnitSummary
from jaxlint.engine.rule import Rule, UnitContext
from jaxlint.rules._codegen import names_in

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


class JitOfFreshCallable(Rule):
    code = "JAX302"
    name = "jit-of-fresh-callable"
    severity = "warning"
    fix_kind = "suggestion"
    summary = "jax.jit of a lambda, partial or nested def made anew per call: compiles every time"

    host_node_types = (ast.Call, ast.FunctionDef)

    @classmethod
    def host_text(cls, text: str, index: ModuleIndex, lines: range) -> bool:
        # the substring test first: the regular expression is slow to rule a module out
        return any(name in text for name in JIT_NAMES) and JIT_TEXT.search(text) is not None

    @classmethod
    def host_candidate(cls, node: ast.AST, statement: ast.stmt, index: ModuleIndex) -> bool | int:
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
                    and index.imports.resolve(dotted_ast(made.func))
                    in PARTIALS | WRAPPING_TRANSFORMS
                )
                or (isinstance(made, ast.Name) and made.id in _nested_def_names(index))
            )
            return (
                fresh
                and _repeats(node, statement, index)
                and index.imports.resolve(dotted_ast(func)) in JIT_APIS
            )
        assert isinstance(node, ast.FunctionDef)  # the other of host_node_types
        nested = node is not statement and any(
            _jit_decorator(d, index) for d in node.decorator_list
        )
        return statement.lineno if nested else False

    @classmethod
    def may_apply(cls, unit: UnitSummary) -> bool:
        return cls.code in unit.host_candidates

    def __init__(self, context: UnitContext) -> None:
        super().__init__(context)
        self._loops: list[FunctionInfo | None] = []  # the function each open loop is in
        self._loop_nodes: list[cst.For | cst.While] = []  # the open loops
        # per open loop: the names its target binds to items of a collection (not a count)
        self._items: list[set[str]] = []
        self._calls: set[int] = set()  # `jax.jit(...)` nodes called at once: `jax.jit(g)(x)`
        self._kept: set[int] = set()  # calls stored into a container as they are made

    def visit_For(self, node: cst.For) -> None:
        self._loops.append(self.context.function)
        self._loop_nodes.append(node)
        counted = isinstance(node.iter, cst.Call) and self.context.resolve(node.iter.func) in (
            "builtins.range",
        )
        self._items.append(set() if counted else {n.value for n in target_names(node.target)})

    def leave_For(self, original_node: cst.For) -> None:
        self._loops.pop()
        self._loop_nodes.pop()
        self._items.pop()

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._derive_items(node)

    def _derive_items(self, node: cst.Assign | cst.AnnAssign) -> None:
        """A name bound from the loop's item is the item too (`func = getattr(fns, name)`)."""
        if not self._items or not self._items[-1] or self._loops[-1] is not self.context.function:
            return
        if node.value is None or not names_in(node.value) & self._items[-1]:
            return
        targets = (
            [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
        )
        for target in targets:
            self._items[-1] |= {n.value for n in target_names(target)}

    def visit_While(self, node: cst.While) -> None:
        self._loops.append(self.context.function)
        self._loop_nodes.append(node)
        self._items.append(set())

    def leave_While(self, original_node: cst.While) -> None:
        self._loops.pop()
        self._loop_nodes.pop()
        self._items.pop()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        info = self.context.function
        if info is None or info.parent is None:
            return
        in_loop = self._in_loop_of(info.parent)
        # or made on every call of a function the module calls in a loop, and used there only
        # (`_weights(self, X)` jitting a nested solver, called once per `fit` iteration)
        if not in_loop and (
            info.parent.name not in _called_in_loops(self.context.index)
            or _escapes(info.name, info.parent.node)
        ):
            return
        if in_loop and self._items and _calls_any(node, self._items[-1]):
            return  # it calls the loop's item: another program per iteration (see visit_Call)
        for decorator in node.decorators:
            expression = decorator.decorator
            func = expression.func if isinstance(expression, cst.Call) else expression
            if self.context.resolve(func) in JIT_APIS or self._partial_of_jit(expression):
                used = {n.id for n in walk_ast(info.node) if isinstance(n, ast.Name)}
                captured = used - info.local_names - set(info.params)
                what = f"`@{code_of(expression)}` on `{node.name.value}`"
                self._report(decorator, what, info.parent, captured, in_loop)

    def visit_Assign(self, node: cst.Assign) -> None:
        if any(isinstance(t.target, (cst.Subscript, cst.Attribute)) for t in node.targets):
            self._keep(node.value)  # `fns[name] = jax.jit(...)`
        self._derive_items(node)

    def _keep(self, value: cst.BaseExpression) -> None:
        """Note the calls `value` stores as it is made (through list, tuple and dict displays)."""
        if isinstance(value, cst.Call):
            self._kept.add(id(value))
        elif isinstance(value, (cst.List, cst.Tuple, cst.Set)):
            for element in value.elements:
                self._keep(element.value)
        elif isinstance(value, cst.Dict):
            for entry in value.elements:
                if isinstance(entry, cst.DictElement):
                    self._keep(entry.value)

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value in STORING_METHODS:
            for argument in node.args:
                self._keep(argument.value)  # `levels.append({"apply": jax.jit(...)})`
        if isinstance(func, cst.Call):
            self._calls.add(id(func))
        last = func.attr.value if isinstance(func, cst.Attribute) else getattr(func, "value", None)
        if last not in JIT_NAMES or not node.args:
            return  # most calls: no name lookup
        context = self.context
        if context.resolve(func) not in JIT_APIS or id(node) in self._kept:
            return
        info = context.function
        if info is None and not self._loops:
            return  # once, at import
        if info is not None and (context.traced or info.name == "__init__"):
            return  # inlined into the enclosing trace / built once per instance
        callable_ = node.args[0].value
        fresh = self._fresh(callable_, info)
        if fresh is None:
            return
        # a def nested outside the loop is one function object for every iteration: a cache
        # hit; made anew only when the enclosing function runs again
        in_loop = self._in_loop_of(info) and not isinstance(callable_, cst.Name)
        if not in_loop and not (
            id(node) in self._calls
            and info is not None
            and info.name in _called_in_loops(self.context.index)
        ):
            # built once per call of a function nothing here calls repeatedly (a test, `main`),
            # or built and kept (a factory, a training loop's step)
            return
        made, captured = fresh
        if in_loop and self._wraps_per_iteration(callable_):
            # `kernel = make_kernel(i)` then `jax.jit(jax.vmap(kernel))`: another function
            # each iteration, each compiled once, which a hoisted jit could not share
            return
        if in_loop and self._items and _calls_any(callable_, self._items[-1]):
            # it calls the loop's item (`for alg in algorithms: jax.jit(lambda x: alg(x))`):
            # each iteration is another program, which a hoisted jit would compile as often
            return
        shown = code_of(callable_) if isinstance(callable_, cst.Name) else made
        what = f"`{code_of(node.func)}({shown})`"
        if isinstance(callable_, cst.Name):
            what += f" ({made})"
        self._report(node, what, info, captured, in_loop)

    def _fresh(
        self, callable_: cst.BaseExpression, info: FunctionInfo | None
    ) -> tuple[str, set[str]] | None:
        """How the callable is made anew each time it is evaluated, and the names it captures;
        None when it is not made anew."""
        if isinstance(callable_, cst.Lambda):
            params = {p.name.value for p in callable_.params.params}
            return "lambda ...", _read_names(callable_.body) - params
        if isinstance(callable_, cst.Call) and self.context.resolve(callable_.func) in PARTIALS:
            return "functools.partial(...)", set().union(
                *(_read_names(a.value) for a in callable_.args[1:])
            )
        if isinstance(callable_, cst.Call):
            transform = self.context.resolve(callable_.func)
            if transform in WRAPPING_TRANSFORMS:
                return f"{transform}(...)", set().union(
                    *(_read_names(a.value) for a in callable_.args)
                )
        if isinstance(callable_, cst.Name) and info is not None:
            for nested in self.context.index.functions:
                if nested.parent is info and nested.name == callable_.value:
                    used = {n.id for n in walk_ast(nested.node) if isinstance(n, ast.Name)}
                    own = nested.local_names | set(nested.params)
                    return f"a def nested in `{info.name}`", used - own
        return None

    def _wraps_per_iteration(self, callable_: cst.BaseExpression) -> bool:
        """Is the callable a transform of a function the innermost loop binds anew on each
        iteration (a name its body assigns or defines, or its target)?"""
        if not isinstance(callable_, cst.Call) or not callable_.args or not self._loop_nodes:
            return False
        wrapped = names_in(callable_.args[0].value)
        loop = self._loop_nodes[-1]
        bound: set[str] = set()
        if isinstance(loop, cst.For):
            bound |= {n.value for n in target_names(loop.target)}
        for node in walk_cst(loop.body):
            if isinstance(node, cst.FunctionDef):
                bound.add(node.name.value)
            elif isinstance(node, cst.AssignTarget):
                bound |= {n.value for n in target_names(node.target)}
        return bool(wrapped & bound)

    def _in_loop_of(self, info: FunctionInfo | None) -> bool:
        """Is there a loop around us in `info`'s own body (None: module level)?"""
        return any(function is info for function in self._loops)

    def _partial_of_jit(self, expression: cst.BaseExpression) -> bool:
        return (
            isinstance(expression, cst.Call)
            and self.context.resolve(expression.func) in PARTIALS
            and bool(expression.args)
            and self.context.resolve(expression.args[0].value) in JIT_APIS
        )

    def _report(
        self,
        node: cst.CSTNode,
        what: str,
        info: FunctionInfo | None,
        captured: AbstractSet[str] = frozenset(),
        in_loop: bool = True,
    ) -> None:
        if in_loop:
            where = "on every iteration of the loop"
        else:
            where = f"on every call of `{info.name}`" if info is not None else "each time"
        local = sorted(
            captured & (info.local_names | set(info.params)) if info is not None else set()
        )
        names = ", ".join(f"`{n}`" for n in local)
        them = "it as a parameter" if len(local) == 1 else "them as parameters"
        hoist = f" (it captures {names}: pass {them}, static ones via static_argnames)"
        hoist = hoist if local else ""
        self.report(
            node,
            f"{what} makes a new function {where}: jit caches compiled code per function "
            "object, so each one traces and compiles again (tens of ms or more each); define the "
            f"jitted function once at module level and call it{hoist}",
        )


def _repeats(call: ast.Call, statement: ast.stmt, index: ModuleIndex) -> bool:
    """Is the jit evaluated repeatedly: inside a loop, or called at once (`jax.jit(g)(x)`)
    in a function the module calls in a loop? (The rule's own test, read on the `ast`, so
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
            return immediately_called and parent.name in _called_in_loops(index)
        node, parent = parent, parents.get(id(parent))
    return False


def _calls_any(callable_: cst.CSTNode, names: set[str]) -> bool:
    """Does the callable call one of `names`, or a method of one (`alg(x)`, `partial(alg.step)`)?"""
    if not names:
        return False
    found = False

    class _Calls(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            nonlocal found
            root = node.func
            while isinstance(root, cst.Attribute):
                root = root.value
            if isinstance(root, cst.Name) and root.value in names:
                found = True
            if node is callable_ and node.args:  # `partial(alg.step, ...)`: its function
                first = node.args[0].value
                while isinstance(first, cst.Attribute):
                    first = first.value
                if isinstance(first, cst.Name) and first.value in names:
                    found = True

    walk(callable_, _Calls())
    return found


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


def _escapes(name: str, function: ast.AST) -> bool:
    """Does `function` return its nested `name`, or store it (a factory, a cache): then it is
    built once and kept, not made anew for each use."""
    for node in walk_ast(function):
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


def _called_in_loops(index: ModuleIndex) -> frozenset[str]:
    """Names of functions (and methods, as `self.name`) the module calls inside a loop."""
    return index.memoized("jax302-called-in-loops", lambda: _names_called_in_loops(index.tree))


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


def _read_names(node: cst.CSTNode) -> set[str]:
    """Names read in an expression (`jnp` of `jnp.linalg.solve`, not `linalg` or `solve`)."""
    found: set[str] = set()
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.Name):
            found.add(current.value)
        elif isinstance(current, (cst.Attribute, cst.Arg)):  # not `.attr`, not `keyword=`
            stack.append(current.value)
        else:
            stack.extend(current.children)
    return found


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
