"""JAX305 loop-instead-of-vmap: host code that calls JAX once per row and stacks the results."""

from __future__ import annotations

from typing import TypeGuard

import libcst as cst

from jaxlint.analysis.cst_text import code_of
from jaxlint.analysis.cst_walk import subtree
from jaxlint.analysis.host_queries.row_loops import ROW_BY_ROW_WORK
from jaxlint.analysis.instance_state import array_attribute, stores_on_self
from jaxlint.analysis.jax_api import JIT_APIS
from jaxlint.analysis.names import target_names
from jaxlint.analysis.scope import FunctionInfo, calls_into
from jaxlint.analysis.unit_summary import UnitSummary
from jaxlint.analysis.values import Kind
from jaxlint.engine.edits import Edit, Refusal
from jaxlint.engine.requests import ComprehensionToVmap
from jaxlint.engine.rule import Rule, UnitContext
from jaxlint.rules._comprehensions import stacked_comprehension, stacks_rows
from jaxlint.rules._host_loops import (
    accumulation,
    appended_names,
    carried_names,
    item_totals,
    names_read,
    starts_empty,
    straight_line,
    work_parts,
)

KEY_DERIVERS = frozenset({"jax.random.split", "jax.random.fold_in"})
WORK_PREFIXES = ("jax.numpy.", "jax.lax.", "jax.nn.", "jax.scipy.", "jax.random.")


