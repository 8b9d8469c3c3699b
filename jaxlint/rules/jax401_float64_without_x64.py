"""JAX401 float64-without-x64: a 64-bit dtype asked of JAX where x64 is never turned on."""

from __future__ import annotations

import libcst as cst

from jaxlint.analysis.cst_text import code_of
from jaxlint.analysis.host_queries.float64 import (
    FLOAT64_MARKERS,
    WIDE_STRINGS,
    X64_OPTION,
    arrays_made_before,
    wide_dtype_parameters,
    wide_type,
)
from jaxlint.analysis.unit_summary import UnitSummary
from jaxlint.analysis.values import Kind
from jaxlint.engine.rule import Rule, UnitContext

# Calls that read a dtype rather than make values of it: asking about float64 is fine.
DTYPE_QUERIES = frozenset(
    {
        "jax.numpy.issubdtype",
        "jax.numpy.finfo",
        "jax.numpy.iinfo",
        "jax.numpy.dtype",
        "jax.dtypes.canonicalize_dtype",
        "jax.dtypes.issubdtype",
        "builtins.isinstance",
    }
)
# Keywords that ask for the dtype of what a call makes (flax and haiku layers: `param_dtype`)
DTYPE_KEYWORDS = frozenset({"dtype", "param_dtype"})
# Libraries whose layers and modules make JAX arrays of the dtypes they are given
LAYER_LIBRARIES = ("flax.", "equinox.", "haiku.")


