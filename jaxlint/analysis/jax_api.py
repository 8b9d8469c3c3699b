"""What jaxlint knows about JAX's API: which callables trace their function arguments, and how."""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import IntEnum
from typing import Literal


class TraceKind(IntEnum):
    """How a function body is traced. Stronger kinds win when several roots reach a function."""

    CONCRETE = 1  # autodiff alone: tracers carry concrete values, Python `if` on them works
    ABSTRACT = 2  # jit, vmap, lax bodies, checkpoint: values are abstract


@dataclass(frozen=True)
class TraceReason:
    """Why a function is traced: decorated with, wrapped by or passed to a JAX `api`, or called
    from a traced `caller` (in another `module` when the project index found it)."""

    how: Literal["decorated", "wrapped", "passed", "called"]
    api: str = ""
    caller: str = ""
    module: str = ""

    @property
    def by_call(self) -> bool:
        return self.how == "called"

    def in_module(self, module: str) -> TraceReason:
        return replace(self, module=module)

    def to_json(self) -> list[str]:
        return [self.how, self.api, self.caller, self.module]

    @classmethod
    def from_json(cls, data: list[str]) -> TraceReason:
        return cls(*data)  # type: ignore[arg-type]  # `how` reads back as the str it was saved as

    def __str__(self) -> str:
        text = {
            "decorated": f"decorated with {self.api}",
            "wrapped": f"wrapped by {self.api}",
            "passed": f"passed to {self.api}",
            "called": f"called from {self.caller}",
        }[self.how]
        return f"{text} in {self.module}" if self.module else text


# jit-like wrappers: they take static_argnums / static_argnames and are what JAX301/JAX303 look at.
JIT_APIS = frozenset(
    {
        "jax.jit",
        "jax.pmap",
        "equinox.filter_jit",
        "equinox.filter_pmap",
        "flax.nnx.jit",
        "flax.nnx.pmap",
    }
)
# calls that stack a list of rows into an array along a new first axis (`jnp.stack(rows)`)
STACKERS = frozenset({"jax.numpy.array", "jax.numpy.asarray", "jax.numpy.stack"})
# Base classes of libraries whose jitted methods call methods a subclass defines: base class →
# (the subclass's method, the base's jitted method that calls it). gymnax's `Environment.step`
# and `reset` are `partial(jax.jit, static_argnums=(0,))` and call `self.step_env(key, state,
# action, params)` and `self.reset_env(key, params)`: every argument but `self` is traced.
FRAMEWORK_TRACED_METHODS: dict[str, dict[str, str]] = {
    "gymnax.environments.environment.Environment": {"step_env": "step", "reset_env": "reset"},
}
# the same classes by the other names their packages export them under
FRAMEWORK_BASE_ALIASES = {
    "gymnax.environments.Environment": "gymnax.environments.environment.Environment",
    "gymnax.Environment": "gymnax.environments.environment.Environment",
}

# probability libraries whose distribution objects draw JAX arrays, and their drawing methods
DISTRIBUTION_MODULES = ("numpyro.distributions.", "tensorflow_probability.substrates.jax.")
DISTRIBUTION_DRAWS = frozenset({"sample", "rsample"})

# jit-likes whose non-array arguments are static automatically (no self/cls problem).
FILTERING_JITS = frozenset({"equinox.filter_jit", "equinox.filter_pmap"})
# transforms whose Modules have reference semantics: attribute writes inside are legal.
REFERENCE_SEMANTICS_APIS = frozenset(
    {"flax.nnx.jit", "flax.nnx.pmap", "flax.nnx.vmap", "flax.nnx.grad", "flax.nnx.value_and_grad"}
)

