"""A shape solver for example inputs (SPEC §5 step 2): consistent shapes for coupled parameters.

The ladder of jaxlint.verify.inputs gives every array parameter one of a few shapes built from
the same named dims; with several shape-coupled matrices (`jnp.tanh(x @ W1 + b1) @ W2 + b2`,
`q @ k.T`, `X[:, i] * w[i]`) no combination may fit, or only broadcasting ones. Here ranks and
dims are unknowns, constrained by the target's body as read by a small abstract interpreter:

- `a @ b`, `jnp.dot`, `jnp.matmul`: a's last dim is b's first-of-last-two; `jnp.einsum` by its
  subscripts (exact ranks, one dim per letter); `.T` and `jnp.transpose` reverse the dims;
- `x.shape[i]` and `x[i]`, `x[:, j]` need a rank above the index; `n, d = x.shape` fixes it;
- elementwise operators and `jnp.where`/`maximum`/… broadcast their operands, aligned right, with
  dims made equal (not 1: realistic inputs); `jnp.concatenate` equal except on its axis;
- values flow through local assignments (`h = x @ W1 + b1` gives `h` a symbolic shape), and
  `params["W"]` gives each key of a parameter dict its own shape.

Ranks are found by a fixpoint over a few passes (a parameter used only elementwise beside a
computed value gets rank 1, a bias; matrices of `@` rank 2, a lower-case right operand rank 1),
then a few alternatives each with one parameter's rank changed. Dims are unified (union-find)
and given small distinct sizes. Each assignment is checked with `jax.eval_shape` (tracing only,
no compile) before find_plans runs the original on it; the number of candidates, eval_shape
calls and the time spent are bounded.
"""

from __future__ import annotations

import ast
import contextlib
import inspect
import io
import linecache
import textwrap
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import jax

from jaxlint.analysis.jax_api import BROADCASTING_NAMES, REDUCTION_NAMES, SHAPE_PRESERVING_NAMES
from jaxlint.analysis.names import ast_int_literal
from jaxlint.verify.inputs import ARRAY_LADDER, CALL_LADDER, INT, ArgKind, Binding, Param
from jaxlint.verify.namespace import last_name

MAX_CANDIDATES = 8  # assignments returned
MAX_PROBES = 12  # jax.eval_shape calls per target
TIME_BUDGET_S = 3.0
_PASSES = 8
# Sizes for the dim classes, in order of first appearance: distinct, none 1; the ladder's named
# dims first (n = 7, d = 3, k = 4), so `X: float32[7,3], w: float32[3]` reads the same.
SIZES = (7, 3, 4, 5, 6, 2, 8, 9, 10, 11)


class _Dim:
    """A symbolic axis size (union-find node), optionally fixed to a size."""

    __slots__ = ("parent", "size")

    def __init__(self, size: int | None = None) -> None:
        self.parent: _Dim | None = None
        self.size = size

    def root(self) -> _Dim:
        node = self
        while node.parent is not None:
            node = node.parent
        return node


Shape = tuple[_Dim, ...]


@dataclass
class _Val:
    """An abstract value: its shape (None: unknown or a Python scalar) and the parameter it is."""

    shape: Shape | None
    param: str | None = None
    indexed: tuple[str, int] | None = None  # `x[i]`: the parameter and the axes indexed away


@dataclass
class _Evidence:
    """What one pass learnt about each parameter's rank."""

    used: set[str] = field(default_factory=set)  # used as an array
    minimum: dict[str, int] = field(default_factory=dict)
    exact: dict[str, int] = field(default_factory=dict)
    suggested: dict[str, int] = field(default_factory=dict)
    conflict: bool = False  # two fixed sizes unified

    def at_least(self, value: _Val, rank: int) -> None:
        param, rank = _source(value, rank)
        if param is not None:
            self.used.add(param)
            self.minimum[param] = max(self.minimum.get(param, 0), rank)

    def suggest(self, value: _Val, rank: int) -> None:
        param, rank = _source(value, rank)
        if param is not None:
            self.used.add(param)
            self.suggested.setdefault(param, rank)


def _source(value: _Val, rank: int) -> tuple[str | None, int]:
    """The parameter a rank requirement is on: `x[i]` of rank r needs x of rank r + 1."""
    if value.param is not None:
        return value.param, rank
    if value.indexed is not None:
        return value.indexed[0], rank + value.indexed[1]
    return None, rank


