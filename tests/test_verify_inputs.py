"""Example inputs built from annotations' classes and from the module's own call sites (SPEC §5
step 2): dataclasses, NamedTuples, registered pytree classes, static fields, parameter dicts with
per-key shapes, `f(jnp.ones((4, 3)))`. One verify() run (one JAX child) for the module."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from jaxlint.verify import VerifyRequest, VerifyResult, jax_available, verify

DATA = Path(__file__).parent / "data" / "verify"

needs_jax = pytest.mark.skipif(not jax_available(), reason="JAX is not installed")


def request(
    request_id: str, original: str, rewritten: str, target: str, *, fewer: bool = False
) -> VerifyRequest:
    return VerifyRequest(
        request_id=request_id,
        path=str(DATA / f"inputs_{request_id}.py"),
        original_source=textwrap.dedent(original),
        rewritten_source=textwrap.dedent(rewritten),
        target=target,
        fix_code="JAX101" if fewer else "X",
        require_fewer_eqns=fewer,
    )


# A registered dataclass of parameters; the rewrite runs jitted, so it must be a pytree.
PARAMS = """
    import dataclasses

    import jax
    import jax.numpy as jnp


    @jax.tree_util.register_dataclass
    @dataclasses.dataclass
    class Params:
        w: jax.Array
        b: jax.Array


    def predict(params: Params, x: jax.Array) -> jax.Array:
        return jnp.tanh(x @ params.w + params.b)
"""
PARAMS_DOT = PARAMS.replace("    def predict", "    @jax.jit\n    def predict").replace(
    "x @ params.w + params.b", "params.b + jnp.dot(x, params.w)"
)
PARAMS_NO_BIAS = PARAMS.replace(" + params.b)", ")")

# Under `from __future__ import annotations` the class is only named by a string annotation: the
# verification module does not define it (the body never reads `Params`); it is built on demand.
LAZY_PARAMS = "    from __future__ import annotations\n" + PARAMS
LAZY_PARAMS_NO_BIAS = "    from __future__ import annotations\n" + PARAMS_NO_BIAS

# A NamedTuple carried through an unrolled loop; the rewrite is a fori_loop (fewer equations).
STATE = """
    from __future__ import annotations

    from typing import TYPE_CHECKING, NamedTuple

    import jax

    if TYPE_CHECKING:
        from jaxtyping import Array, Float


    class State(NamedTuple):
        x: Float[Array, "n"]
        v: Float[Array, "n"]


    def simulate(state: State) -> State:
        for _ in range(3):
            state = State(state.x + state.v, state.v - state.x)
        return state
"""
STATE_FORI = STATE.replace(
    """    def simulate(state: State) -> State:
        for _ in range(3):
            state = State(state.x + state.v, state.v - state.x)
        return state""",
    """    @jax.jit
    def simulate(state: State) -> State:
        return jax.lax.fori_loop(
            0, 3, lambda _, state: State(state.x + state.v, state.v - state.x), state
        )""",
)
STATE_FORI_SHORT = STATE_FORI.replace("0, 3, lambda", "0, 2, lambda")

# A frozen config whose loop count is a static field (pytree metadata, not a leaf).
CONFIG = """
    import dataclasses

    import jax
    import jax.numpy as jnp


    @jax.tree_util.register_dataclass
    @dataclasses.dataclass(frozen=True)
    class Config:
        shift: int
        n_steps: int = dataclasses.field(metadata={"static": True})


    def smooth(cfg: Config, x: jax.Array) -> jax.Array:
        for _ in range(cfg.n_steps):
            x = x + jnp.roll(x, cfg.shift)
        return x
"""
CONFIG_FORI = CONFIG.replace(
    """    def smooth(cfg: Config, x: jax.Array) -> jax.Array:
        for _ in range(cfg.n_steps):
            x = x + jnp.roll(x, cfg.shift)
        return x""",
    """    @jax.jit
    def smooth(cfg: Config, x: jax.Array) -> jax.Array:
        return jax.lax.fori_loop(0, cfg.n_steps, lambda _, x: x + jnp.roll(x, cfg.shift), x)""",
)
CONFIG_FORI_FROM_1 = CONFIG_FORI.replace("fori_loop(0,", "fori_loop(1,")

# A class registered with register_pytree_node_class, built from its annotated __init__.
LAYER = """
    import jax
    import jax.numpy as jnp


    @jax.tree_util.register_pytree_node_class
    class Linear:
        def __init__(self, w: jax.Array, b: jax.Array):
            self.w = w
            self.b = b

        def tree_flatten(self):
            return (self.w, self.b), None

        @classmethod
        def tree_unflatten(cls, aux, children):
            return cls(*children)


    def apply(layer: Linear, x: jax.Array) -> jax.Array:
        return jax.nn.relu(x @ layer.w + layer.b)
