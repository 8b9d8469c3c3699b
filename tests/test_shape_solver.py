"""jaxlint.verify.shape_solver: consistent example shapes for shape-coupled parameters (SPEC §5)."""

from __future__ import annotations

import inspect
import textwrap
from pathlib import Path
from typing import Any

import pytest

from jaxlint.verify import VerifyRequest, VerifyResult, jax_available, verify
from tests.conftest import FIXTURES

DATA = Path(__file__).parent / "data" / "verify"

FUNCTIONS = """
    import jax
    import jax.numpy as jnp


    def mlp(x, W1, b1, W2, b2):
        h = jnp.tanh(x @ W1 + b1)
        return h @ W2 + b2


    def attention_scores(q, k):
        return q @ k.T / jnp.sqrt(q.shape[-1])


    def linreg_loss(X, w, y):
        return jnp.mean((X @ w - y) ** 2)


    def bmm(a, b):
        return jnp.einsum("bij,bjk->bik", a, b)


    def affine(params, x):
        return params["W"] @ x + params["b"]


    def column_term(X, w, i):
        return X[:, i] * w[i]


    def double(x):
        return 2.0 * x
"""

# An ensemble of MLPs, one per leading index of the weights: the ladder (named dims 7, 3, 4) has no
# `W2` of shape (e, h, o) whose h matches W1's, so it finds no inputs.
ENSEMBLE = """
    import jax
    import jax.numpy as jnp


    @jax.jit
    def ensemble_mlp(x, W1, b1, W2, b2):
        outs = []
        for e in range(W1.shape[0]):
            h = jnp.tanh(jnp.einsum("nd,dh->nh", x, W1[e]) + b1[e])
            outs.append(jnp.einsum("nh,ho->no", h, W2[e]) + b2[e])
        return jnp.stack(outs)
"""
ENSEMBLE_VECTORIZED = """
    import jax
    import jax.numpy as jnp


    @jax.jit
    def ensemble_mlp(x, W1, b1, W2, b2):
        h = jnp.tanh(jnp.einsum("nd,edh->enh", x, W1) + b1[:, None, :])
        return jnp.einsum("enh,eho->eno", h, W2) + b2[:, None, :]
"""
# The first bias added after the tanh instead of inside it: same shapes, other values.
ENSEMBLE_WRONG = ENSEMBLE_VECTORIZED.replace(
    'jnp.tanh(jnp.einsum("nd,edh->enh", x, W1) + b1[:, None, :])',
    'jnp.tanh(jnp.einsum("nd,edh->enh", x, W1)) + b1[:, None, :]',
)


def _module(source: str, name: str, tmp_path: Path) -> Any:
    from jaxlint.verify.namespace import build_module

    path = tmp_path / f"{name}_module.py"
    source = textwrap.dedent(source)
    path.write_text(source)
    return build_module(source, str(path), name, strip_staging=True, module_name=f"_ss_{name}")


def _params(function: Any) -> Any:
    from jaxlint.verify.inputs import CALL_LADDER, DimTable, parameters, subscript_keys

    signature = inspect.signature(function)
    return parameters(signature, DimTable(), CALL_LADDER, keys=subscript_keys(function))


def _solved(name: str, tmp_path: Path) -> tuple[Any, list[Any]]:
    pytest.importorskip("jax")
    from jaxlint.verify.shape_solver import solved_bindings

    function = getattr(_module(FUNCTIONS, name, tmp_path), name)
    return function, solved_bindings(function, _params(function), 0)