class Float64WithoutX64(Rule):
    code = "JAX401"
    name = "float64-without-x64"
    severity = "info"
    summary = "a 64-bit dtype requested from JAX while jax_enable_x64 is off: silently 32-bit"
    host_query = FLOAT64_MARKERS

    @classmethod
    def may_apply(cls, unit: UnitSummary) -> bool:
        return cls.code in unit.host_candidates

    def __init__(self, context: UnitContext) -> None:
        super().__init__(context)
        self._tests: list[bool] = []  # per open `if`: does its test ask about 64-bit types?

    def visit_If(self, node: cst.If) -> None:
        self._tests.append(any(m in code_of(node.test) for m in ("64", "128", "x64")))

    def leave_If(self, original_node: cst.If) -> None:
        self._tests.pop()

    @property
    def _x64_branch(self) -> bool:
        """Under `if x.dtype == jnp.float64:` / `if jax.config.x64_enabled:`: the request is
        made only where 64-bit types exist."""
        return any(self._tests)

    def visit_Call(self, node: cst.Call) -> None:
        context = self.context
        qualified = context.resolve(node.func) or ""
        if qualified == "jax.config.update" and _option(node) == X64_OPTION:
            self._late_enable(node)
            return
        if context.index.enables_x64 or qualified in DTYPE_QUERIES or self._x64_branch:
            return
        called = wide_type(qualified) if qualified.startswith("jax.numpy.") else None
        if called is not None:  # `jnp.float64(0.1)`
            self._report(node, node.func, called)
            return
        astype = self._astype_of_array(node)
        layers = qualified.startswith(LAYER_LIBRARIES)
        if not (qualified.startswith("jax.") or astype or layers):
            return
        dtype_position = POSITIONAL_DTYPES.get(qualified)
        for position, argument in enumerate(node.args):
            keyword = argument.keyword.value if argument.keyword is not None else None
            if keyword is not None and keyword not in DTYPE_KEYWORDS:
                continue
            if keyword is None and layers:
                continue  # a layer's positional arguments are sizes and options, not dtypes
            # the dtype given by position: `jnp.asarray(x, dtype)`, `jnp.zeros(n, dtype)`
            slot = keyword is not None or position == dtype_position
            # a string is a dtype only where one is expected: `dtype=`, `.astype("float64")`
            strings = slot or astype
            wide = self._wide(argument.value, strings)
            if wide:
                self._report(node, argument.value, wide)
            elif slot and isinstance(argument.value, cst.Name):
                name = argument.value.value
                default = self._parameter_default(name)
                wide = self._wide(default, strings) if default is not None else None
                if wide and default is not None:
                    self._report(node, default, wide, through=f"the default of `{name}`")
                elif default is None:
                    self._from_callers(node, name)

    def _from_callers(self, node: cst.Call, name: str) -> None:
        """A parameter with no default that a caller in the module hands a 64-bit dtype
        (`rnorm(..., dtype=jnp.float_)` calling `_rnorm(key, shape, dtype=dtype)`)."""
        function = self.context.function
        if function is None or function.parent is not None or function.class_info is not None:
            return
        if name not in function.params:
            return
        given = wide_dtype_parameters(self.context.index).get((function.name, name))
        if given is not None:
            wide, written, caller = given
            through = f"the `{name}` that `{caller}` passes to `{function.name}`"
            self._report(node, written, wide, through=through)

    def _parameter_default(self, name: str) -> cst.BaseExpression | None:
        """The default of the parameter `name` (`dtype=jnp.float64`) of the current function,
        or of the function around it that a nested one reads it from (`@jit def _call(t):
        return jnp.asarray(t, dtype=dtype)` inside `ecdf(x, dtype=jnp.float_)`)."""
        frame = self.context.frame
        while frame is not None:
            params = frame.node.params
            for param in (*params.params, *params.kwonly_params):
                if param.name.value == name:
                    return param.default
            if name in frame.info.local_names:
                return None  # bound here: not a parameter's value
            frame = frame.parent
        return None

    def _late_enable(self, node: cst.Call) -> None:
        """x64 turned on where it cannot reach arrays already made: while tracing (the trace in
        progress keeps its types), or at module level after module-level arrays were made.

        Measured on jax 0.10.2: turned on inside a function (a `set_precision` helper, a
        test's setUp, even around concrete values in traced code), it applies to every array
        made after it; that is not flagged.
        """
        context = self.context
        if context.frame is None:
            line = context.span(node).line
            made = arrays_made_before(context.index, line)
            if made is None:
                return
            where = f"after module-level arrays were made (line {made}), which stay 32-bit"
        else:
            return
        self.report(
            node,
            f"jax_enable_x64 is turned on {where}; JAX documents that it must be set at "
            "startup: set it right after `import jax` in the entry module (or JAX_ENABLE_X64=1)",
            severity="warning",
        )

    def _astype_of_array(self, node: cst.Call) -> bool:
        func = node.func
        return (
            isinstance(func, cst.Attribute)
            and func.attr.value in ("astype", "view")
            and self.context.kind(func.value) == Kind.ARRAY
        )

    def _wide(self, value: cst.BaseExpression, strings: bool) -> str | None:
        """`float64` when the value names a 64-bit dtype (`jnp.float64`, `np.float64`, and with
        `strings` `"float64"`), else None."""
        if isinstance(value, cst.SimpleString):
            if not strings:
                return None
            text = value.evaluated_value
            return text if isinstance(text, str) and text in WIDE_STRINGS else None
        return wide_type(self.context.resolve(value) or "")

    def _report(
        self, node: cst.Call, culprit: cst.BaseExpression | str, wide: str, through: str = ""
    ) -> None:
        narrow = WIDE_STRINGS[wide]
        written = culprit if isinstance(culprit, str) else code_of(culprit)
        asked = f"`{written}`" + (f" ({through})" if through else "")
        self.report(
            node,
            f"{asked} asks JAX for {wide}, but nothing in this project turns on "
            f"jax_enable_x64: JAX makes it {narrow} (with a UserWarning at most); enable x64 "
            f'at startup (`jax.config.update("jax_enable_x64", True)`) if you need {wide}, or '
            f"ask for {narrow}",
        )


# array constructors whose dtype parameter is commonly given by position: its index
POSITIONAL_DTYPES = {
    **{
        f"jax.numpy.{name}": 1
        for name in (
            "asarray",
            "array",
            "zeros",
            "ones",
            "empty",
            "zeros_like",
            "ones_like",
            "empty_like",
            "identity",
        )
    },
    "jax.numpy.full": 2,
    "jax.numpy.full_like": 2,
    # jax.random's samplers (their signatures on jax 0.10.2)
    **{
        f"jax.random.{name}": position
        for position, names in (
            (2, ("normal", "uniform", "exponential", "laplace", "logistic", "cauchy", "gumbel")),
            (3, ("gamma", "t", "chisquare", "dirichlet", "pareto", "lognormal", "loggamma")),
            (3, ("rayleigh", "poisson")),
            (4, ("beta", "truncated_normal", "multivariate_normal", "weibull_min", "randint")),
        )
        for name in names
    },
}


def _option(node: cst.Call) -> str | None:
    if node.args and isinstance(node.args[0].value, cst.SimpleString):
        value = node.args[0].value.evaluated_value
        return value if isinstance(value, str) else None
    return None