"""
LAYER_JIT = LAYER.replace("    def apply", "    @jax.jit\n    def apply").replace(
    "jax.nn.relu(x @ layer.w + layer.b)", "jax.nn.relu(jnp.matmul(x, layer.w) + layer.b)"
)
LAYER_TRANSPOSED = LAYER.replace("x @ layer.w", "x @ layer.w.T")

# No annotations: only the module's own call says what `x` is (the ladder has no 12-element
# array), `jnp.ones((4, 3))` at module level; that statement itself is never run.
CALLED = """
    import jax.numpy as jnp


    def pair_sums(x):
        return x.reshape(2, 6).sum(axis=0)


    out = pair_sums(jnp.ones((4, 3)))
"""
CALLED_WRONG = CALLED.replace(".sum(axis=0)", ".sum(axis=1)")

# A call inside main() with a dataclass of the module and a jax.random sampler, through locals.
MAIN_CALL = """
    import dataclasses

    import jax
    import jax.numpy as jnp


    @dataclasses.dataclass
    class Params:
        w: jax.Array
        b: jax.Array


    def loss(params, x):
        return jnp.mean((x @ params.w + params.b) ** 2)


    def main():
        key, init_key = jax.random.split(jax.random.PRNGKey(0))
        params = Params(w=jax.random.normal(init_key, (3, 2)), b=jnp.zeros(2))
        x = jax.random.normal(key, (5, 3))
        print(loss(params, x))


    if __name__ == "__main__":
        main()
"""
MAIN_CALL_SQUARE = MAIN_CALL.replace(
    "jnp.mean((x @ params.w + params.b) ** 2)",
    ("jnp.mean(jnp.square(jnp.dot(x, params.w) + params.b))"),
)
MAIN_CALL_NO_BIAS = MAIN_CALL.replace(" + params.b) ** 2", ") ** 2")

# An argument made by a user function is never evaluated: no inputs, so unverifiable.
USER_CALL = """
    import jax.numpy as jnp


    def make_data():
        return jnp.ones((4, 3))


    def pair_sums(x):
        return x.reshape(2, 6).sum(axis=0)


    out = pair_sums(make_data())
"""

# A parameter dict whose keys need different shapes: `w` a matrix, `b` its output vector.
LINEAR_DICT = """
    import jax.numpy as jnp


    def linear(params, x):
        n_in, n_out = params["w"].shape
        return x @ params["w"] + params["b"].reshape(n_out)
"""
LINEAR_DICT_DOT = LINEAR_DICT.replace(
    'x @ params["w"] + params["b"].reshape(n_out)',
    'jnp.dot(x, params["w"]) + params["b"].reshape(n_out)',
)
LINEAR_DICT_NO_BIAS = LINEAR_DICT.replace(' + params["b"].reshape(n_out)', "")

# A tuple state unpacked in the body (`q, p = state`): a tuple of two arrays, not a NamedTuple.
TUPLE_STATE = """
    import jax
    import jax.numpy as jnp


    def oscillate(state, dt):
        q, p = state
        for _ in range(4):
            q, p = q + dt * p, p - dt * q
        return q, p
"""
TUPLE_STATE_FORI = TUPLE_STATE.replace(
    """        for _ in range(4):
            q, p = q + dt * p, p - dt * q
        return q, p""",
    """        def step(_, carry):
            q, p = carry
            return q + dt * p, p - dt * q

        return jax.lax.fori_loop(0, 4, step, (q, p))""",
)
TUPLE_STATE_WRONG = TUPLE_STATE_FORI.replace("p - dt * q", "p + dt * q")

# A linear filter: seven parameters whose shapes are coupled through `@`, a carried state.
FILTER = """
    import jax.numpy as jnp


    def track(F, H, Q, R, x0, P0, ys):
        x, P = x0, P0
        for t in range(ys.shape[0]):
            x = F @ x
            P = F @ P @ F.T + Q
            x = x + 0.1 * H.T @ (ys[t] - H @ x)
        return x, P