# transform → (trace kind, positions of function arguments, keyword names of function arguments).
# A position of -1 means "every positional argument from here on"; `switch` takes a sequence.
TRANSFORMS: dict[str, tuple[TraceKind, tuple[int, ...], tuple[str, ...]]] = {
    "jax.vmap": (TraceKind.ABSTRACT, (0,), ("fun",)),
    "jax.checkpoint": (TraceKind.ABSTRACT, (0,), ("fun",)),
    "jax.eval_shape": (TraceKind.ABSTRACT, (0,), ("fun",)),
    "jax.make_jaxpr": (TraceKind.ABSTRACT, (0,), ("fun",)),
    "jax.shard_map": (TraceKind.ABSTRACT, (0,), ("f",)),
    "equinox.filter_vmap": (TraceKind.ABSTRACT, (0,), ("fun",)),
    "equinox.filter_checkpoint": (TraceKind.ABSTRACT, (0,), ("fun",)),
    "flax.nnx.vmap": (TraceKind.ABSTRACT, (0,), ("f",)),
    "flax.nnx.remat": (TraceKind.ABSTRACT, (0,), ("f",)),
    "flax.nnx.scan": (TraceKind.ABSTRACT, (0,), ("f",)),
    "jax.lax.scan": (TraceKind.ABSTRACT, (0,), ("f",)),
    "jax.lax.map": (TraceKind.ABSTRACT, (0,), ("f",)),
    "jax.lax.associative_scan": (TraceKind.ABSTRACT, (0,), ("fn",)),
    "jax.lax.fori_loop": (TraceKind.ABSTRACT, (2,), ("body_fun",)),
    "jax.lax.while_loop": (TraceKind.ABSTRACT, (0, 1), ("cond_fun", "body_fun")),
    "jax.lax.cond": (TraceKind.ABSTRACT, (1, 2), ("true_fun", "false_fun")),
    "jax.lax.switch": (TraceKind.ABSTRACT, (1,), ("branches",)),
    "jax.lax.custom_root": (TraceKind.ABSTRACT, (1, 2, 3), ("f", "solve", "tangent_solve")),
    "jax.grad": (TraceKind.CONCRETE, (0,), ("fun",)),
    "jax.value_and_grad": (TraceKind.CONCRETE, (0,), ("fun",)),
    "jax.jacfwd": (TraceKind.CONCRETE, (0,), ("fun",)),
    "jax.jacrev": (TraceKind.CONCRETE, (0,), ("fun",)),
    "jax.hessian": (TraceKind.CONCRETE, (0,), ("fun",)),
    "jax.jvp": (TraceKind.CONCRETE, (0,), ("fun",)),
    "jax.vjp": (TraceKind.CONCRETE, (0,), ("fun",)),
    "jax.linearize": (TraceKind.CONCRETE, (0,), ("fun",)),
    "equinox.filter_grad": (TraceKind.CONCRETE, (0,), ("fun",)),
    "equinox.filter_value_and_grad": (TraceKind.CONCRETE, (0,), ("fun",)),
    "flax.nnx.grad": (TraceKind.CONCRETE, (0,), ("f",)),
    "flax.nnx.value_and_grad": (TraceKind.CONCRETE, (0,), ("f",)),
}

# Transforms whose transformed function, called with a tracer, returns tracers only: every leaf
# of a gradient, a Jacobian or a batched output is an array computed from the inputs. (With
# `has_aux` the auxiliary output is the user's own pytree and may hold Python values;
# `equinox.filter_grad` gives None for the leaves it does not differentiate.)
ARRAY_RESULT_TRANSFORMS = frozenset(
    {"jax.grad", "jax.value_and_grad", "jax.jacfwd", "jax.jacrev", "jax.hessian", "jax.vmap"}
)

# Transforms that hand the function slices of arrays (a row of a batch, a step of a sequence):
# its parameters are arrays, where a jitted function's are as often lists of parameter arrays.
SLICING_TRANSFORMS = frozenset(
    {
        "jax.vmap",
        "jax.pmap",
        "equinox.filter_vmap",
        "equinox.filter_pmap",
        "flax.nnx.vmap",
        "flax.nnx.pmap",
        "flax.nnx.scan",
        "jax.lax.scan",
        "jax.lax.map",
        "jax.lax.associative_scan",
    }
)