class _Interpreter:
    """One pass over the body with the parameters' ranks fixed: evidence and unified dims."""

    def __init__(
        self,
        names: set[str],
        dict_names: set[str],
        ranks: dict[str, int],
        fixed: dict[str, tuple[int, ...]],
    ) -> None:
        self.names, self.dict_names = names, dict_names
        self.ranks, self.fixed = ranks, fixed
        self.shapes: dict[str, Shape] = {}
        self.env: dict[str, _Val] = {}
        self.indexed: dict[str, _Dim] = {}  # an integer index name → the axis it indexes
        self.loop_depth = 0
        self.evidence = _Evidence()

    # parameters ---------------------------------------------------------------------------
    def param(self, name: str) -> _Val:
        if name not in self.shapes:
            if name in self.fixed:
                self.shapes[name] = tuple(_Dim(size) for size in self.fixed[name])
            else:
                self.shapes[name] = tuple(_Dim() for _ in range(self.ranks.get(name, 1)))
        return _Val(self.shapes[name], name)

    def unify(self, a: _Dim, b: _Dim) -> None:
        ra, rb = a.root(), b.root()
        if ra is rb:
            return
        if ra.size is not None and rb.size is not None and ra.size != rb.size:
            self.evidence.conflict = True
            return
        if rb.size is None:
            rb.size = ra.size
        ra.parent = rb

    # statements ---------------------------------------------------------------------------
    def run(self, body: list[ast.stmt]) -> None:
        for stmt in body:
            try:
                self.statement(stmt)
            except (RecursionError, ValueError, TypeError, IndexError):
                continue

    def statement(self, stmt: ast.stmt) -> None:
        if isinstance(stmt, ast.Assign) and _pairwise(stmt):
            # `x, P = x0, P0`: each name its own value (all read before any is bound)
            sources = stmt.value.elts  # type: ignore[attr-defined]  # a tuple (`_pairwise`)
            targets = stmt.targets[0].elts  # type: ignore[attr-defined]  # a tuple (`_pairwise`)
            values = [self.expr(v) for v in sources]
            for target, value, source in zip(targets, values, sources, strict=True):
                self.bind(target, value, source)
        elif isinstance(stmt, ast.Assign):
            value = self.expr(stmt.value)
            for target in stmt.targets:
                self.bind(target, value, stmt.value)
        elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
            self.bind(stmt.target, self.expr(stmt.value), stmt.value)
        elif isinstance(stmt, ast.AugAssign):
            left = self.expr(stmt.target)
            result = self.binop(stmt.op, left, self.expr(stmt.value))
            self.bind(stmt.target, result, stmt.value)
        elif isinstance(stmt, (ast.Return, ast.Expr)) and stmt.value is not None:
            self.expr(stmt.value)
        elif isinstance(stmt, (ast.If, ast.While)):
            self.expr(stmt.test)
            looping = isinstance(stmt, ast.While)
            self.loop_depth += looping
            self.run(stmt.body)
            self.loop_depth -= looping
            self.run(stmt.orelse)
        elif isinstance(stmt, ast.For):
            self.expr(stmt.iter)
            self.forget(stmt.target)
            self.loop_depth += 1
            self.run(stmt.body)
            self.loop_depth -= 1
            self.run(stmt.orelse)
        elif isinstance(stmt, (ast.With, ast.Try)):
            self.run(stmt.body)

    def forget(self, target: ast.expr) -> None:
        for node in ast.walk(target):
            if isinstance(node, ast.Name):
                self.env[node.id] = _Val(None)

    def bind(self, target: ast.expr, value: _Val, source: ast.expr) -> None:
        if isinstance(target, ast.Name):
            previous = self.env.get(target.id)
            if (
                self.loop_depth
                and previous is not None
                and previous.shape
                and value.shape
                and len(previous.shape) == len(value.shape)
            ):
                # a loop carry (`x = F @ x`) keeps its shape from one iteration to the next
                for old, new in zip(previous.shape, value.shape, strict=True):
                    self.unify(old, new)
            # a local: no longer the parameter itself, but requirements on its rank still are
            indexed = (value.param, 0) if value.param is not None else value.indexed
            self.env[target.id] = _Val(value.shape, indexed=indexed)
        elif isinstance(target, (ast.Tuple, ast.List)):
            # `n, d = x.shape`: x has exactly that rank
            if (
                isinstance(source, ast.Attribute)
                and source.attr == "shape"
                and not any(isinstance(t, ast.Starred) for t in target.elts)
            ):
                owner = self.expr(source.value)
                if owner.param is not None:
                    self.evidence.used.add(owner.param)
                    self.evidence.exact.setdefault(owner.param, len(target.elts))
            self.forget(target)

    # expressions --------------------------------------------------------------------------
    def expr(self, node: ast.expr) -> _Val:
        if isinstance(node, ast.Name):
            if node.id in self.env:
                return self.env[node.id]
            if node.id in self.names and node.id not in self.dict_names:
                return self.param(node.id)
            return _Val(None)
        if isinstance(node, ast.BinOp):
            return self.binop(node.op, self.expr(node.left), self.expr(node.right))
        if isinstance(node, ast.UnaryOp):
            return self.expr(node.operand)
        if isinstance(node, ast.Attribute):
            return self.attribute(node)
        if isinstance(node, ast.Subscript):
            return self.subscript(node)
        if isinstance(node, ast.Call):
            return self.call(node)
        if isinstance(node, ast.IfExp):
            self.expr(node.test)
            return self.broadcast(self.expr(node.body), self.expr(node.orelse))
        if isinstance(node, ast.Compare):
            value = self.expr(node.left)
            for other in node.comparators:
                value = self.broadcast(value, self.expr(other))
            return value
        for child in ast.iter_child_nodes(node):  # tuples, lists, bool ops: evidence inside
            if isinstance(child, ast.expr):
                self.expr(child)
        return _Val(None)

    def attribute(self, node: ast.Attribute) -> _Val:
        if node.attr == "T" or node.attr == "mT":
            value = self.expr(node.value)
            self.evidence.at_least(value, 2)
            self.evidence.suggest(value, 2)
            if value.shape is None:
                return _Val(None)
            if node.attr == "mT":
                return _Val(value.shape[:-2] + value.shape[-2:][::-1])
            return _Val(value.shape[::-1])
        if node.attr in ("shape", "ndim", "size", "dtype"):
            value = self.expr(node.value)
            if value.param is not None:
                self.evidence.used.add(value.param)
            return _Val(None)
        self.expr(node.value)
        return _Val(None)

    def subscript(self, node: ast.Subscript) -> _Val:
        index = node.slice
        if isinstance(node.value, ast.Name) and node.value.id in self.dict_names:
            if isinstance(index, ast.Constant) and isinstance(index.value, str):
                return self.param(f"{node.value.id}[{index.value!r}]")
            return _Val(None)
        # `x.shape[i]`: rank above i
        if isinstance(node.value, ast.Attribute) and node.value.attr == "shape":
            owner = self.expr(node.value.value)
            i = ast_int_literal(index)
            if i is not None:
                self.evidence.at_least(owner, i + 1 if i >= 0 else -i)
            return _Val(None)
        value = self.expr(node.value)
        parts = list(index.elts) if isinstance(index, ast.Tuple) else [index]
        consumed = sum(1 for p in parts if not _is_none(p) and not _is_ellipsis(p))
        if any(self.is_array_index(p) for p in parts):
            self.evidence.at_least(value, 1)
            return _Val(None)  # fancy indexing: the result's shape is not followed
        self.evidence.at_least(value, consumed)
        if value.shape is None or len(value.shape) < consumed:
            return _Val(None)
        if any(_is_ellipsis(p) for p in parts):
            return _Val(None)
        dims = list(value.shape)
        out: list[_Dim] = []
        for part in parts:
            if _is_none(part):
                out.append(_Dim(1))
                continue
            if not dims:
                break
            dim = dims.pop(0)
            if isinstance(part, ast.Slice):
                full = part.lower is None and part.upper is None and part.step is None
                out.append(dim if full else _Dim())
            else:
                self.expr(part)
                if isinstance(part, ast.Name):  # `X[:, i] * w[i]`: the axes `i` indexes match
                    self.unify(self.indexed.setdefault(part.id, dim), dim)
        dropped = consumed - sum(1 for p in parts if isinstance(p, ast.Slice))
        source = (value.param, dropped) if value.param is not None else None
        return _Val(tuple(out) + tuple(dims), indexed=source)

    def is_array_index(self, part: ast.expr) -> bool:
        if isinstance(part, (ast.Slice, ast.Constant)):
            return False
        if isinstance(part, ast.Name) and part.id not in self.env:
            return False  # a global or a parameter: an integer index
        value = self.expr(part)
        return value.shape is not None and len(value.shape) > 0

    def call(self, node: ast.Call) -> _Val:
        name = last_name(node.func) or ""
        method_of = node.func.value if isinstance(node.func, ast.Attribute) else None
        args = [a for a in node.args if not isinstance(a, ast.Starred)]
        keywords = {k.arg: k.value for k in node.keywords if k.arg}
        if method_of is not None and self.is_array_method(method_of):
            return self.method(name, self.expr(method_of), args, keywords)
        if name == "einsum" and args and isinstance(args[0], ast.Constant):
            return self.einsum(str(args[0].value), [self.expr(a) for a in args[1:]])
        if name in ("dot", "matmul") and len(args) == 2:
            return self.matmul(self.expr(args[0]), self.expr(args[1]), args[0], args[1])
        if name in SHAPE_PRESERVING_NAMES and args:
            value = self.expr(args[0])
            for other in args[1:]:
                self.expr(other)
            if value.param is not None:
                self.evidence.used.add(value.param)
            return _Val(value.shape)
        if name in BROADCASTING_NAMES and args:
            value = _Val(None)
            for a in args:
                value = self.broadcast(value, self.expr(a))
            return _Val(value.shape)
        if name == "transpose" and args and "axes" not in keywords and len(args) == 1:
            value = self.expr(args[0])
            return _Val(value.shape[::-1] if value.shape is not None else None)
        if (
            name in ("concatenate", "concat")
            and args
            and isinstance(args[0], (ast.Tuple, ast.List))
        ):
            return self.concatenate(args[0].elts, args[1:], keywords)
        if name in ("inv", "det", "cholesky", "eigh", "solve", "slogdet") and args:
            value = self.expr(args[0])
            self.evidence.at_least(value, 2)
            self.evidence.suggest(value, 2)
            if value.shape is not None and len(value.shape) >= 2:
                self.unify(value.shape[-1], value.shape[-2])
            if name == "solve" and len(args) == 2 and value.shape is not None:
                rhs = self.expr(args[1])
                self.evidence.suggest(rhs, 1)
                if rhs.shape and len(value.shape) >= 2:
                    self.unify(rhs.shape[0], value.shape[-1])
                return _Val(rhs.shape)
            return _Val(value.shape if name in ("inv", "cholesky") else None)
        if name in REDUCTION_NAMES and args:
            return self.reduce(self.expr(args[0]), keywords, args[1:])
        if name == "len" and len(args) == 1:
            self.evidence.at_least(self.expr(args[0]), 1)
            return _Val(None)
        for a in [*args, *keywords.values()]:  # an unknown call: evidence inside its arguments
            self.expr(a)
        return _Val(None)

    def is_array_method(self, node: ast.expr) -> bool:
        """Is `node.method()` a method of an array (not `jnp.sum`, `jax.nn.relu`)?"""
        head = node
        while isinstance(head, ast.Attribute):
            head = head.value
        # not a module (`jnp`, `jax.nn`, `np.linalg`) or a global
        return not (
            isinstance(head, ast.Name) and head.id not in self.names and head.id not in self.env
        )

    def method(self, name: str, value: _Val, args: list[ast.expr], keywords: dict) -> _Val:
        if value.param is not None:
            self.evidence.used.add(value.param)
        if name in REDUCTION_NAMES:
            return self.reduce(value, keywords, args)
        if name in ("astype", "copy", "clip", "conj", "round"):
            return _Val(value.shape)
        if name == "dot" and len(args) == 1:
            return self.matmul(value, self.expr(args[0]), None, args[0])
        if name == "transpose" and not args:
            return _Val(value.shape[::-1] if value.shape is not None else None)
        for a in args:
            self.expr(a)
        return _Val(None)

    def reduce(self, value: _Val, keywords: dict, rest: list[ast.expr]) -> _Val:
        if value.param is not None:
            self.evidence.used.add(value.param)
        axis = keywords.get("axis", rest[0] if rest else None)
        keep = keywords.get("keepdims")
        if value.shape is None:
            return _Val(None)
        if axis is None or (isinstance(axis, ast.Constant) and axis.value is None):
            return _Val(() if keep is None else tuple(_Dim(1) for _ in value.shape))
        i = ast_int_literal(axis)
        if i is not None:
            self.evidence.at_least(value, i + 1 if i >= 0 else -i)
            if -len(value.shape) <= i < len(value.shape):
                dims = list(value.shape)
                if isinstance(keep, ast.Constant) and keep.value is True:
                    dims[i] = _Dim(1)
                else:
                    del dims[i]
                return _Val(tuple(dims))
        return _Val(None)

    def concatenate(self, elements: list[ast.expr], rest: list[ast.expr], keywords: dict) -> _Val:
        axis_node = keywords.get("axis", rest[0] if rest else None)
        axis = 0 if axis_node is None else ast_int_literal(axis_node)
        if axis is None:
            return _Val(None)
        values = [self.expr(e) for e in elements]
        shapes = [v.shape for v in values if v.shape is not None]  # the known ones
        for v in values:
            if v.param is not None and shapes:
                self.evidence.suggest(v, len(shapes[0]))
                self.evidence.at_least(v, 1)
        if not shapes or len({len(shape) for shape in shapes}) != 1:
            return _Val(None)
        rank = len(shapes[0])
        if not -rank <= axis < rank:
            return _Val(None)
        axis %= rank
        first = shapes[0]
        for shape in shapes[1:]:
            for i in range(rank):
                if i != axis:
                    self.unify(first[i], shape[i])
        return _Val(first[:axis] + (_Dim(),) + first[axis + 1 :])

    def binop(self, op: ast.operator, left: _Val, right: _Val) -> _Val:
        if isinstance(op, ast.MatMult):
            return self.matmul(left, right, None, None)
        return self.broadcast(left, right)

    def broadcast(self, left: _Val, right: _Val) -> _Val:
        """Elementwise: aligned right, dims made equal; a bare parameter takes a bias's rank."""
        for this, other in ((left, right), (right, left)):
            computed = other.param is None and other.indexed is None
            # `b[e]` beside a computed value: a bias row; `w[i]` beside `X[:, i]`: as it is
            if (this.param is not None or (this.indexed and computed)) and other.shape is not None:
                # beside a computed value (a matmul result): rank 1, a bias along the last axis;
                # beside another parameter: that parameter's rank
                rank = len(other.shape) if other.param is not None else min(len(other.shape), 1)
                self.evidence.suggest(this, rank)
        if left.shape is None:
            return _Val(right.shape)
        if right.shape is None:
            return _Val(left.shape)
        longer, shorter = (left.shape, right.shape)
        if len(shorter) > len(longer):
            longer, shorter = shorter, longer
        offset = len(longer) - len(shorter)
        for i, dim in enumerate(shorter):
            aligned = longer[offset + i]
            if dim.root().size == 1 or aligned.root().size == 1:
                continue  # a kept or new axis of size 1 broadcasts
            self.unify(dim, aligned)
        out = list(longer)
        for i, dim in enumerate(shorter):
            if out[offset + i].root().size == 1:
                out[offset + i] = dim
        return _Val(tuple(out))

    def matmul(
        self, left: _Val, right: _Val, left_node: ast.expr | None, right_node: ast.expr | None
    ) -> _Val:
        ev = self.evidence
        ev.at_least(left, 1)
        ev.at_least(right, 1)
        if left.param is not None:  # a row `x[i] @ W` is a vector: no rank suggested
            ev.suggest(left, 2)
        # `X @ w`: a lower-case right operand is a vector, a capitalised one (`W`) a matrix
        right_name = right.param or (right.indexed[0] if right.indexed else "")
        key = right_name.split("[")[-1].strip("'\"]") if "[" in right_name else right_name
        if right_name:  # `W[e]` too: a stack of matrices
            ev.suggest(right, 2 if key[:1].isupper() else 1)
        a, b = left.shape, right.shape
        if a is None or b is None or not a or not b:
            return _Val(None)
        self.unify(a[-1], b[-2] if len(b) >= 2 else b[0])
        if len(a) == 1 and len(b) == 1:
            return _Val(())
        if len(a) == 1:
            return _Val(b[:-2] + b[-1:])
        if len(b) == 1:
            return _Val(a[:-1])
        batch = self.broadcast(_Val(a[:-2]), _Val(b[:-2])).shape or ()
        return _Val(tuple(batch) + (a[-2], b[-1]))

    def einsum(self, spec: str, operands: list[_Val]) -> _Val:
        spec = spec.replace(" ", "")
        if "..." in spec:
            return _Val(None)
        inputs, _, output = spec.partition("->")
        terms = inputs.split(",")
        if len(terms) != len(operands):
            return _Val(None)
        letters: dict[str, _Dim] = {}
        for term, value in zip(terms, operands, strict=True):
            param, rank = _source(value, len(term))  # `W[e]` in "nd,dh->nh": W of rank 3
            if param is not None:
                self.evidence.used.add(param)
                self.evidence.exact.setdefault(param, rank)
            if value.shape is None or len(value.shape) != len(term):
                continue
            for letter, dim in zip(term, value.shape, strict=True):
                if letter in letters:
                    self.unify(letters[letter], dim)
                else:
                    letters[letter] = dim
        if "->" not in spec:
            counts = {c: inputs.count(c) for c in inputs if c.isalpha()}
            output = "".join(sorted(c for c, n in counts.items() if n == 1))
        return _Val(tuple(letters.get(c) or _Dim() for c in output))


