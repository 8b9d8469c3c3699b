"""Values that are certainly tracers: the evidence rules need before claiming a JAX error.

The value analysis (jaxlint.analysis.values) says what a value *may* be; rules that report an
exception (TracerBoolConversionError, ConcretizationTypeError…) need more: that the value *is* a
tracer whenever the code runs staged. That holds, inside a function JAX stages (jit, a lax
body, checkpoint, or a function they call), or one `jax.vmap` maps over (from its mapped
parameters only: there constructors of constants stay concrete), for:

- the result of an array constructor (under staging even `jnp.ones(3)` is a tracer) and of any
  JAX operation given a value that may be traced;
- a parameter that is a tracer on every staged entry (`FunctionInfo.tracer_params`);
- `sum(...)` of tracers (a generator, comprehension or display of them);
- arithmetic, comparisons, indexing and array methods (`x.sum()`, not a user method such as
  `model.dofs()`, which may read static fields) of such values, and the elements of a loop over
  one;
- a name any of whose bindings is one of these (on that path the code raises), or that is
  unpacked from a helper's tuple of JAX results called with one (`sep, idx = best(a)`).

Everything else (helper parameters, unless every traced call of the module hands the helper a
tracer parameter of its caller unchanged; attributes of pytrees, calls of user functions, values a
`jnp` call concretized with `.item()`) is not claimed.
"""

from __future__ import annotations

import libcst as cst

from jaxlint.analysis.jax_api import (
    ARRAY_METHODS,
    ARRAY_RESULT_TRANSFORMS,
    CONSTANT_CONSTRUCTORS,
    SHAPE_PROJECTIONS,
    STATIC_ATTRIBUTES,
    STATIC_PROJECTIONS,
    is_array_api,
)
from jaxlint.analysis.values import FunctionValues

NOT_TRACERS = STATIC_ATTRIBUTES | {"shape", "size"}
NUMPY_STATIC_RESULTS = frozenset(
    "numpy." + name
    for name in ["shape", "ndim", "size", "dtype", "result_type", "issubdtype", "finfo", "iinfo"]
)
CONCRETE_METHODS = frozenset({"item", "tolist", "__index__", "__int__", "__float__"})
# builtins whose result is a tracer when an argument is (the others raise or give Python values)
PASSING_BUILTINS = frozenset({"builtins.abs", "builtins.pow", "builtins.round"})
NO_TRACER_COMPARISONS = (cst.Is, cst.IsNot, cst.In, cst.NotIn)