# Transforms that stage the function into a jaxpr: every JAX operation in it is traced (even on
# constants), its arguments are tracers, and Python needs concrete values it does not get.
# vmap and grad alone are not here: they run the Python on concrete values where nothing is
# batched or differentiated.
STAGING_TRANSFORMS = frozenset(
    {
        "jax.checkpoint",
        "jax.eval_shape",
        "jax.make_jaxpr",
        "jax.shard_map",
        "equinox.filter_checkpoint",
        "flax.nnx.remat",
        "flax.nnx.scan",
        "jax.lax.scan",
        "jax.lax.map",
        "jax.lax.associative_scan",
        "jax.lax.fori_loop",
        "jax.lax.while_loop",
        "jax.lax.cond",
        "jax.lax.switch",
        "jax.lax.custom_root",
    }
)
# Transforms that run the Python body on every call, eagerly: only the values computed from the
# batched or differentiated inputs are tracers; arrays built from constants are concrete (checked
# with jax 0.10.2: `jnp.zeros(3)` under `vmap(hessian(f))` is an ArrayImpl). `linearize` is not
# here: it stages the linear part.
EAGER_TRANSFORMS = frozenset(
    {
        "jax.vmap",
        "jax.grad",
        "jax.value_and_grad",
        "jax.jacfwd",
        "jax.jacrev",
        "jax.hessian",
        "jax.jvp",
        "jax.vjp",
    }
)
# jit-likes that stage the function, with every non-static argument a tracer (filter_jit
# keeps Python scalars static, so its arguments are not known tracers).
TRACING_JITS = frozenset({"jax.jit", "jax.pmap", "flax.nnx.jit", "flax.nnx.pmap"})

# Pass-through wrappers, not transforms: called eagerly (or under an eager `jax.grad`) the wrapped
# function and its rules run in Python on concrete arrays; they are traced only where the wrapped
# function is called from traced code.
CUSTOM_DERIVATIVE_WRAPPERS = frozenset({"jax.custom_jvp", "jax.custom_vjp"})
# Wrappers that call the function as it is (eagerly on concrete arrays): what they wrap is traced
# only where the wrapper is called from traced code.
PASS_THROUGH_WRAPPERS = CUSTOM_DERIVATIVE_WRAPPERS | {"jax.named_call"}
# `f.defvjp(fwd, bwd)` / `@f.defjvp`: the rules run wherever `f` is differentiated.
CUSTOM_RULE_ATTRIBUTES = frozenset({"defjvp", "defvjp", "defjvps", "def_fwd", "def_bwd"})

# Functions passed here run on the host with concrete values: never traced.
HOST_CALLBACKS = frozenset(
    {
        "jax.debug.callback",
        "jax.pure_callback",
        "jax.experimental.io_callback",
        "jax.experimental.host_callback.id_tap",
        "jax.experimental.host_callback.call",
    }
)

# Functions passed here are called in the caller's own (traced or not) context.
CALL_THROUGH = frozenset(
    {
        "jax.tree_util.tree_map",
        "jax.tree_util.tree_map_with_path",
        "jax.tree.map_with_path",
        "jax.tree_util.tree_reduce",
        "jax.tree.reduce",
        "functools.reduce",
    }
)

# Classes whose instances are pytrees (so `self` is a valid jit argument).
PYTREE_CLASS_DECORATORS = frozenset(
    {
        "jax.tree_util.register_pytree_node_class",
        "jax.tree_util.register_pytree_with_keys_class",
        "jax.tree_util.register_dataclass",
        "jax.tree_util.register_static",
        "flax.struct.dataclass",
        "chex.dataclass",
        "chex.mappable_dataclass",
    }
)
PYTREE_BASES = frozenset(
    {
        "equinox.Module",
        "flax.struct.PyTreeNode",
        "typing.NamedTuple",
        "flax.nnx.Module",
        "flax.nnx.Object",
        "flax.nnx.Pytree",
        "flax.nnx.Variable",
    }
)
# Of those, the ones whose fields are the leaves (a dataclass or tuple the library flattens field
# by field; fields declared static are not leaves)
DATACLASS_PYTREE_DECORATORS = frozenset(
    {
        "jax.tree_util.register_dataclass",
        "flax.struct.dataclass",
        "chex.dataclass",
        "chex.mappable_dataclass",
    }
)
DATACLASS_PYTREE_BASES = frozenset(
    {"equinox.Module", "flax.struct.PyTreeNode", "typing.NamedTuple"}
)
# Class bases and decorators known not to make instances pytrees. Any other base or decorator
# that resolves outside the module (a helper in a sibling module, an unresolvable expression) may
# register the class or derive it from a pytree base: JAX301 does not claim a TypeError there.
NON_PYTREE_CLASS_APIS = frozenset(
    {
        "object",
        "builtins.object",
        "abc.ABC",
        "typing.Generic",
        "typing.Protocol",
        "enum.Enum",
        "dataclasses.dataclass",
        "functools.total_ordering",
        "flax.linen.Module",
    }
)
PYTREE_REGISTRATION_CALLS = frozenset(
    {
        "jax.tree_util.register_pytree_node",
        "jax.tree_util.register_pytree_with_keys",
        "jax.tree_util.register_dataclass",
        "jax.tree_util.register_static",
        "jax.tree_util.register_pytree_node_class",
    }
)

