"""JAX307 timing-without-sync: a wall-clock timing of JAX work that never waits for it."""

from __future__ import annotations

import libcst as cst

from jaxlint.analysis.cst_text import code_of
from jaxlint.analysis.host_queries.clocks import CLOCK_CALLS, CLOCKS, TIMEITS, calls_a_clock
from jaxlint.analysis.jax_api import ARRAY_NAMESPACES, JIT_APIS
from jaxlint.analysis.jit_members import WAITING_JITS, attribute_makers, returns_when_done
from jaxlint.analysis.project_view import ProjectView
from jaxlint.analysis.unit_summary import UnitSummary
from jaxlint.engine.edits import Edit, ImportSpec, Refusal
from jaxlint.engine.rule import Rule

# calls that wait for a JAX result (or read it to the host, which waits)
SYNCS = frozenset(
    {
        "jax.block_until_ready",
        "jax.device_get",
        "jax.effects_barrier",
        "numpy.asarray",
        "numpy.array",
        "builtins.float",
        "builtins.int",
        "builtins.bool",
        "builtins.print",
        "builtins.repr",
        "builtins.str",
    }
)
SYNC_METHODS = frozenset({"block_until_ready", "item", "tolist", "__array__"})
TRANSFORMS = frozenset({"jax.jit", "jax.pmap", "jax.vmap", "jax.grad", "jax.value_and_grad"})
LOOP_HELPERS = frozenset(
    {"builtins.range", "builtins.len", "builtins.enumerate", "builtins.zip", "builtins.reversed"}
)