def _shapes(binding: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for param, kind in zip(binding.params, binding.kinds, strict=True):
        if kind is not None and kind.kind == "array":
            out[param.name] = kind.shape
        elif kind is not None and kind.kind == "dict":
            out[param.name] = {key: k.shape for key, k in kind.items}
    return out


def _runs(function: Any, binding: Any) -> Any:
    args, kwargs = binding.make(0)
    return function(*args, **kwargs)


def test_mlp_gets_a_consistent_non_square_first_candidate(tmp_path: Path) -> None:
    function, solved = _solved("mlp", tmp_path)
    assert solved, "no candidate"
    s = _shapes(solved[0])
    assert len(s["x"]) == 2 and len(s["W1"]) == 2 and len(s["W2"]) == 2
    assert s["W1"][0] == s["x"][1] and s["W2"][0] == s["W1"][1]
    assert s["b1"] == (s["W1"][1],) and s["b2"] == (s["W2"][1],)  # biases, not broadcasting
    assert len({s["x"][0], *s["W1"], s["W2"][1]}) == 4  # every dim distinct: no square W
    out = _runs(function, solved[0])
    assert out.shape == (s["x"][0], s["W2"][1])


def test_attention_scores_transpose_couples_the_feature_dim(tmp_path: Path) -> None:
    function, solved = _solved("attention_scores", tmp_path)
    s = _shapes(solved[0])
    assert len(s["q"]) == 2 and len(s["k"]) == 2 and s["q"][1] == s["k"][1]
    assert s["q"][0] != s["k"][0]
    assert _runs(function, solved[0]).shape == (s["q"][0], s["k"][0])


def test_linear_regression_loss_has_a_vector_of_weights(tmp_path: Path) -> None:
    function, solved = _solved("linreg_loss", tmp_path)
    s = _shapes(solved[0])
    assert s == {"X": (7, 3), "w": (3,), "y": (7,)}
    assert _runs(function, solved[0]).shape == ()
    assert len(solved) > 1  # other ranks too (w a matrix, X a stack), each traced
    for binding in solved:
        _runs(function, binding)


def test_einsum_subscripts_fix_ranks_and_dims(tmp_path: Path) -> None:
    function, solved = _solved("bmm", tmp_path)
    assert len(solved) == 1  # einsum's ranks are exact: no alternatives
    s = _shapes(solved[0])
    (b, i, j), (b2, j2, k) = s["a"], s["b"]
    assert (b, j) == (b2, j2) and len({b, i, j, k}) == 4
    assert _runs(function, solved[0]).shape == (b, i, k)


def test_parameter_dict_keys_get_their_own_shapes(tmp_path: Path) -> None:
    function, solved = _solved("affine", tmp_path)
    s = _shapes(solved[0])
    W, b = s["params"]["W"], s["params"]["b"]
    assert len(W) == 2 and W[1] == s["x"][0] and b == (W[0],)
    assert _runs(function, solved[0]).shape == (W[0],)


def test_shared_integer_index_couples_axes(tmp_path: Path) -> None:
    function, solved = _solved("column_term", tmp_path)
    s = _shapes(solved[0])
    assert len(s["X"]) == 2 and s["w"] == (s["X"][1],)
    assert solved[0].kinds[2].kind == "int"  # `i` indexes: a Python int, not an array
    _runs(function, solved[0])


def test_independent_parameters_are_left_to_the_ladder(tmp_path: Path) -> None:
    _, solved = _solved("double", tmp_path)
    assert solved == []


def test_eval_shape_calls_are_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    jax = pytest.importorskip("jax")
    from jaxlint.verify import shape_solver

    calls = []
    real = jax.eval_shape
    monkeypatch.setattr(jax, "eval_shape", lambda *a, **k: calls.append(1) or real(*a, **k))
    _, solved = _solved("mlp", tmp_path)
    assert 1 < len(solved) <= shape_solver.MAX_CANDIDATES
    assert len(calls) <= shape_solver.MAX_PROBES


def test_ladder_alone_finds_no_inputs_for_the_ensemble(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("jax")
    from jaxlint.verify import check
    from jaxlint.verify.namespace import resolve_target

    target = resolve_target(_module(ENSEMBLE, "ensemble_mlp", tmp_path), "ensemble_mlp")
    plans = check.find_plans(target)
    s = _shapes(plans[0].call)
    (e, d, h), (e2, h2, o) = s["W1"], s["W2"]
    assert s["x"][1] == d and (e2, h2) == (e, h) and s["b1"] == (e, h) and s["b2"] == (e, o)
    monkeypatch.setattr(check, "with_solved", lambda function, params, generic, salt: generic)
    with pytest.raises(check._Unverifiable, match="no example inputs found"):
        check.find_plans(target)


def _request(request_id: str, rewritten: str) -> VerifyRequest:
    return VerifyRequest(
        request_id=request_id,
        path=str(DATA / f"{request_id}.py"),
        original_source=textwrap.dedent(ENSEMBLE),
        rewritten_source=textwrap.dedent(rewritten),
        target="ensemble_mlp",
        fix_code="JAX101",
        require_fewer_eqns=True,
    )


@pytest.fixture(scope="module")
def results() -> dict[str, VerifyResult]:
    """One verify() run (one child process) shared by the tests below."""
    if not jax_available():
        pytest.skip("JAX is not installed")
    requests = [
        _request("ensemble-vectorized", ENSEMBLE_VECTORIZED),
        _request("ensemble-wrong", ENSEMBLE_WRONG),
    ]
    done = verify(requests, time_limit_s=120.0)
    return {r.request_id: r for r in done}


def test_solved_shapes_verify_a_loop_rewrite(results: dict[str, VerifyResult]) -> None:
    result = results["ensemble-vectorized"]
    assert result.status == "verified", result.reason
    assert "x: float32[7,3], W1: float32[4,3,5], b1: float32[4,5]" in result.reason
    assert result.inputs_passed >= 6 and result.inputs_passed == result.inputs_tried
    assert result.eqns_after is not None and result.eqns_before is not None
    assert result.eqns_after < result.eqns_before


def test_a_wrong_rewrite_on_solved_shapes_fails(results: dict[str, VerifyResult]) -> None:
    result = results["ensemble-wrong"]
    assert result.status == "failed", result.reason
    assert "W1: float32[4,3,5]" in result.reason


def test_solved_shapes_keep_a_masks_dtype(tmp_path: Path) -> None:
    """`~done[t]` asks for bool data: the solver's shapes for `done` stay bool, so the ladder's
    first consistent signature is found (float `done` raises in every one)."""
    pytest.importorskip("jax")
    from jaxlint.verify import check
    from jaxlint.verify.namespace import resolve_target

    source = (FIXTURES / "fix" / "loop_slot_list.in.py").read_text()
    target = resolve_target(_module(source, "gae", tmp_path), "gae")
    plans = check.find_plans(target)
    kinds = dict(zip((p.name for p in plans[0].call.params), plans[0].call.kinds, strict=True))
    assert kinds["done"].dtype == "bool"
    assert kinds["done"].shape[0] == kinds["values"].shape[0] == kinds["rewards"].shape[0]