# Array-producing namespaces: under omnistaging every call here is staged into the jaxpr.
ARRAY_NAMESPACES = (
    "jax.numpy.",
    "jax.lax.",
    "jax.random.",
    "jax.nn.",
    "jax.scipy.",
    "jax.image.",
)
# Constructors of constant arrays: with static arguments they add no traced work per element
# (`[jnp.zeros(()) for _ in range(n)]` is n constants, not n growing operations).
CONSTANT_CONSTRUCTORS = frozenset(
    {
        "jax.numpy.zeros",
        "jax.numpy.ones",
        "jax.numpy.full",
        "jax.numpy.empty",
        "jax.numpy.eye",
        "jax.numpy.identity",
        "jax.numpy.arange",
        "jax.numpy.linspace",
        "jax.numpy.array",
        "jax.numpy.asarray",
    }
)
# ... except these, which return static Python values or non-array structures.
STATIC_PROJECTIONS = frozenset(
    {
        "jax.numpy.ndim",
        "jax.numpy.result_type",
        "jax.numpy.dtype",
        "jax.numpy.issubdtype",
        "jax.numpy.isdtype",
        "jax.numpy.finfo",
        "jax.numpy.iinfo",
        "jax.numpy.promote_types",
        "jax.numpy.can_cast",
        "jax.numpy.isscalar",
        "jax.numpy.iscomplexobj",
        "jax.numpy.isrealobj",
        "jax.dtypes.canonicalize_dtype",
        "jax.typeof",
        "jax.tree_util.tree_structure",
        "jax.tree.structure",
        "jax.eval_shape",
    }
)
SHAPE_PROJECTIONS = {
    "jax.numpy.shape": "tuple",
    "jax.numpy.size": "int",
    "numpy.shape": "tuple",
    "jax.lax.broadcast_shapes": "tuple",  # shapes in, a shape tuple out
    "jax.numpy.broadcast_shapes": "tuple",
    "numpy.broadcast_shapes": "tuple",
}
# Staged calls that return Python tuples/lists/pytrees rather than one array.
STRUCTURED_RESULTS = frozenset(
    {
        "jax.numpy.split",
        "jax.numpy.array_split",
        "jax.numpy.hsplit",
        "jax.numpy.vsplit",
        "jax.numpy.dsplit",
        "jax.numpy.meshgrid",
        "jax.numpy.nonzero",
        "jax.numpy.broadcast_arrays",
        "jax.numpy.linalg.eigh",
        "jax.numpy.linalg.eig",
        "jax.numpy.linalg.svd",
        "jax.numpy.linalg.qr",
        "jax.numpy.linalg.slogdet",
        "jax.numpy.histogram",
        "jax.numpy.unique",
        "jax.numpy.unravel_index",
        "jax.numpy.tril_indices",
        "jax.numpy.triu_indices",
        "jax.numpy.diag_indices",
        "jax.numpy.ix_",
        "jax.numpy.frexp",
        "jax.numpy.modf",
        "jax.numpy.divmod",
        "jax.numpy.linalg.lstsq",
        "jax.lax.scan",
        "jax.lax.fori_loop",
        "jax.lax.while_loop",
        "jax.lax.cond",
        "jax.lax.switch",
        "jax.lax.map",
        "jax.lax.top_k",
        "jax.lax.sort_key_val",
        "jax.random.split",
    }
)