class TimingWithoutSync(Rule):
    code = "JAX307"
    name = "timing-without-sync"
    severity = "warning"
    fix_kind = "safe"
    summary = "a clock stopped before the JAX work it times has finished: measures dispatch only"
    host_query = CLOCK_CALLS

    @classmethod
    def needs_finished_index(cls, text: str, project: ProjectView) -> bool:
        # `model.train_step(...)` timed: is it jitted in its module?
        members = project.async_members
        return any(f".{name}(" in text for name in members) and calls_a_clock(text)

    @classmethod
    def may_apply(cls, unit: UnitSummary) -> bool:
        return cls.code in unit.host_candidates

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self._block(list(node.body))

    def visit_Module(self, node: cst.Module) -> None:
        self._block(list(node.body))

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        last = func.attr.value if isinstance(func, cst.Attribute) else getattr(func, "value", None)
        if last not in ("timeit", "repeat") or not node.args:
            return  # most calls: no name lookup
        if self.context.resolve(func) not in TIMEITS:
            return
        timed = node.args[0].value
        if not isinstance(timed, cst.Lambda) or self.context.traced:
            return
        if not self._work(timed.body) or self._syncs(timed.body):
            return
        wrapped = self._wrap(timed.body)
        self.report(
            timed,
            f"`{code_of(node.func)}` times `{code_of(timed.body)}`, which only dispatches the "
            "JAX work: JAX returns before the result is computed, so this measures dispatch "
            "time; wait for the result with jax.block_until_ready",
            fix=Edit(
                replacements={timed.body: wrapped},
                description="time jax.block_until_ready(...) of the result",
                imports=(ImportSpec("jax"),),
            ),
        )

    def _block(self, statements: list[cst.BaseStatement]) -> None:
        if self.context.traced:
            return
        for start, statement in enumerate(statements):
            if not self._starts_clock(statement):
                continue
            stop = next(
                (j for j in range(start + 1, len(statements)) if self._reads_clock(statements[j])),
                None,
            )
            if stop is None or not isinstance(statements[stop], cst.SimpleStatementLine):
                continue  # a clock read inside a loop or branch: what runs before it is unknown
            region = statements[start + 1 : stop]
            # the clock stops right after JAX work and nothing else that might wait for it:
            # a user function or method in between may sync (a solver reading its residual)
            if not region or not self._ends_in_work(region[-1]):
                continue
            if any(self._syncs(s) for s in region):
                continue
            work = [region[-1]]
            self.report(
                statements[stop],
                "this clock stops right after JAX work was dispatched, not finished: JAX "
                "returns before computing, so the timing measures dispatch (a fraction of the "
                "compute time); wait with jax.block_until_ready(result) before reading the "
                "clock, and call the function once before timing it, so compilation is not "
                "timed either",
                fix=self._fix(work[-1]),
            )

    def _fix(self, statement: cst.BaseStatement) -> Edit | Refusal:
        if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
            return Refusal("the timed work is inside a block: wait for its last result by hand")
        small = statement.body[0]
        if isinstance(small, (cst.Assign, cst.Expr)) and small.value is not None:
            value = small.value
            if self._work(value):
                return Edit(
                    replacements={value: self._wrap(value)},
                    description="jax.block_until_ready(...) around the timed call",
                    imports=(ImportSpec("jax"),),
                )
        return Refusal("the last timed statement is not a call to wrap: wait for it by hand")

    def _wrap(self, value: cst.BaseExpression) -> cst.BaseExpression:
        wait = cst.Attribute(value=cst.Name("jax"), attr=cst.Name("block_until_ready"))
        if isinstance(value, cst.Tuple) and not value.lpar:  # `a, b` is one argument: `(a, b)`
            value = value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        return cst.Call(func=wait, args=[cst.Arg(value=value)])

    def _starts_clock(self, statement: cst.BaseStatement) -> bool:
        if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
            return False
        small = statement.body[0]
        return (
            isinstance(small, cst.Assign)
            and isinstance(small.value, cst.Call)
            and self.context.resolve(small.value.func) in CLOCKS
        )

    def _reads_clock(self, statement: cst.CSTNode) -> bool:
        return any(
            isinstance(n, cst.Call) and self.context.resolve(n.func) in CLOCKS
            for n in _walk(statement)
        )

    def _work(self, node: cst.CSTNode) -> bool:
        """Does it call a jitted function of this module or a JAX operation?"""
        return any(isinstance(c, cst.Call) and self._is_work(c) for c in _walk(node))

    def _ends_in_work(self, statement: cst.BaseStatement) -> bool:
        """Is the statement JAX work and nothing that may wait for it, or an `if` with an `else`
        each branch of which ends so (`if ...: data.shuffle(); p = step(p, b) else: p =
        step(p, d)`: whichever runs, the clock stops right after a dispatch)?"""
        if isinstance(statement, cst.If):
            orelse = statement.orelse
            if orelse is None:
                return False
            body = statement.body
            if not isinstance(body, cst.IndentedBlock) or not self._ends_in_work(body.body[-1]):
                return False
            if isinstance(orelse, cst.If):
                return self._ends_in_work(orelse)
            other = orelse.body
            return isinstance(other, cst.IndentedBlock) and self._ends_in_work(other.body[-1])
        return self._only_work(statement)

    def _only_work(self, node: cst.CSTNode) -> bool:
        """JAX work, and no call that might wait for it (only loop helpers besides)."""
        calls = [c for c in _walk(node) if isinstance(c, cst.Call)]
        return any(self._is_work(c) for c in calls) and all(
            self._is_work(c) or self.context.resolve(c.func) in LOOP_HELPERS | TRANSFORMS
            for c in calls
        )

    def _is_work(self, call: cst.Call) -> bool:
        qualified = self.context.resolve(call.func) or ""
        # JAX work, dispatched asynchronously (not `jax.process_index()`, `jax.tree.map`…)
        if qualified.startswith(ARRAY_NAMESPACES):
            return True
        if isinstance(call.func, cst.Call) and self.context.resolve(call.func.func) in TRANSFORMS:
            # `jax.jit(f)(x)`, `jax.vmap(f)(xs)`: work, unless `f` waits for itself
            wrapped = call.func.args[0].value if call.func.args else None
            if isinstance(wrapped, cst.Name):
                info = self.context.index.module_defs.get(wrapped.value)
                return info is None or not returns_when_done(info, self.context.index)
            return True
        if isinstance(call.func, cst.Attribute):
            return self._jitted_method(call.func) or self._project_member(call.func)
        return isinstance(call.func, cst.Name) and self._jitted_name(call.func)

    def _jitted_method(self, func: cst.Attribute) -> bool:
        """`self.train_step(...)`: a jitted method of the class, or an attribute every method
        that sets it binds to `jax.jit(...)` (`self.train_step = jax.jit(self._step)` in
        `__init__`), that returns before its result is computed."""
        if not (isinstance(func.value, cst.Name) and func.value.value == "self"):
            return False
        function = self.context.function
        while function is not None and function.class_info is None:
            function = function.parent
        if function is None or function.class_info is None:
            return False
        name, index = func.attr.value, self.context.index
        method = function.class_info.all_methods().get(name)
        if method is not None:
            return bool(method.roots) and not returns_when_done(method, index)
        made_by = attribute_makers(function.class_info.node, name, index)
        return bool(made_by) and all(m in JIT_APIS and m not in WAITING_JITS for m in made_by)

    def _project_member(self, func: cst.Attribute) -> bool:
        """`model.train_step(...)` on an object of another module: a member every class of the
        project that has one binds to a jitted callable that returns before it is done
        (`self.train_step = jax.jit(self.train_step)` in pinnsjax's `PINNModule.__init__`)."""
        receiver = func.value
        if isinstance(receiver, cst.Name) and receiver.value in ("self", "cls"):
            return False  # the class's own member: `_jitted_method`
        if self.context.resolve(func) is not None:
            return False  # a module's function (`utils.train_step`), not an object's member
        return func.attr.value in self.context.index.async_members

    def _jitted_name(self, name: cst.Name) -> bool:
        """A jitted module-level function or alias, or a local bound to `jax.jit(...)`, that
        returns before its result is computed."""
        index = self.context.index
        info = index.module_defs.get(name.value)
        targets = [info] if info is not None and info.roots else index.aliases.get(name.value)
        if targets:
            return not any(returns_when_done(t, index) for t in targets)
        if self.context.function is None:  # module level: `train_jit = jax.jit(train)`
            made_by = index.module_values.get(name.value)
            return made_by in JIT_APIS and made_by not in WAITING_JITS
        bindings = self.context.reaching_values(name)
        return bool(bindings) and all(
            isinstance(value, cst.Call)
            and self.context.resolve(value.func) in JIT_APIS
            and self.context.resolve(value.func) not in WAITING_JITS
            for _, value in bindings
        )

    def _syncs(self, node: cst.CSTNode) -> bool:
        for call in _walk(node):
            if not isinstance(call, cst.Call):
                continue
            if self.context.resolve(call.func) in SYNCS:
                return True
            if isinstance(call.func, cst.Attribute) and call.func.attr.value in SYNC_METHODS:
                return True
            name = code_of(call.func).rsplit(".", 1)[-1]
            if "block_until_ready" in name or "sync" in name:
                return True  # the project's own helper (`_block_until_ready(values)`)
        return False


def _walk(node: cst.CSTNode) -> list[cst.CSTNode]:
    found: list[cst.CSTNode] = []
    stack = [node]
    while stack:
        current = stack.pop()
        found.append(current)
        if not isinstance(current, (cst.FunctionDef, cst.ClassDef, cst.Lambda)) or current is node:
            stack.extend(current.children)
    return found