class LoopInsteadOfVmap(Rule):
    code = "JAX305"
    name = "loop-instead-of-vmap"
    severity = "info"
    fix_kind = "verified"
    summary = "host code calls JAX once per row and stacks: jax.vmap does it in one call"
    host_query = ROW_BY_ROW_WORK

    @classmethod
    def may_apply(cls, unit: UnitSummary) -> bool:
        return cls.code in unit.host_candidates

    def visit_Call(self, node: cst.Call) -> None:
        context = self.context
        if context.traced or context.function is None:
            return  # traced code: a comprehension over an array is JAX101's
        comprehension = stacked_comprehension(node, context)
        built_before = comprehension is None
        if comprehension is None:
            comprehension = self._stacked_list(node)
            if comprehension is None:
                return
        loop = comprehension.for_in
        rows = loop.iter
        if not self._array_rows(rows):
            return
        callee = self._jax_call(comprehension.elt)
        if callee is None:
            return
        target, arrays = code_of(loop.target), code_of(rows)
        zipped = _zipped(rows, self.context)
        # `for a, b in zip(A, B)` (a zip is a Call)
        if zipped and isinstance(loop.target, cst.Tuple) and isinstance(rows, cst.Call):
            target = ", ".join(code_of(e.value) for e in loop.target.elements)
            arrays = ", ".join(code_of(a.value) for a in rows.args)
        fix: Edit | Refusal | None
        if built_before:
            fix = Refusal("the list is built in another statement: compute it with jax.vmap there")
        elif zipped:
            fix = Refusal(
                "`zip` stops at the shorter array where `jax.vmap` needs equal lengths: "
                "rewrite it by hand where they are"
            )
        else:
            fix = self.context.rewrite(ComprehensionToVmap(node, comprehension))
        self.report(
            comprehension if built_before else node,  # (the stack may be far below)
            f"this calls `{callee}` once per row of `{code_of(rows)}` from Python — one "
            f"dispatch (or one trace) per row — and stacks the rows; `jax.vmap` computes them "
            f"in one call: `jax.vmap(lambda {target}: {code_of(comprehension.elt)})({arrays})`",
            fix=fix,
        )

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        context = self.context
        if context.traced or context.function is None:
            return
        statements = list(node.body)
        for position, statement in enumerate(statements):
            if isinstance(statement, cst.For) and statement.orelse is None:
                self._appending_loop(statement, statements[:position], statements[position + 1 :])
                self._accumulating_loop(statement)

    def _accumulating_loop(self, loop: cst.For) -> None:
        """`for i in range(len(x)): total += f(x[i])`, `probs = probs.at[b].add(w[i])`: a
        reduction over the rows of a JAX array, one dispatch (and often a host read) per row."""
        if not straight_line(loop):
            return
        carried = carried_names(loop)
        items = item_totals(loop)
        if len(carried) == 1 and not items:
            (total,) = carried
            update = accumulation(loop, total)
            if update is None:
                return
        elif len(items) == 1 and not carried:  # `grads["w"] += g / n`: a total per item
            (container,) = items
            if self.context.kind_at(cst.Name(container), loop) == Kind.ARRAY:
                return  # `counts[b] += ...` on a JAX array raises: JAX204's
            total, update = f"{container}[...]", "sum"
        else:
            return
        indexed = self._over_rows(loop) or (
            # a JAX array updated one index per iteration of a counted loop
            update == "scatter"
            and isinstance(loop.iter, cst.Call)
            and self.context.resolve(loop.iter.func) == "builtins.range"
            and self.context.kind_at(cst.Name(total), loop) == Kind.ARRAY
        )
        if not indexed:
            return
        callee = self._jax_call(loop.body)
        if callee is None and update != "scatter":
            return
        if update == "scatter":
            advice = (
                f"one `{total}.at[indices].add(values)` adds every row at once (repeated "
                "indices accumulate, as in the loop)"
            )
        else:
            advice = "`jnp.sum(jax.vmap(row_fn)(rows), axis=0)` computes and adds them in one call"
        self.report(
            loop,
            f"this loop adds one row's JAX result to `{total}` per iteration of "
            f"`{code_of(loop.iter)}` from Python — one dispatch per row; {advice}",
            end_node=loop.iter,
            fix=Refusal("a reduction written as a loop: rewrite it by hand as advised"),
        )

    def _over_rows(self, loop: cst.For) -> bool:
        """Does the loop walk the rows of a JAX array: its iterable, or `range(...)` with the
        index reading `x[i]` of an array `x`?"""
        if self._array_rows(loop.iter):
            return True
        if not (
            isinstance(loop.iter, cst.Call)
            and self.context.resolve(loop.iter.func) == "builtins.range"
            and isinstance(loop.target, cst.Name)
        ):
            return False
        index = loop.target.value
        return any(
            isinstance(node, cst.Subscript)
            and isinstance(node.value, cst.Name)
            and len(node.slice) == 1
            and isinstance(node.slice[0].slice, cst.Index)
            and names_read(node.slice[0].slice.value) == {index}
            and self._array_rows(node.value)
            for node in subtree(loop.body)
        )

    def _appending_loop(
        self,
        loop: cst.For,
        before: list[cst.BaseStatement],
        after: list[cst.BaseStatement],
    ) -> None:
        """`rows = []`, `for s in states: rows.append(f(s))`, then `jnp.array(rows)`: the
        comprehension written as a loop, one dispatch per row of a JAX array."""
        appended = appended_names(loop)
        if len(appended) != 1:
            return
        replicates = not self._array_rows(loop.iter)
        if replicates and not self._draws_per_iteration(loop):
            return
        (name,) = appended
        if not starts_empty(name, before) or not any(
            self._stacks(call, name)
            for statement in after
            for call in subtree(statement)
            if isinstance(call, cst.Call)
        ):
            return
        callee = next(
            (c for part in work_parts(loop, name) if (c := self._jax_call(part)) is not None),
            None,
        )
        if callee is None:
            return
        if replicates:  # `for b in range(n_boot)`: a fresh subkey per replicate
            message = (
                f"this loop draws with a new key and calls `{callee}` once per iteration of "
                f"`{code_of(loop.iter)}` from Python — one dispatch per replicate — appends to "
                f"`{name}` and stacks it; `jax.vmap` of the body as a function of the key, "
                "over `jax.random.split(key, n)`, computes all replicates in one call (with "
                "other, equally random draws)"
            )
        else:
            message = (
                f"this loop calls `{callee}` once per row of `{code_of(loop.iter)}` from "
                f"Python — one dispatch per row — appends to `{name}` and stacks it; "
                "`jax.vmap` of the loop body as a function of the row computes all rows in "
                "one call"
            )
        self.report(
            loop,
            message,
            end_node=loop.iter,
            fix=Refusal(
                "a loop that appends: write its body as a function of the row (or key) and "
                "jax.vmap it"
            ),
        )

    def _draws_per_iteration(self, loop: cst.For) -> bool:
        """`for b in range(n)` whose body splits a key (`key, sub = jax.random.split(key)`) or
        folds the index into one: Monte Carlo replicates (a bootstrap), independent of each
        other."""
        if not (
            isinstance(loop.iter, cst.Call)
            and self.context.resolve(loop.iter.func) == "builtins.range"
        ):
            return False
        keys: set[str] = set()  # names bound from a split: the one carry allowed
        for statement in loop.body.body:
            for small in getattr(statement, "body", ()):
                if (
                    isinstance(small, cst.Assign)
                    and isinstance(small.value, cst.Call)
                    and self.context.resolve(small.value.func) in KEY_DERIVERS
                ):
                    keys |= {n.value for t in small.targets for n in target_names(t.target)}
        draws = any(
            isinstance(node, cst.Call) and self.context.resolve(node.func) in KEY_DERIVERS
            for node in subtree(loop.body)
        )
        # a chain (`x = step(sub, x)` then `samples.append(x)`) is a scan, not replicates
        return draws and not (carried_names(loop) - keys)

    def _stacks(self, call: cst.Call, name: str) -> bool:
        first = call.args[0].value if call.args else None
        return (
            isinstance(first, cst.Name) and first.value == name and stacks_rows(call, self.context)
        )

    def _stacked_list(self, call: cst.Call) -> cst.ListComp | None:
        """The comprehension a name `call` stacks was bound to, when that binding is the only
        one reaching the call (`rows = [f(r) for r in x]` then `jnp.stack(rows)`)."""
        if not call.args or call.args[0].keyword or call.args[0].star:
            return None
        name = call.args[0].value
        if not isinstance(name, cst.Name) or not stacks_rows(call, self.context):
            return None
        reaching = self.context.reaching_values(name)
        if len(reaching) == 1 and reaching[0][0] == "assign":
            value = reaching[0][1]
            return value if isinstance(value, cst.ListComp) else None
        return None

    def _array_rows(self, rows: cst.BaseExpression) -> bool:
        """Is the comprehension's iterable a JAX array: a local known to hold one, a slice of
        one, or an attribute of `self` that the class only ever sets to JAX arrays
        (`self.locations = jax.device_put(locs)`)?"""
        context = self.context
        if _zipped(rows, context):  # `zip(A, B)`: the rows of arrays walked side by side
            return all(self._array_rows(a.value) for a in rows.args)
        while isinstance(rows, cst.Subscript) and all(
            isinstance(s.slice, cst.Slice) for s in rows.slice
        ):
            rows = rows.value
        if isinstance(rows, cst.Name):
            return context.kind_at(rows, rows) == Kind.ARRAY and not context.unproven_array(rows)
        function = context.function
        if (
            isinstance(rows, cst.Attribute)
            and isinstance(rows.value, cst.Name)
            and rows.value.value == "self"
            and function is not None
            and function.class_info is not None
        ):
            return array_attribute(function.class_info, rows.attr.value, context.index)
        return False

    def _jax_call(self, elt: cst.CSTNode) -> str | None:
        """The JAX work the element expression calls (a jitted function, a `jnp` op), if any."""
        index = self.context.index
        stack: list[cst.CSTNode] = [elt]
        while stack:
            current = stack.pop()
            if isinstance(current, cst.Call):
                qualified = self.context.resolve(current.func) or ""
                if qualified.startswith(WORK_PREFIXES):
                    return code_of(current.func)
                func = current.func
                if isinstance(func, cst.Attribute) and self.context.kind(func.value) == Kind.ARRAY:
                    return code_of(func)  # `r.mean()` of a row
                if isinstance(current.func, cst.Name):
                    name = current.func.value
                    info = self._function_named(name)
                    jitted = info is not None and any(r.api in JIT_APIS for r in info.roots)
                    if jitted or name in index.aliases:
                        return name
                    if info is not None and calls_into(info, index.imports, WORK_PREFIXES):
                        return name  # a helper of the project doing JAX work, eagerly
                method = self._jitted_method(func)
                if method is not None:
                    return method
            if not isinstance(current, (cst.Lambda, cst.FunctionDef)):
                stack.extend(current.children)
        return None

    def _function_named(self, name: str) -> FunctionInfo | None:
        """The function `name` calls here: a local `def` of an enclosing function, or one of
        the module."""
        scope = self.context.function
        while scope is not None:
            if name in scope.local_defs:
                return scope.local_defs[name]
            if name in scope.local_names:
                return None
            scope = scope.parent
        return self.context.index.module_defs.get(name)

    def _jitted_method(self, func: cst.BaseExpression) -> str | None:
        """`self.distance(...)` where the class's `distance` is jitted, or a method that does
        JAX work eagerly and keeps nothing on the object (`self.forward(params, row)`; one
        storing on `self`, or splitting `self.key`, is not a function of the row alone)."""
        method = self.context.own_method(func)
        if method is None:
            return None
        if any(r.api in JIT_APIS for r in method.roots):
            return code_of(func)
        index = self.context.index
        if calls_into(method, index.imports, WORK_PREFIXES) and not stores_on_self(method):
            return code_of(func)
        return None


def _zipped(rows: cst.BaseExpression, context: UnitContext) -> TypeGuard[cst.Call]:
    """Is `rows` `zip(A, B, ...)` of positional iterables?"""
    return (
        isinstance(rows, cst.Call)
        and context.resolve(rows.func) == "builtins.zip"
        and len(rows.args) >= 2
        and all(a.keyword is None and not a.star for a in rows.args)
    )