# flax linen layers that map an array to one array: `nn.Dense(4)(x)` is an array (LSTM cells
# and attention with several outputs are not listed)
ARRAY_LAYERS = frozenset(
    "flax.linen." + name
    for name in [
        "Dense",
        "DenseGeneral",
        "Conv",
        "ConvTranspose",
        "Embed",
        "LayerNorm",
        "RMSNorm",
        "GroupNorm",
        "BatchNorm",
        "Dropout",
    ]
)


def is_array_api(qualified: str) -> bool:
    """True for a call into JAX's array namespaces (its result is a staged array)."""
    return qualified.startswith(ARRAY_NAMESPACES) and qualified not in STATIC_PROJECTIONS


# Functions that apply elementwise (with broadcasting and dtype promotion of their operands).
ELEMENTWISE = frozenset(
    "jax.numpy." + name
    for name in [
        "where",
        "exp",
        "exp2",
        "expm1",
        "log",
        "log1p",
        "log2",
        "log10",
        "sin",
        "cos",
        "tan",
        "sinh",
        "cosh",
        "tanh",
        "arcsin",
        "arccos",
        "arctan",
        "arctan2",
        "arcsinh",
        "arccosh",
        "arctanh",
        "sqrt",
        "cbrt",
        "rsqrt",
        "abs",
        "absolute",
        "sign",
        "floor",
        "ceil",
        "round",
        "rint",
        "trunc",
        "negative",
        "positive",
        "square",
        "power",
        "reciprocal",
        "maximum",
        "minimum",
        "clip",
        "logaddexp",
        "hypot",
        "add",
        "subtract",
        "multiply",
        "divide",
        "true_divide",
        "mod",
        "remainder",
        "fmax",
        "fmin",
        "greater",
        "less",
        "equal",
        "not_equal",
        "greater_equal",
        "less_equal",
        "logical_and",
        "logical_or",
        "logical_not",
        "isnan",
        "isinf",
        "isfinite",
        "nan_to_num",
    ]
) | frozenset(
    "jax.nn." + name
    for name in [
        "relu",
        "relu6",
        "sigmoid",
        "softplus",
        "silu",
        "swish",
        "gelu",
        "elu",
        "selu",
        "celu",
        "leaky_relu",
        "hard_tanh",
    ]
)

# Names of array attributes, methods and annotations, as the value analysis reads them.
ARRAY_ATTRIBUTES = frozenset({"T", "mT", "real", "imag", "at", "flat"})
STATIC_ATTRIBUTES = frozenset(
    {"ndim", "dtype", "weak_type", "sharding", "aval", "nbytes", "itemsize"}
)
ARRAY_METHODS = frozenset(
    {
        "reshape",
        "astype",
        "sum",
        "mean",
        "max",
        "min",
        "prod",
        "std",
        "var",
        "squeeze",
        "ravel",
        "flatten",
        "transpose",
        "dot",
        "clip",
        "conj",
        "argmax",
        "argmin",
        "cumsum",
        "cumprod",
        "swapaxes",
        "round",
        "all",
        "any",
        "take",
        "sort",
        "argsort",
        "block_until_ready",
        "at",
        "set",
        "add",
        "multiply",
        "divide",
        "get",
        "apply",
        "view",
        "repeat",
        "diagonal",
        "nonzero",
        "ptp",
        "trace",
        "conjugate",
        "copy",
    }
)
ARRAY_EVIDENCE_ATTRIBUTES = (
    ARRAY_ATTRIBUTES | STATIC_ATTRIBUTES | {"shape", "size"} | ARRAY_METHODS
) - {"copy", "get", "set", "add", "apply", "view"}
CONTAINER_ANNOTATIONS = frozenset(
    {
        "list",
        "List",
        "tuple",
        "Tuple",
        "dict",
        "Dict",
        "Sequence",
        "Mapping",
        "Iterable",
        "MutableMapping",
        "MutableSequence",
        "PyTree",
        "Params",
        "FrozenDict",
        "NamedTuple",
    }
)
ARRAY_ANNOTATIONS = frozenset(
    {
        "Array",
        "ndarray",
        "ArrayLike",
        "Float",
        "Int",
        "Bool",
        "Shaped",
        "Num",
        "Real",
        "Complex",
        "Integer",
        "UInt",
        "Key",
        "PRNGKeyArray",
        "Inexact",
        "Tracer",
        "float",
        "int",
        "complex",
    }
)
# Annotations of values that are never arrays under jit (a `bool` flag is taken for a static one).
STATIC_ANNOTATIONS = frozenset({"str", "bool", "Callable", "type", "Enum", "Literal"})
# ... and what `eqx.filter_jit` also holds static: every Python scalar (it traces arrays only).
FILTER_JIT_STATIC_ANNOTATIONS = STATIC_ANNOTATIONS | {"int", "float", "complex"}
# arrays made from the data given (`jnp.array([[0, 1], [1, 0]])`: as long as the display)
ARRAY_FROM_DATA = frozenset(
    {"jax.numpy.array", "jax.numpy.asarray", "numpy.array", "numpy.asarray"}
)
SEQUENCE_CONSTRUCTORS = (
    "jax.numpy.array",
    "jax.numpy.asarray",
    "jax.numpy.stack",
    "jax.numpy.concatenate",
    "jax.numpy.hstack",
    "jax.numpy.vstack",
    "jax.numpy.dstack",
    "jax.numpy.column_stack",
    "jax.numpy.block",
)


