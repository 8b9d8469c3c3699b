"""Draws that are alternatives: two calls whose results reach only opposite arms of selections on
one condition (`jnp.where(nu >= 1, pois_y, geo_y)`, `lax.select`, the branches of `lax.cond`
or `lax.switch`). Whatever the condition, each result the code keeps comes from one of them, so
a key they share gives no two kept numbers from the same bits.

Flow-insensitive over one function's `ast`: a name holds what a draw produced if an assignment
in the function binds it from the draw or from a name that does; every other read of such a
name must sit inside one arm.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from jaxlint.analysis.ast_walk import walk_ast
from jaxlint.analysis.names import ImportTable, dotted_ast

# selections: qualified name → how their arms are given ("values": args 1 and 2 are the arms;
# "functions": args 1 and 2 are branch functions; "branches": args[1] is a sequence of them)
SELECTIONS = {
    "jax.numpy.where": "values",
    "jax.lax.select": "values",
    "jax.lax.cond": "functions",
    "jax.lax.switch": "branches",
}

Arm = tuple[str, int]  # (the condition's text, which arm)


class Selections:
    """The selections of one scope (its `jnp.where`s, `lax.cond`s…), read once, asked about
    each pair of draws that share a key."""

    def __init__(self, scope: ast.AST, imports: ImportTable) -> None:
        self.scope = scope
        self.parents = {
            id(child): node for node in ast.walk(scope) for child in ast.iter_child_nodes(node)
        }
        self.arms = _arms(scope, imports)

    def alternatives(self, first: ast.Call, second: ast.Call) -> bool:
        """Do the results of `first` and `second` reach only opposite arms of selections that
        all test one condition?"""
        if not self.arms:
            return False
        reached = []
        for call in (first, second):
            found = set()
            for use in _uses(self.scope, call, self.parents, self.arms):
                arm = _arm_of(use, self.parents, self.arms)
                if arm is None:
                    return False
                found.add(arm)
            if not found:
                return False
            reached.append(found)
        conditions = {condition for found in reached for condition, _ in found}
        return len(conditions) == 1 and not (reached[0] & reached[1])


def _arms(scope: ast.AST, imports: ImportTable) -> dict[int, Arm]:
    """Each arm's root node → (condition, arm index), for the selections in `scope`."""
    found: dict[int, Arm] = {}
    # a branch given by name is a `def` of the scope (`lax.cond(p, add_noise, keep, x)`)
    defs = {
        node.name: node
        for node in walk_ast(scope)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node is not scope
    }

    def body_of(branch: ast.expr) -> ast.AST | None:
        if isinstance(branch, ast.Lambda):
            return branch.body
        if isinstance(branch, ast.Name):
            return defs.get(branch.id)
        return None

    for node in walk_ast(scope):
        if not isinstance(node, ast.Call) or len(node.args) < 2:
            continue
        kind = SELECTIONS.get(imports.resolve(dotted_ast(node.func)) or "")
        if kind is None or any(isinstance(a, ast.Starred) for a in node.args[:3]):
            continue
        condition = ast.dump(node.args[0])
        if kind == "branches":
            branches = node.args[1]
            if isinstance(branches, (ast.List, ast.Tuple)):
                for index, branch in enumerate(branches.elts):
                    body = body_of(branch)
                    if body is not None:
                        found[id(body)] = (condition, index)
        elif len(node.args) >= 3:
            for index, arm in enumerate(node.args[1:3]):
                root: ast.AST = arm
                if kind == "functions":
                    body = body_of(arm)
                    if body is None:
                        break
                    root = body
                found[id(root)] = (condition, index)
    return found


def _uses(
    scope: ast.AST, call: ast.Call, parents: dict[int, ast.AST], arms: dict[int, Arm]
) -> Iterator[ast.AST]:
    """Where what `call` produced is read: the call itself when no assignment binds it, and
    every read of a name bound from it, through assignments that pass it on (a read inside a
    selection's arm is a use there: what the selection returns holds only one arm)."""
    statement = _assignment_of(call, parents)
    if statement is None or _arm_of(call, parents, arms) is not None:
        yield call
        return
    held = _target_names(statement)
    carriers = {id(statement)}
    assignments = [n for n in walk_ast(scope) if isinstance(n, (ast.Assign, ast.AnnAssign))]
    changed = True
    while changed:
        changed = False
        for assignment in assignments:
            if id(assignment) in carriers or assignment.value is None:
                continue
            read = {
                n.id
                for n in walk_ast(assignment.value)
                if isinstance(n, ast.Name) and _arm_of(n, parents, arms) is None
            }
            if read & held:
                carriers.add(id(assignment))
                held |= _target_names(assignment)
                changed = True
    for node in walk_ast(scope):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in held:
            carrier = _assignment_of(node, parents)
            if (
                carrier is None
                or id(carrier) not in carriers
                or _arm_of(node, parents, arms) is not None
            ):
                yield node


def _assignment_of(node: ast.AST, parents: dict[int, ast.AST]) -> ast.Assign | ast.AnnAssign | None:
    """The plain assignment whose value holds `node`."""
    child, parent = node, parents.get(id(node))
    while parent is not None and not isinstance(parent, ast.stmt):
        child, parent = parent, parents.get(id(parent))
    if isinstance(parent, (ast.Assign, ast.AnnAssign)) and child is parent.value:
        return parent
    return None


def _target_names(statement: ast.Assign | ast.AnnAssign) -> set[str]:
    targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
    return {n.id for t in targets for n in walk_ast(t) if isinstance(n, ast.Name)}


def _arm_of(node: ast.AST, parents: dict[int, ast.AST], arms: dict[int, Arm]) -> Arm | None:
    current: ast.AST | None = node
    while current is not None:
        if id(current) in arms:
            return arms[id(current)]
        current = parents.get(id(current))
    return None