"""
FILTER_NO_NOISE = FILTER.replace("F @ P @ F.T + Q", "F @ P @ F.T")

# Host randomness: two runs of the original on the same inputs differ.
HOST_NOISE = """
    import jax.numpy as jnp
    import numpy as np


    def jitter(x):
        return jnp.tanh(x + np.random.normal(size=x.shape).astype(np.float32))
"""

REQUESTS = [
    request("tuple-state", TUPLE_STATE, TUPLE_STATE_FORI, "oscillate", fewer=True),
    request("tuple-state-wrong", TUPLE_STATE, TUPLE_STATE_WRONG, "oscillate", fewer=True),
    request("filter", FILTER, FILTER, "track"),
    request("filter-no-noise", FILTER, FILTER_NO_NOISE, "track"),
    request("host-noise", HOST_NOISE, HOST_NOISE, "jitter"),
    request("params-dot", PARAMS, PARAMS_DOT, "predict"),
    request("params-no-bias", PARAMS, PARAMS_NO_BIAS, "predict"),
    request("lazy-params", LAZY_PARAMS, LAZY_PARAMS, "predict"),
    request("lazy-params-no-bias", LAZY_PARAMS, LAZY_PARAMS_NO_BIAS, "predict"),
    request("state-fori", STATE, STATE_FORI, "simulate", fewer=True),
    request("state-fori-short", STATE, STATE_FORI_SHORT, "simulate", fewer=True),
    request("config-fori", CONFIG, CONFIG_FORI, "smooth", fewer=True),
    request("config-fori-from-1", CONFIG, CONFIG_FORI_FROM_1, "smooth", fewer=True),
    request("layer-jit", LAYER, LAYER_JIT, "apply"),
    request("layer-transposed", LAYER, LAYER_TRANSPOSED, "apply"),
    request("called", CALLED, CALLED, "pair_sums"),
    request("called-wrong", CALLED, CALLED_WRONG, "pair_sums"),
    request("main-call", MAIN_CALL, MAIN_CALL_SQUARE, "loss"),
    request("main-call-no-bias", MAIN_CALL, MAIN_CALL_NO_BIAS, "loss"),
    request("user-call", USER_CALL, USER_CALL, "pair_sums"),
    request("linear-dict", LINEAR_DICT, LINEAR_DICT_DOT, "linear"),
    request("linear-dict-no-bias", LINEAR_DICT, LINEAR_DICT_NO_BIAS, "linear"),
]


@pytest.fixture(scope="module")
def results() -> dict[str, VerifyResult]:
    """One verify() run (one child process) shared by the tests below."""
    if not jax_available():
        pytest.skip("JAX is not installed")
    done = verify(REQUESTS, time_limit_s=120.0)
    assert [r.request_id for r in done] == [r.request_id for r in REQUESTS]
    return {r.request_id: r for r in done}


def test_dataclass_params_are_built_field_by_field(results: dict[str, VerifyResult]) -> None:
    result = results["params-dot"]
    assert result.status == "verified", result.reason
    assert "predict(params: Params(w: float32[7], b: float32[7]), x: float32[7])" in result.reason
    # other signatures vary the fields' ranks: w a matrix beside a vector x
    assert "Params(w: float32[7,3]" in result.reason
    assert "axis 7→19" in result.reason and "bfloat16 data" in result.reason


def test_a_rewrite_that_drops_a_field_fails(results: dict[str, VerifyResult]) -> None:
    result = results["params-no-bias"]
    assert result.status == "failed", result.reason
    assert "Params(w: float32[7], b: float32[7])" in result.reason


def test_class_named_only_by_a_lazy_annotation_is_built(results: dict[str, VerifyResult]) -> None:
    assert results["lazy-params"].status == "verified", results["lazy-params"].reason
    assert "Params(w: float32[7], b: float32[7])" in results["lazy-params"].reason
    result = results["lazy-params-no-bias"]
    assert result.status == "failed", result.reason


def test_namedtuple_state_through_a_loop_rewrite(results: dict[str, VerifyResult]) -> None:
    result = results["state-fori"]
    assert result.status == "verified", result.reason
    assert "simulate(state: State(x: float32[7], v: float32[7]))" in result.reason
    assert result.eqns_before is not None and result.eqns_after is not None
    assert result.eqns_after < result.eqns_before
    short = results["state-fori-short"]
    assert short.status == "failed", short.reason
    assert "State(x: float32[7], v: float32[7])" in short.reason


def test_static_field_of_a_frozen_config_is_a_python_value(
    results: dict[str, VerifyResult],
) -> None:
    result = results["config-fori"]
    assert result.status == "verified", result.reason
    assert "cfg: Config(shift: int, n_steps: int)" in result.reason
    wrong = results["config-fori-from-1"]
    assert wrong.status == "failed", wrong.reason
    assert "Config(shift: int, n_steps: int)" in wrong.reason


def test_registered_pytree_class_from_its_annotated_init(
    results: dict[str, VerifyResult],
) -> None:
    result = results["layer-jit"]
    assert result.status == "verified", result.reason
    assert "layer: Linear(w: float32[" in result.reason
    # w is tried as a matrix (x @ w.T differs from x @ w only there)
    assert "Linear(w: float32[7,3]" in result.reason or "Linear(w: float32[3,3]" in result.reason
    wrong = results["layer-transposed"]
    assert wrong.status == "failed", wrong.reason
    assert "Linear(w: float32[7,3], b: float32[7,3])" in wrong.reason


def test_module_level_call_gives_the_input(results: dict[str, VerifyResult]) -> None:
    result = results["called"]
    assert result.status == "verified", result.reason
    assert "pair_sums(x: float32[4,3] (call at line 9))" in result.reason
    wrong = results["called-wrong"]
    assert wrong.status == "failed", wrong.reason
    assert "x: float32[4,3] (call at line 9)" in wrong.reason


def test_call_in_main_with_a_dataclass_and_a_sampler(results: dict[str, VerifyResult]) -> None:
    result = results["main-call"]
    assert result.status == "verified", result.reason
    assert (
        "loss(params: Params(w: float32[3,2], b: float32[2]) (call at line 22), "
        "x: float32[5,3] (call at line 22))"
    ) in result.reason
    wrong = results["main-call-no-bias"]
    assert wrong.status == "failed", wrong.reason


def test_user_calls_in_arguments_are_not_evaluated(results: dict[str, VerifyResult]) -> None:
    result = results["user-call"]
    assert result.status == "unverifiable", result.reason
    assert "no example inputs found for pair_sums(x)" in result.reason


def test_parameter_dict_keys_get_their_own_shapes(results: dict[str, VerifyResult]) -> None:
    result = results["linear-dict"]
    assert result.status == "verified", result.reason
    assert "params: {w: float32[7,3], b: float32[3]}, x: float32[7]" in result.reason
    wrong = results["linear-dict-no-bias"]
    assert wrong.status == "failed", wrong.reason
    assert "{w: float32[7,3], b: float32[3]}" in wrong.reason


# --- kinds and the call-site interpreter (these import JAX in the test process) ---

# Runtime annotations, a nested dataclass, a variadic tuple, jaxtyping as text (not installed).
STRUCTS = """
    import dataclasses

    import jax


    @dataclasses.dataclass
    class Inner:
        scale: float


    @dataclasses.dataclass
    class Params:
        w: "Float[Array, 'n d']"
        inner: Inner
        pair: tuple[jax.Array, ...]
        steps: int = dataclasses.field(metadata={"static": True})
        bias: float = 0.0


    @dataclasses.dataclass(init=False)
    class MLP:  # an equinox Module's way: fields made by its own __init__
        w: jax.Array

        def __init__(self, size: int, key: "PRNGKeyArray"):
            self.w = jax.random.normal(key, (size, size))