# Bare names (any namespace: jnp, jax.nn, lax) by how they treat shapes, for the shape solver.
SHAPE_PRESERVING_NAMES = frozenset(
    [
        "tanh",
        "exp",
        "log",
        "log1p",
        "expm1",
        "sin",
        "cos",
        "tan",
        "sqrt",
        "rsqrt",
        "abs",
        "square",
        "negative",
        "sign",
        "relu",
        "relu6",
        "sigmoid",
        "softplus",
        "gelu",
        "silu",
        "swish",
        "elu",
        "leaky_relu",
        "selu",
        "celu",
        "log_sigmoid",
        "softmax",
        "log_softmax",
        "standardize",
        "normalize",
        "logistic",
        "erf",
        "floor",
        "ceil",
        "round",
        "clip",
        "nan_to_num",
        "real",
        "imag",
        "conj",
        "stop_gradient",
        "asarray",
        "array",
        "float32",
        "reciprocal",
        "exp2",
        "log2",
        "log10",
        "cosh",
        "sinh",
        "arctan",
        "arcsin",
        "arccos",
        "sinc",
        "isnan",
        "isfinite",
        "logical_not",
        "cumsum",
        "cumprod",
    ]
)
BROADCASTING_NAMES = frozenset(
    [
        "add",
        "subtract",
        "multiply",
        "divide",
        "true_divide",
        "power",
        "maximum",
        "minimum",
        "where",
        "pow",
        "arctan2",
        "logaddexp",
        "hypot",
        "greater",
        "less",
        "equal",
        "not_equal",
        "greater_equal",
        "less_equal",
        "logical_and",
        "logical_or",
        "fmax",
        "fmin",
    ]
)
REDUCTION_NAMES = frozenset(
    [
        "sum",
        "mean",
        "max",
        "min",
        "prod",
        "var",
        "std",
        "logsumexp",
        "norm",
        "all",
        "any",
        "argmax",
        "argmin",
    ]
)


