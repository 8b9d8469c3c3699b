"""JAX501/JAX502 against JAX's own key-reuse checker, on the rules' fixtures and their fixes.

Every public function of a `jax50*` fixture runs as `fn(jax.random.key(0))` under
`jax.debug_key_reuse(True)`: a function with an `# expect:` marker must raise KeyReuseError
(or, marked `# confirm: equal-draws`, return draws that are all equal: keys made afresh from
one seed are invisible to the checker), and every other function must run clean, except those
marked `# confirm: intentional-reuse`: idioms that reuse a key on purpose, which the checker
must see as reuse and jaxlint must leave alone. Then the
suggested fixes are applied (`--unsafe-fixes`) and each function whose finding was fixed must
run clean too: a fix that leaves the reuse, or breaks the code, fails here.
"""

from __future__ import annotations

import contextlib
import inspect
import io
import linecache
import re
import runpy
from pathlib import Path

import pytest

from jaxlint.engine.config import Config
from jaxlint.fixes.pipeline import lint_source
from tests.conftest import FIXTURES, module_from_source

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")

PRNG_FIXTURES = sorted((FIXTURES / "rules").glob("jax50*.py"))
MARKER = re.compile(r"#\s*expect:\s*JAX50[12]\b")
EQUAL_DRAWS = re.compile(r"^\s*#\s*confirm:\s*equal-draws\s*$", re.MULTILINE)
INTENTIONAL = re.compile(r"^\s*#\s*confirm:\s*intentional-reuse\s*$", re.MULTILINE)
SELECT = Config(select=("JAX501", "JAX502"))


def _functions(path: Path) -> list[tuple[str, str]]:
    module = module_from_source(path.read_text(encoding="utf-8"), path.stem, str(path))
    return [
        (path.name, name)
        for name, function in inspect.getmembers(module, inspect.isfunction)
        if function.__module__ == path.stem and not name.startswith("_")
    ]


CASES = [case for path in PRNG_FIXTURES for case in _functions(path)]


def _run(function, *args):
    with contextlib.redirect_stdout(io.StringIO()), jax.debug_key_reuse(True):
        return function(*args)


def _leaves(tree) -> list:
    """Array leaves of a pytree, looking inside plain objects (the fixtures' layer classes)."""
    found = []
    for leaf in jax.tree_util.tree_leaves(tree):
        if hasattr(leaf, "__dict__") and not hasattr(leaf, "shape"):
            found += _leaves(vars(leaf))
        else:
            found.append(jnp.asarray(leaf))
    return found


def _all_equal(draws) -> bool:
    first = _leaves(draws[0])
    return all(
        len(first) == len(other)
        and all(bool(jnp.array_equal(a, b)) for a, b in zip(first, other, strict=True))
        for other in map(_leaves, draws[1:])
    )


def _load(path: Path, fixed: str | None = None):
    """The fixture as a module, or its fixed text (whose source `inspect` can read too)."""
    if fixed is None:
        return module_from_source(path.read_text(encoding="utf-8"), path.stem, str(path))
    filename = f"{path}.fixed"
    linecache.cache[filename] = (len(fixed), None, fixed.splitlines(True), filename)
    return module_from_source(fixed, f"{path.stem}_fixed", filename)


@pytest.mark.parametrize("filename,name", CASES, ids=[f"{f}::{n}" for f, n in CASES])
def test_each_positive_reuses_a_key_and_each_negative_does_not(filename: str, name: str) -> None:
    path = FIXTURES / "rules" / filename
    function = getattr(_load(path), name)
    source = inspect.getsource(function)
    if INTENTIONAL.search(source):
        assert not MARKER.search(source)
        with pytest.raises(jax.errors.KeyReuseError):
            _run(function, jax.random.key(0))
    elif not MARKER.search(source):
        result = _run(function, jax.random.key(0))
        if isinstance(result, list) and len(result) >= 2:
            assert not _all_equal(result), "a negative draws the same numbers every time"
    elif EQUAL_DRAWS.search(source):
        draws = _run(function, jax.random.key(0))
        assert len(draws) >= 2 and _all_equal(draws)
    else:
        with pytest.raises(jax.errors.KeyReuseError):
            _run(function, jax.random.key(0))


def test_a_script_block_reusing_a_key_is_found_and_raises() -> None:
    path = FIXTURES / "rules" / "jax501_vae_sampler.py"
    source = path.read_text(encoding="utf-8")
    script = source.index('if __name__ == "__main__":')
    assert any(MARKER.search(line) for line in source[script:].splitlines())
    with pytest.raises(jax.errors.KeyReuseError):
        _run(runpy.run_path, str(path), None, "__main__")


NNX_LAYERS = """
import jax.numpy as jnp
from flax import nnx


class ActLayer(nnx.Module):
    def __init__(self, n_in, n_out, seed: int = 42):
        self.rngs = nnx.Rngs(seed)
        self.w = nnx.Param(jax.random.normal(self.rngs.params(), (n_in, n_out)))


class ActNet(nnx.Module):
    def __init__(self, layer_dims, seed: int = 42):
        self.layers = nnx.List([
            ActLayer(n_in=layer_dims[i], n_out=layer_dims[i + 1], seed=seed)
            for i in range(len(layer_dims) - 1)
        ])


def tower(dims, seed=0):
    return [ActLayer(n_in=d, n_out=d, seed=seed + i) for i, d in enumerate(dims)]
"""