"""


@needs_jax
def test_struct_kinds_describe_vary_and_profile() -> None:
    import sys
    import types

    module = types.ModuleType("_jaxlint_test_structs")
    sys.modules[module.__name__] = module  # dataclasses look their module up
    code = compile(textwrap.dedent(STRUCTS), "<structs>", "exec", dont_inherit=True)
    try:
        exec(code, vars(module))  # runtime annotations (not this file's lazy ones)
        check_struct_kinds(module.Params, module.Inner)
        check_init_kinds(module.MLP)
    finally:
        del sys.modules[module.__name__]


def check_struct_kinds(Params: type, Inner: type) -> None:  # noqa: N803 - classes
    from jaxlint.verify.inputs import ArgKind, Binding, DimTable, Param, annotation_kinds

    kinds = annotation_kinds(Params, DimTable())
    assert kinds is not None and 1 < len(kinds) <= 12
    first = kinds[0]
    assert first.describe() == (
        "Params(w: float32[7,3], inner: Inner(scale: float), "
        "pair: (float32[7], float32[7]), steps: int)"
    )
    resized = first.resized(7, 19)
    assert "w: float32[19,3]" in resized.describe() and "(float32[19], float32[19])" in (
        resized.describe()
    )
    retyped = first.retyped("bfloat16")
    assert "w: bfloat16[7,3]" in retyped.describe() and "scale: float" in retyped.describe()
    assert first.profile() != kinds[1].profile()  # another field rank: another signature
    binding = Binding((Param("params", False, kinds),), (first,), salt=0)
    assert binding.sizes() == [7, 3] and binding.leading_sizes() == {7}
    assert binding.has_float32_data()
    (made,), _ = binding.make(0)
    (again,), _ = binding.make(0)
    assert isinstance(made, Params) and made.w.shape == (7, 3) and made.bias == 0.0
    assert isinstance(made.inner, Inner) and made.steps == 3 and len(made.pair) == 2
    assert (made.w == again.w).all()  # the same every run
    assert not (made.pair[0] == made.pair[1]).all()  # fields get their own seeds
    assert ArgKind("dict", (7,), keys=("x", "y")).describe() == "{x, y: float32[7]}"


def check_init_kinds(MLP: type) -> None:  # noqa: N803 - a class
    from jaxlint.verify.inputs import DimTable, annotation_kinds

    (kind,) = annotation_kinds(MLP, DimTable())
    assert kind.describe() == "MLP(size: int, key: key)"
    made = kind.make(0, seed=5)
    assert isinstance(made, MLP) and made.w.shape == (3, 3)


@needs_jax
def test_only_registered_pytree_classes_are_built_from_their_init() -> None:
    import jax

    from jaxlint.verify.inputs import DimTable, annotation_kinds

    class Plain:  # a constructor that may do anything: never called to make inputs
        def __init__(self, w: jax.Array) -> None:
            self.w = w

    class Registered(Plain):
        pass

    jax.tree_util.register_pytree_node(
        Registered, lambda r: ((r.w,), None), lambda _, children: Registered(*children)
    )
    assert annotation_kinds(Plain, DimTable()) is None
    kinds = annotation_kinds(Registered, DimTable())
    assert kinds is not None and kinds[0].describe() == "Registered(w: float32[7])"


@needs_jax
def test_call_site_literals_keep_their_positions() -> None:
    from jaxlint.verify.inputs import ArgKind, Binding, Param

    params = (Param("n", False, ()), Param("x", False, ()), Param("scale", False, ()))
    literal, array = ArgKind("value", value=3), ArgKind("array", (4,))
    args, kwargs = Binding(params, (literal, array, None), salt=0).make(0)
    assert args[0] == 3 and args[1].shape == (4,) and not kwargs
    args, kwargs = Binding(params, (literal, None, ArgKind("value", value=2.0)), 0).make(0)
    assert args == (3,) and kwargs == {"scale": 2.0}  # after a default: by name


@needs_jax
def test_parameter_dicts_try_per_key_shapes_within_a_bound() -> None:
    from jaxlint.verify.inputs import MAX_DICT_KINDS, dict_kinds

    kinds = dict_kinds(("w", "b"))
    described = [k.describe() for k in kinds]
    assert described[:2] == ["{w, b: float32[7]}", "{w, b: float32[7,3]}"]
    assert "{w: float32[7,3], b: float32[3]}" in described
    assert len(set(described)) == len(described)
    assert len(dict_kinds(tuple("abcdefghij"))) == MAX_DICT_KINDS


@needs_jax
def test_call_site_interpreter_allows_only_constructors_and_literals() -> None:
    import ast

    from jaxlint.verify.call_sites import _assignments, _Evaluator, _Unsafe, kind_of_value

    source = textwrap.dedent(
        """
        import os
        import jax
        import jax.numpy as jnp
        from jax import random as jr
        N = 4
        """
    )
    evaluator = _Evaluator(ast.parse(source), resolver=None)
    scopes = [{"N": [(6, ast.parse("4", mode="eval").body)]}]

    def evaluate(text: str) -> object:
        return evaluator.evaluate(ast.parse(text, mode="eval").body, scopes, 100, 0)

    assert kind_of_value(evaluate("jnp.ones((N, 3))")).describe() == "float32[4,3]"
    made = kind_of_value(evaluate("jr.normal(jr.PRNGKey(0), (2, N), dtype=jnp.float16)"))
    assert made.describe() == "float16[2,4]"
    literal = kind_of_value(evaluate("{'lr': 1e-3, 'dims': (N * 2, 3)}"), "call at line 3")
    assert literal.describe() == "{lr: 0.001, dims: (8, 3)} (call at line 3)"
    # `key, subkey = jax.random.split(key)` then a sampler of `subkey`, through the scope's lines
    tree = ast.parse(
        "key = jax.random.PRNGKey(0)\nkey, subkey = jax.random.split(key)\n"
        "x = jax.random.uniform(subkey, (3,))\n"
    )
    local = [_assignments(tree)]
    x = evaluator.evaluate(ast.parse("x", mode="eval").body, local, 10, 0)
    assert kind_of_value(x).describe() == "float32[3]"
    key = kind_of_value(evaluate("jax.random.PRNGKey(1 << 30)"))
    assert key.kind == "value" and key.describe() == "uint32[2]"
    for refused in (
        "os.system('true')",
        "jnp.ones((1 << 15, 1 << 15))",
        "make_data()",
        "jnp.ones(shape)",
        "__import__('os')",
        "jnp.load('x.npy')",
        "(lambda: 1)()",
    ):
        with pytest.raises(_Unsafe):
            evaluate(refused)


def _grid_step(grid, action, table, scale):
    nodes = grid.flatten()
    return table[action % 4] * scale, ~nodes


def _gae_step(values, rewards, done, gamma, t):
    return rewards[t] + gamma * values[t + 1] * ~done[t] - values[t]


def test_indices_and_inverted_masks_ask_for_integer_and_bool_data() -> None:
    from jaxlint.verify.inputs import data_dtypes

    assert data_dtypes(_grid_step) == {"action": "int32", "grid": "bool"}
    # a mask inverted row by row, `~done[t]`
    assert data_dtypes(_gae_step) == {"done": "bool", "t": "int32"}


def test_a_mask_is_tried_as_bool_first_and_an_index_as_float_first() -> None:
    import inspect

    from jaxlint.verify.inputs import CALL_LADDER, DimTable, data_dtypes, parameters

    params = parameters(
        inspect.signature(_gae_step), DimTable(), CALL_LADDER, dtypes=data_dtypes(_gae_step)
    )
    first = {p.name: p.candidates[0].describe() for p in params}
    # `~` raises on float data; an index may be a float array's row
    assert first == {
        "values": "float32[7]",
        "rewards": "float32[7]",
        "done": "bool[7]",
        "gamma": "float32[7]",
        "t": "float32[7]",
    }


def test_an_unpacked_tuple_state_is_a_tuple_of_arrays(results: dict[str, VerifyResult]) -> None:
    result = results["tuple-state"]
    assert result.status == "verified", result.reason
    assert "oscillate(state: (float32[7], float32[7])" in result.reason
    wrong = results["tuple-state-wrong"]
    assert wrong.status == "failed", wrong.reason


def test_coupled_matrices_of_a_filter_get_one_consistent_signature(
    results: dict[str, VerifyResult],
) -> None:
    result = results["filter"]
    assert result.status == "verified", result.reason
    # F square (a carried state through `F @ x`), H from the state to the measurement
    assert "F: float32[7,7]" in result.reason and "x0: float32[7]" in result.reason
    wrong = results["filter-no-noise"]
    assert wrong.status == "failed", wrong.reason


def test_a_nondeterministic_original_is_refused(results: dict[str, VerifyResult]) -> None:
    result = results["host-noise"]
    assert result.status == "unverifiable", result.reason
    assert "the original is nondeterministic" in result.reason