# Scalar type names shared by numpy and jax.numpy (`np.float32`, `jnp.bfloat16`).
DTYPE_NAMES = frozenset(
    [
        "float16",
        "bfloat16",
        "float32",
        "float64",
        "int8",
        "int16",
        "int32",
        "int64",
        "uint8",
        "uint32",
        "bool_",
        "complex64",
        "complex128",
    ]
)
# Functions whose result is a boolean array (a mask), by bare name.
BOOLEAN_FUNCTION_NAMES = frozenset(
    [
        "isnan",
        "isinf",
        "isfinite",
        "isclose",
        "logical_and",
        "logical_or",
        "logical_not",
        "logical_xor",
        "equal",
        "not_equal",
        "greater",
        "greater_equal",
        "less",
        "less_equal",
    ]
)
# NumPy functions that work on tracers: they call the array's own method (measured on jax 0.10.2
# under jit: `np.sum(x)` is `x.sum()`), or only read static attributes.
NUMPY_ON_TRACERS = frozenset(
    "numpy." + name
    for name in [
        "sum",
        "mean",
        "max",
        "min",
        "amax",
        "amin",
        "prod",
        "std",
        "var",
        "any",
        "all",
        "argmax",
        "argmin",
        "round",
        "around",
        "reshape",
        "transpose",
        "squeeze",
        "cumsum",
        "cumprod",
        "flip",
        "repeat",
        "real",
        "imag",
        "shape",
        "ndim",
        "size",
        "dtype",
        "result_type",
        "promote_types",
        "issubdtype",
        "finfo",
        "iinfo",
        "can_cast",
    ]
) | frozenset("numpy." + name for name in DTYPE_NAMES)
# NumPy functions that raise on a tracer and have a jax.numpy twin of the same meaning.
NUMPY_WITH_JNP_TWIN = (
    frozenset(
        [
            "sin",
            "cos",
            "tan",
            "arcsin",
            "arccos",
            "arctan",
            "arctan2",
            "sinh",
            "cosh",
            "tanh",
            "arcsinh",
            "arccosh",
            "arctanh",
            "exp",
            "exp2",
            "expm1",
            "log",
            "log2",
            "log10",
            "log1p",
            "sqrt",
            "cbrt",
            "square",
            "abs",
            "absolute",
            "sign",
            "floor",
            "ceil",
            "trunc",
            "rint",
            "clip",
            "power",
            "mod",
            "remainder",
            "hypot",
            "maximum",
            "minimum",
            "fmax",
            "fmin",
            "where",
            "dot",
            "matmul",
            "vdot",
            "inner",
            "outer",
            "einsum",
            "tensordot",
            "kron",
            "cross",
            "trace",
            "diag",
            "diagonal",
            "ravel",
            "sort",
            "argsort",
            "take",
            "roll",
            "tile",
            "concatenate",
            "stack",
            "hstack",
            "vstack",
            "expand_dims",
            "broadcast_to",
            "atleast_1d",
            "atleast_2d",
            "zeros_like",
            "ones_like",
            "full_like",
            "asarray",
            "array",
            "median",
            "percentile",
            "quantile",
            "count_nonzero",
            "conj",
            "conjugate",
            "angle",
            "linalg.norm",
            "linalg.inv",
            "linalg.det",
            "linalg.solve",
            "linalg.eigh",
            "linalg.cholesky",
            "linalg.qr",
            "linalg.svd",
            "cumsum",
            "diff",
            "convolve",
            "interp",
            "nan_to_num",
            "heaviside",
        ]
    )
    | BOOLEAN_FUNCTION_NAMES
)
# jax.numpy calls whose result is a boolean array (a mask).
BOOLEAN_RESULTS = frozenset(
    "jax.numpy." + name for name in BOOLEAN_FUNCTION_NAMES | {"isin", "signbit"}
)
# jax.numpy functions whose result size depends on the values, and the keyword that fixes it.
SIZED_BY_VALUES = {
    "jax.numpy.nonzero": "size",
    "jax.numpy.argwhere": "size",
    "jax.numpy.flatnonzero": "size",
    "jax.numpy.where": "size",
    "jax.numpy.unique": "size",
    "jax.numpy.unique_values": "size",
    "jax.numpy.unique_counts": "size",
    "jax.numpy.unique_inverse": "size",
    "jax.numpy.unique_all": "size",
    "jax.numpy.setdiff1d": "size",
    "jax.numpy.intersect1d": "size",
    "jax.numpy.union1d": "size",
    "jax.numpy.compress": "size",
    "jax.numpy.extract": "size",
    "jax.numpy.bincount": "length",
    "jax.numpy.repeat": "total_repeat_length",
}

# array constructors and their shape argument: (position, keyword)
SHAPED = {
    "jax.numpy.zeros": (0, "shape"),
    "jax.numpy.ones": (0, "shape"),
    "jax.numpy.empty": (0, "shape"),
    "jax.numpy.full": (0, "shape"),
    "jax.numpy.eye": (0, "N"),
    "jax.numpy.identity": (0, "n"),
    "jax.numpy.reshape": (1, "shape"),
    "jax.numpy.broadcast_to": (1, "shape"),
    "jax.random.normal": (1, "shape"),
    "jax.random.uniform": (1, "shape"),
    "jax.random.split": (1, "num"),
}