def test_layers_seeded_through_nnx_rngs_in_a_loop_over_sizes_are_found() -> None:
    # an `nnx.Rngs(seed)` in a layer's constructor consumes its seed: the layers of one network
    # built from one seed in a loop over their sizes start alike (flax is not needed to lint)
    found = lint_source(NNX_LAYERS, "nnx_layers.py", SELECT, verify=False).diagnostics
    lines = NNX_LAYERS.splitlines()
    assert [(d.code, lines[d.line - 1].strip()[:9]) for d in found] == [("JAX502", "ActLayer(")]
    assert "layer_dims[i]" in lines[found[0].line - 1]


NUMPYRO_PREDICT = """
import jax
import jax.numpy as jnp
import numpyro.distributions as dist


def predict(rng_key, x_new, sigma_x, n):
    x_prime = dist.Normal(x_new, sigma_x).sample(rng_key, sample_shape=(n,)).mean(0)
    mean, cov = x_prime, jnp.eye(x_prime.shape[0])
    return dist.MultivariateNormal(mean, cov).sample(rng_key, sample_shape=(n,))


def fresh_keys(rng_key, x_new, sigma_x, n):
    k1, k2 = jax.random.split(rng_key)
    x_prime = dist.Normal(x_new, sigma_x).sample(k1, sample_shape=(n,)).mean(0)
    return dist.Normal(x_prime, sigma_x).sample(k2, sample_shape=(n,))
"""


def test_a_numpyro_distribution_sampled_twice_from_one_key_is_found() -> None:
    # gpax's uigp: the input noise and the predictive sample drawn from one key (numpyro's
    # `sample(key, shape)` draws from the key it is given first; not needed to lint)
    found = lint_source(NUMPYRO_PREDICT, "uigp.py", SELECT, verify=False).diagnostics
    lines = NUMPYRO_PREDICT.splitlines()
    assert [(d.code, lines[d.line - 1].strip()[:6]) for d in found] == [("JAX501", "return")]
    assert "MultivariateNormal" in lines[found[0].line - 1]


@pytest.mark.parametrize("path", PRNG_FIXTURES, ids=lambda p: p.name)
def test_applied_suggestions_remove_the_reuse(path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    result = lint_source(source, str(path), SELECT, fix=True, unsafe_fixes=True, verify=False)
    if not any(MARKER.search(line) for line in source.splitlines()):
        assert result.fixed_source is None
        return
    fixed = result.fixed_source
    if fixed is None:  # then every finding says why it has no fix (a seed is not a key)
        reasons = [d.fix.note for d in result.diagnostics if d.fix is not None]
        assert result.diagnostics and all(reasons) and len(reasons) == len(result.diagnostics)
        return
    compile(fixed, str(path), "exec")
    fixed_module = _load(path, fixed)
    original = _load(path)
    again = lint_source(fixed, str(path), SELECT).diagnostics
    still = {d.line for d in again}
    changed = 0
    for name, function in inspect.getmembers(fixed_module, inspect.isfunction):
        if function.__module__ != fixed_module.__name__ or name.startswith("_"):
            continue
        before = inspect.getsource(getattr(original, name))
        after = inspect.getsource(function)
        if before == after:
            continue
        changed += 1
        _run(function, jax.random.key(0))  # no KeyReuseError, no other error
        lines, start = inspect.getsourcelines(function)
        assert not still & set(range(start, start + len(lines))), f"{name} still reuses a key"
    assert changed, "the fixes changed no function"
    assert lint_source(fixed, str(path), SELECT, fix=True, unsafe_fixes=True).fixed_source in (
        None,
        fixed,
    ), "fixing the fixed text changes it again"


def test_a_key_stored_once_on_an_object_repeats_its_draws_and_an_advanced_one_does_not() -> None:
    """jax502_stored_keys.py: `DataLoader.shuffle` (flagged) permutes alike every epoch (raw
    `PRNGKey` arrays are invisible to the key-reuse checker, so the draws are compared);
    `Explorer.act` and `SamplerState.perturb` (not flagged) advance their keys."""
    path = FIXTURES / "rules" / "jax502_stored_keys.py"
    module = _load(path)
    loader = module.DataLoader(jnp.arange(8.0), jnp.arange(8.0), batch_size=4, seed=3)
    loader.shuffle()
    first = loader.x
    loader.shuffle()
    again = module.DataLoader(first, first, batch_size=4, seed=3)
    again.shuffle()
    assert jnp.array_equal(loader.x, again.x), "the same permutation every call"
    assert jnp.array_equal(loader.noisy_batch(0), loader.noisy_batch(0))
    explorer = module.Explorer(n_actions=100, seed=0)
    q = jnp.zeros(100)
    assert len({int(explorer.act(q, epsilon=1.0)) for _ in range(5)}) > 1
    state = module._make_state(jnp.zeros(3), seed=0)
    once = state.perturb(1.0)
    twice = once.perturb(1.0)
    assert not jnp.array_equal(once.position - state.position, twice.position - once.position)


def test_a_default_key_draws_the_same_numbers_on_every_call() -> None:
    """jax502_default_keys.py: each helper whose key default is reported draws the same numbers
    on every call that leaves the key out; JAX's checker, which follows typed keys
    (`jax.random.key`, not the raw `PRNGKey` arrays), raises on the second draw."""
    with jax.debug_key_reuse(True):  # the defaults are made as the module loads
        module = _load(FIXTURES / "rules" / "jax502_default_keys.py")
    for helper, size in (
        (module._randu, (3,)),
        (module._randn, (3,)),
        (module._bootstrap_indices, 3),
    ):
        assert _all_equal([helper(size), helper(size)])
    with pytest.raises(jax.errors.KeyReuseError):
        _run(module._resample_means, jnp.arange(5.0))