def _pairwise(stmt: ast.Assign) -> bool:
    """`a, b = x, y`: one tuple target and a tuple display of as many values, no starred."""
    if len(stmt.targets) != 1:
        return False
    target, value = stmt.targets[0], stmt.value
    return (
        isinstance(target, (ast.Tuple, ast.List))
        and isinstance(value, (ast.Tuple, ast.List))
        and len(target.elts) == len(value.elts)
        and not any(isinstance(e, ast.Starred) for e in (*target.elts, *value.elts))
    )


def _is_none(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _is_ellipsis(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is Ellipsis


def function_node(function: object) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The target's `def` node, read from its module's source (linecache) or inspect."""
    code = getattr(function, "__code__", None)
    name = getattr(function, "__name__", None)
    if code is None or name is None:
        return None
    source = "".join(linecache.getlines(code.co_filename))
    tree: ast.AST | None = None
    try:
        tree = ast.parse(source) if source else None
    except (SyntaxError, ValueError):
        tree = None
    if tree is None:
        try:
            text = inspect.getsource(function)  # type: ignore[arg-type]  # or raises TypeError
            tree = ast.parse(textwrap.dedent(text))
        except (OSError, TypeError, SyntaxError, ValueError):
            return None
    found = [
        n
        for n in ast.walk(tree)
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == name
    ]
    for node in found:
        first = min([node.lineno] + [d.lineno for d in node.decorator_list])
        if first == code.co_firstlineno or node.lineno == code.co_firstlineno:
            return node
    return found[0] if len(found) == 1 else None


@dataclass(frozen=True)
class Solution:
    """Shapes per solved parameter (`params['W']` for a dict's key), in a rank assignment."""

    shapes: dict[str, tuple[int, ...]]


def _is_ladder(param: Param) -> bool:
    """Are the parameter's kinds the generic ladder (unannotated, or a bare `jax.Array`)?"""
    kinds = param.candidates
    if not kinds or kinds[0].origin:
        return False
    return any(kinds[-len(tail) :] == tail for tail in (CALL_LADDER, ARRAY_LADDER))


def _int_names(node: ast.AST, names: set[str]) -> set[str]:
    """Parameters used as Python integers: `range(n)`, `x[i]`, `x[:k]`, `reshape(n, -1)`."""
    found: set[str] = set()
    for n in ast.walk(node):
        spots: list[ast.AST] = []
        if isinstance(n, ast.Call) and last_name(n.func) in ("range", "reshape", "zeros", "ones"):
            spots = list(n.args)
        elif isinstance(n, ast.Subscript):
            parts = n.slice.elts if isinstance(n.slice, ast.Tuple) else [n.slice]
            for part in parts:
                if isinstance(part, ast.Slice):
                    spots += [b for b in (part.lower, part.upper, part.step) if b is not None]
                else:
                    spots.append(part)
        for spot in spots:
            if isinstance(spot, ast.Name) and spot.id in names:
                found.add(spot.id)
    return found


def solve(
    node: ast.FunctionDef | ast.AsyncFunctionDef,
    params: tuple[Param, ...],
    fixed: dict[str, tuple[int, ...]] | None = None,
) -> list[Solution]:
    """Shape assignments for the parameters the body uses as arrays, most plausible first."""
    fixed = dict(fixed or {})
    order = [p.name for p in params]
    names = set(order)
    dict_names = {p.name for p in params if _is_ladder(p) and p.candidates[0].kind == "dict"}

    def settle(pinned: dict[str, int]) -> tuple[dict[str, int], _Interpreter] | None:
        ranks: dict[str, int] = dict(pinned)
        interpreter = None
        for _ in range(_PASSES):
            interpreter = _Interpreter(names, dict_names, ranks, fixed)
            interpreter.run(node.body)
            ev = interpreter.evidence
            new: dict[str, int] = {}
            for name in ev.used:
                if name in fixed:
                    continue
                if name in pinned:
                    rank = pinned[name]
                elif name in ev.exact:
                    rank = ev.exact[name]
                else:
                    rank = max(ev.minimum.get(name, 0), ev.suggested.get(name, 1))
                new[name] = rank
            if new == ranks:
                break
            ranks = new
        assert interpreter is not None
        if interpreter.evidence.conflict:
            return None
        for name, rank in ranks.items():
            if rank < interpreter.evidence.minimum.get(name, 0):
                return None
        return ranks, interpreter

    found: list[Solution] = []
    seen: set[tuple[tuple[str, int], ...]] = set()

    def add(pinned: dict[str, int]) -> dict[str, int] | None:
        settled = settle(pinned)
        if settled is None:
            return None
        ranks, interpreter = settled
        key = tuple(sorted(ranks.items()))
        if key in seen or not ranks:
            return ranks
        seen.add(key)
        ordered = sorted(ranks, key=lambda n: (order.index(n.split("[")[0]), n))
        found.append(Solution(_sizes(interpreter, {n: ranks[n] for n in ordered})))
        return ranks

    first = add({})
    settled = settle({})
    if first is None or settled is None or not _coupled(settled):
        return []  # parameters whose shapes are independent: the ladder finds them
    ev_exact = set(settled[1].evidence.exact)
    # alternatives: one parameter's rank changed (nearest first), the others re-settled
    flexible = [
        n for n in sorted(first, key=lambda n: order.index(n.split("[")[0])) if n not in ev_exact
    ]
    for deltas in ((-1, 1), (2,)):
        for name in flexible:
            for delta in deltas:
                if len(found) >= MAX_CANDIDATES:
                    return found
                if 0 <= first[name] + delta <= 3:
                    add({name: first[name] + delta})
    return found[:MAX_CANDIDATES]


def _coupled(settled: tuple[dict[str, int], _Interpreter]) -> bool:
    """Do two parameters share a dim (`x @ W`, `X[:, i] * w[i]`)?"""
    owners: dict[int, str] = {}
    for name, shape in settled[1].shapes.items():
        for dim in shape:
            if owners.setdefault(id(dim.root()), name) != name:
                return True
    return False


def _sizes(interpreter: _Interpreter, ranks: dict[str, int]) -> dict[str, tuple[int, ...]]:
    sizes: dict[int, int] = {}
    taken = {d.root().size for s in interpreter.shapes.values() for d in s if d.root().size}
    free = [s for s in SIZES if s not in taken] or list(SIZES)
    shapes: dict[str, tuple[int, ...]] = {}
    for name in ranks:
        shape = interpreter.shapes.get(name)
        if shape is None or len(shape) != ranks[name]:
            shape = tuple(_Dim() for _ in range(ranks[name]))
        out = []
        for dim in shape:
            root = dim.root()
            if root.size is not None:
                out.append(root.size)
                continue
            if id(root) not in sizes:
                sizes[id(root)] = free[len(sizes) % len(free)]
            out.append(sizes[id(root)])
        shapes[name] = tuple(out)
    return shapes


def _binding(
    params: tuple[Param, ...], solution: Solution, salt: int, ints: set[str]
) -> Binding | None:
    kinds: list[ArgKind | None] = []
    changed = False
    for p in params:
        default = p.candidates[0] if p.candidates else None
        if default is not None and _is_ladder(p):
            if p.name in ints and p.name not in solution.shapes and INT in p.candidates:
                default = INT
            elif default.kind == "dict":
                prefix = f"{p.name}["
                items = [
                    (name[len(prefix) : -1].strip("'\""), ArgKind("array", shape))
                    for name, shape in solution.shapes.items()
                    if name.startswith(prefix)
                ]
                if items:
                    keys = [k for k, _ in default.items] or list(default.keys)
                    known = dict(items)
                    leaf = ArgKind("array", (SIZES[0],))
                    default = ArgKind("dict", items=tuple((k, known.get(k, leaf)) for k in keys))
                    changed = True
            elif p.name in solution.shapes:
                # a mask's first kind is bool (`~done[t]`): the solved shape keeps that dtype
                dtype = default.dtype if default.kind == "array" else "float32"
                default = ArgKind("array", solution.shapes[p.name], dtype)
                changed = True
        kinds.append(default)
    return Binding(params, tuple(kinds), salt) if changed else None


def _fixed_shapes(params: tuple[Param, ...]) -> dict[str, tuple[int, ...]]:
    """Array shapes given by annotations or call sites: constraints, not unknowns."""
    return {
        p.name: p.candidates[0].shape
        for p in params
        if p.candidates and p.candidates[0].kind == "array" and not _is_ladder(p)
    }


_CONCRETIZATION = getattr(jax.errors, "ConcretizationTypeError", ())
_TRACER_ERRORS: tuple[type[BaseException], ...] = tuple(
    e
    for e in (
        _CONCRETIZATION,
        getattr(jax.errors, "TracerBoolConversionError", None),
        getattr(jax.errors, "TracerIntegerConversionError", None),
        getattr(jax.errors, "TracerArrayConversionError", None),
    )
    if isinstance(e, type)
)


def shape_checks(function: Callable[..., Any], binding: Binding) -> bool:
    """Does the function trace on the binding's shapes (`jax.eval_shape`, no compile)?

    A function that needs concrete values (Python control flow on data) cannot be traced: that
    says nothing about the shapes, so the binding is kept for the real run.
    """
    args, kwargs = binding.make(0)
    leaves, tree = jax.tree_util.tree_flatten((args, kwargs))
    traced = [i for i, leaf in enumerate(leaves) if isinstance(leaf, jax.Array)]

    def fn(*arrays: Any) -> Any:
        full = list(leaves)
        for i, array in zip(traced, arrays, strict=True):
            full[i] = array
        a, k = jax.tree_util.tree_unflatten(tree, full)
        return function(*a, **k)

    structs = [jax.ShapeDtypeStruct(leaves[i].shape, leaves[i].dtype) for i in traced]
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            jax.eval_shape(fn, *structs)
    except _TRACER_ERRORS:
        return True
    except TypeError as exc:
        # a store into a traced array (JAX204, verified on NumPy copies): not about shapes
        return "immutable" in str(exc)
    except (Exception, SystemExit):
        return False
    return True


def solved_bindings(
    function: Callable[..., Any] | None, params: tuple[Param, ...], salt: int
) -> list[Binding]:
    """Bindings from the shape solver the original traces on, bounded in count and time."""
    if function is None:
        return []
    node = function_node(function)
    if node is None:
        return []
    start = time.monotonic()
    try:
        solutions = solve(node, params, _fixed_shapes(params))
    except Exception:  # noqa: BLE001 - a solver bug must not stop verification: the ladder runs
        return []
    ints = _int_names(node, {p.name for p in params})
    found: list[Binding] = []
    probes = 0
    for solution in solutions:
        if probes >= MAX_PROBES or time.monotonic() - start > TIME_BUDGET_S:
            break
        binding = _binding(params, solution, salt, ints)
        if binding is None or any(b.kinds == binding.kinds for b in found):
            continue
        probes += 1
        if shape_checks(function, binding):
            found.append(binding)
    return found


def with_solved(
    function: Callable[..., Any] | None,
    params: tuple[Param, ...],
    generic: Iterator[Binding],
    salt: int,
) -> Iterator[Binding]:
    """The generic bindings with the solver's: its first before them (after the first generic one
    when a parameter's first kind comes from a call site, tried first as before), its
    alternatives (other ranks) after them, so the ladder's further signatures come as before.

    When the generic bindings hold the solver's first already (`X: float32[7,3], w: float32[3]`
    is on the ladder), their order is kept: the ladder finds it, and its other signatures too.
    """
    solved = solved_bindings(function, params, salt)
    if not solved:
        yield from generic
        return
    ladder = list(generic)
    on_ladder = {b.kinds for b in ladder}
    if solved[0].kinds not in on_ladder:
        if any(p.candidates and p.candidates[0].origin for p in params) and ladder:
            yield ladder.pop(0)
        yield solved.pop(0)
    yield from ladder
    yield from (b for b in solved if b.kinds not in on_ladder)