class Tracers:
    """Answers "is this certainly a tracer here?" for one function's values."""

    def __init__(self, values: FunctionValues) -> None:
        self.values = values
        self._names: dict[int, bool] = {}  # id(Name node) → certainly a tracer

    def certain(self, expression: cst.BaseExpression) -> bool:
        info = self.values.info
        if not info.staged and not info.batched_params:
            return False
        return self._of(expression)

    def _of(self, node: cst.BaseExpression) -> bool:
        if isinstance(node, cst.Name):
            return self._name(node)
        if isinstance(node, cst.Call):
            return self._call(node)
        if isinstance(node, cst.Attribute):
            if isinstance(
                node.value, cst.Name
            ) and node.attr.value in self.values.info.leaf_fields.get(node.value.value, ()):
                return self._name(node.value)  # `cfg.n_steps`, a number leaf of a traced pytree
            return node.attr.value in {"T", "mT", "real", "imag"} and self._of(node.value)
        if isinstance(node, cst.Subscript):
            return self._of(node.value)
        if isinstance(node, cst.BinaryOperation):
            return self._of(node.left) or self._of(node.right)
        if isinstance(node, cst.UnaryOperation):
            return self._of(node.expression)
        if isinstance(node, cst.Comparison):
            if any(isinstance(c.operator, NO_TRACER_COMPARISONS) for c in node.comparisons):
                return False
            return self._of(node.left) or any(self._of(c.comparator) for c in node.comparisons)
        if isinstance(node, cst.BooleanOperation):
            return self._of(node.left) or self._of(node.right)
        if isinstance(node, cst.IfExp):
            return self._of(node.body) or self._of(node.orelse)
        return False

    def _call(self, call: cst.Call) -> bool:
        if self._transformed(call.func):
            # `jax.value_and_grad(loss)(params)`, `jax.vmap(f)(x)`: what the transform computes
            # from a tracer is a tracer (from static values only, a concrete array)
            return any(self._of(a.value) or self.values.kind(a.value).traced for a in call.args)
        qualified = self.values.resolve(call.func)
        if qualified is not None:
            if qualified in STATIC_PROJECTIONS or qualified in SHAPE_PROJECTIONS:
                return False
            if is_array_api(qualified):
                # staged, every op's result is a tracer, even a constructor's from constants;
                # not claimed when every argument is a static Python value (`lax.psum(1, axis)`
                # is the axis size, a Python int; `jnp.max(x.shape)` raises a TypeError)
                # (vmapped alone, eagerly, a constructor of constants gives a concrete array)
                constant = qualified in CONSTANT_CONSTRUCTORS and self.values.info.staged
                return constant or any(
                    self._of(a.value) or self.values.kind(a.value).traced for a in call.args
                )
            if qualified in PASSING_BUILTINS:
                return any(self._of(a.value) for a in call.args)
            if qualified == "builtins.sum" and call.args:
                # `sum(jnp.sum(g**2) for g in leaves)`: 0 plus tracers is a tracer
                items = call.args[0].value
                if isinstance(items, (cst.GeneratorExp, cst.ListComp)):
                    return self._of(items.elt)
                if isinstance(items, (cst.List, cst.Tuple)):
                    return any(self._of(e.value) for e in items.elements)
                return False
            if qualified.startswith("numpy.") and qualified not in NUMPY_STATIC_RESULTS:
                # `np.sum(x)` calls `x.sum()`; the others raise (JAX104), or would give a tracer
                return any(self._of(a.value) for a in call.args)
            return False
        func = call.func
        if isinstance(func, cst.Name):
            # `loss = loss_fn(p, x)`: a helper every `return` of which is a JAX result
            callee = self.values.function_named(func.value)
            return (
                callee is not None
                and any(self._of(a.value) or self.values.kind(a.value).traced for a in call.args)
                and self.values.returns_array(callee)
            )
        if isinstance(func, cst.Attribute):
            method = func.attr.value
            if method in CONCRETE_METHODS or method in NOT_TRACERS:
                return False
            if method not in ARRAY_METHODS:
                # `model.number_of_links()` of a pytree argument: a user method, which may read
                # static fields only (a Python int under jit), is not claimed
                return False
            return self._of(func.value)  # `x.sum()`, `x.astype(...)` of a tracer
        return False

    def _transformed(self, func: cst.BaseExpression) -> bool:
        """Is `func` a function made by a transform in ARRAY_RESULT_TRANSFORMS, written in place
        (`jax.grad(f)`) or bound to a name on every path that reaches here (`g = jax.grad(f)`)?"""
        if isinstance(func, cst.Name) and func.value in self.values.locals:
            reaching = self.values.reaching_bindings(func.value, func)
            return bool(reaching) and all(
                kind == "assign" and isinstance(value, cst.Call) and self._transformed(value)
                for kind, value in reaching
            )
        if not isinstance(func, cst.Call):
            return False
        if self.values.resolve(func.func) not in ARRAY_RESULT_TRANSFORMS:
            return False
        return not any(
            arg.keyword is not None
            and arg.keyword.value == "has_aux"
            and not (isinstance(arg.value, cst.Name) and arg.value.value == "False")
            for arg in func.args
        )

    def _name(self, node: cst.Name) -> bool:
        key = id(node)
        if key in self._names:
            return self._names[key]
        self._names[key] = False  # a cycle through this name proves nothing
        values, name = self.values, node.value
        if name in values.info.tracer_params or name in values.locals:
            reaching = values.reaching_bindings(name, node)
            found = any(self._binding(kind, value) for kind, value in reaching)
            if name in values.info.tracer_params and values.parameter_reaches(name, node):
                found = True
        elif values.parent is not None:
            found = Tracers(values.parent).certain(cst.Name(name))
        else:
            found = False
        self._names[key] = found
        return found

    def _binding(self, kind: str, value: cst.CSTNode) -> bool:
        if kind == "aug" and isinstance(value, cst.AugAssign):
            return self._of(value.value) or self._of(value.target)
        if kind == "unpack" and isinstance(value, cst.Call) and isinstance(value.func, cst.Name):
            # `sep, idx = best(a)`: a helper every `return` of which is a tuple of JAX results
            callee = self.values.function_named(value.func.value)
            return (
                callee is not None
                and any(self._of(a.value) or self.values.kind(a.value).traced for a in value.args)
                and self.values.returns_array_tuple(callee)
            )
        if isinstance(value, (cst.Tuple, cst.List)):
            return False  # a display: its elements were paired with the targets already
        return isinstance(value, cst.BaseExpression) and self._of(value)
