"""The project index: functions traced from other modules of the package are linted as traced."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from jaxlint.analysis.jax_api import TraceKind
from jaxlint.analysis.project import build_project_index, module_site
from jaxlint.engine.config import Config
from jaxlint.files import LintOptions, index_project, lint_path

LOSSES = """
    import jax.numpy as jnp


    def mse(pred, target):
        err = jnp.mean((pred - target) ** 2)
        print("mse", err)
        return err


    def unused(pred):
        print("host side", pred)
        return pred
"""
TRAIN = """
    import jax

    from . import losses


    @jax.jit
    def step(w, x, y):
        return losses.mse(x @ w, y)
"""
GRADS = """
    import jax

    from pkg.metrics import penalty

    penalty_grad = jax.grad(penalty)
"""
METRICS = """
    def penalty(w):
        print("penalty of", w)
        return (w**2).sum()
"""


def make_package(root: Path, files: dict[str, str]) -> Path:
    package = root / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    for name, source in files.items():
        (package / name).write_text(textwrap.dedent(source))
    return package


def check(cwd: Path, *paths: str) -> list[dict]:
    done = subprocess.run(
        [sys.executable, "-m", "jaxlint", "check", "--output-format", "json", *paths],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode in (0, 1), done.stderr
    return json.loads(done.stdout)


def test_module_site_follows_init_files(tmp_path: Path) -> None:
    package = make_package(tmp_path, {"losses.py": LOSSES})
    assert module_site(package / "losses.py").name == "pkg.losses"
    assert module_site(package / "losses.py").package == "pkg"
    assert module_site(package / "__init__.py").package == "pkg"


def test_a_helper_called_from_a_jitted_step_in_another_module_is_traced(tmp_path: Path) -> None:
    make_package(tmp_path, {"losses.py": LOSSES, "train.py": TRAIN})
    found = check(tmp_path, "pkg")
    assert [(Path(d["path"]).name, d["line"], d["code"]) for d in found] == [
        ("losses.py", 7, "JAX201")  # `unused` is never traced: its print is fine
    ]


def test_the_changed_file_alone_sees_its_package(tmp_path: Path) -> None:
    # pre-commit passes only the changed files: the package's other modules are indexed too
    make_package(tmp_path, {"losses.py": LOSSES, "train.py": TRAIN})
    found = check(tmp_path, "pkg/losses.py")
    assert [(d["line"], d["code"]) for d in found] == [(7, "JAX201")]


def test_without_the_jitted_caller_nothing_is_traced(tmp_path: Path) -> None:
    make_package(tmp_path, {"losses.py": LOSSES})
    assert check(tmp_path, "pkg") == []


def test_a_function_passed_to_a_transform_in_another_module_is_traced(tmp_path: Path) -> None:
    package = make_package(tmp_path, {"grads.py": GRADS, "metrics.py": METRICS})
    index = build_project_index([package / "grads.py"])
    view = index.view(str(package / "metrics.py"))
    assert view.package == "pkg"
    kind, reason = view.traced_from_outside["penalty"]
    assert kind == TraceKind.CONCRETE and str(reason) == "passed to jax.grad in pkg.grads"
    found = check(tmp_path, "pkg")
    assert [(Path(d["path"]).name, d["code"]) for d in found] == [("metrics.py", "JAX201")]


def test_flake8_sees_the_package_as_the_command_line_does(tmp_path: Path) -> None:
    make_package(tmp_path, {"losses.py": LOSSES, "train.py": TRAIN})
    done = subprocess.run(
        [sys.executable, "-m", "flake8", "--select", "JAX", "pkg/losses.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.stdout.splitlines() == [
        "pkg/losses.py:7:5: JAX201 print in traced `mse` runs once, at trace time, and prints "
        "1 tracer argument instead of values; use jax.debug.print"
    ], done.stdout + done.stderr


DOUBLE = """
    import jax.numpy as jnp

    def accumulate(xs):
        return jnp.sum(jnp.asarray(xs, dtype=jnp.float64))
"""


def test_float64_is_flagged_only_where_no_part_of_the_project_enables_x64(tmp_path: Path) -> None:
    make_package(tmp_path, {"sums.py": DOUBLE})
    assert [d["code"] for d in check(tmp_path, "pkg/sums.py")] == ["JAX401"]
    (tmp_path / "pkg" / "__init__.py").write_text(
        'import jax\n\njax.config.update("jax_enable_x64", True)\n'
    )
    assert check(tmp_path, "pkg/sums.py") == []


def test_a_conftest_beside_the_package_enabling_x64_counts(tmp_path: Path) -> None:
    make_package(tmp_path, {"sums.py": DOUBLE})
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "conftest.py").write_text('import jax\njax.config.update("jax_enable_x64", True)\n')
    assert check(tmp_path, "pkg/sums.py") == []


NOISE = """
    import jax


    def add_noise(x, key, scale=0.1):
        return x + scale * jax.random.normal(key, x.shape)


    def describe(key):
        return str(key)
"""
VIEWS = """
    import jax.numpy as jnp

    from .noise import add_noise, describe


    def two_views(key, x):
        a = add_noise(x, key)
        b = add_noise(x * 2, key)
        return jnp.stack([a, b])


    def logged(key, x):
        describe(key)
        return add_noise(x, key)
"""


def test_a_key_consumed_by_a_function_of_another_module_is_followed(tmp_path: Path) -> None:
    package = make_package(tmp_path, {"noise.py": NOISE, "views.py": VIEWS})
    index = build_project_index([package / "views.py"])
    # every function taking a key is summarised; those of views.py hand theirs to add_noise
    assert index.key_consumers == {
        "pkg.noise.add_noise": (("x", "key", "scale"), ("key",), (), ()),
        "pkg.noise.describe": (("key",), (), (), ()),
        "pkg.views.two_views": (("key", "x"), ("key",), (), ()),
        "pkg.views.logged": (("key", "x"), ("key",), (), ()),
    }
    found = check(tmp_path, "pkg/views.py")
    assert [(d["line"], d["code"]) for d in found] == [(9, "JAX501")]
    assert "`pkg.noise.add_noise` on line 8" in found[0]["message"]


LAYERS = """
    import jax


    class Dense:
        def __init__(self, n_in, n_out, *, key):
            self.w = jax.random.normal(key, (n_in, n_out))


    class Squeeze:
        def __init__(self, shape, *, key):
            self.shape = shape  # takes a key for a uniform signature, draws nothing


    class Block(Dense):
        def __init__(self, n, **kwargs):
            super().__init__(n, n, **kwargs)
"""
BLOCKS = """
    from .layers import *


    def make_block(key, n):
        return Dense(n, n, key=key)


    class Flow:
        def __init__(self, n, net=None, *, key):
            if net is None:
                net = make_block(key, n)
            self.net = net
"""
INIT = """
    from .blocks import Flow, make_block
"""
SCRIPT = """
    import jax

    import pkg
    from pkg.layers import *


    def build(key, n=4):
        k1, k2 = jax.random.split(key)
        first = pkg.make_block(k1, n)
        second = pkg.make_block(key, n)
        return first, second


    def with_net(key, n=4):
        net = pkg.make_block(key, n)
        return pkg.Flow(n, net=net, key=key)


    def without_net(key, n=4):
        net = pkg.make_block(key, n)
        return pkg.Flow(n, key=key), net


    def squeezed(key, n=4):
        x = jax.random.normal(key, (n,))
        return Squeeze(x.shape, key=key), x


    def forwarded(key, n=4):
        x = jax.random.normal(key, (n,))
        return Block(n, key=key), x
"""


def test_keys_are_followed_through_chains_reexports_and_star_imports(tmp_path: Path) -> None:
    """A consumer two modules away (make_block → Dense), reached through a package's
    re-export (`pkg.make_block`) or a star import; a constructor that uses its key only when
    no network is given; one that ignores its key; `**kwargs` handed to a consumer."""
    package = make_package(tmp_path, {"layers.py": LAYERS, "blocks.py": BLOCKS})
    (package / "__init__.py").write_text(textwrap.dedent(INIT))
    (tmp_path / "train.py").write_text(textwrap.dedent(SCRIPT))
    index = build_project_index([tmp_path / "train.py", package / "blocks.py"])
    consumers = index.key_consumers
    assert consumers["pkg.blocks.make_block"][1] == ("key",)  # through Dense, star-imported
    assert consumers["pkg.make_block"] == consumers["pkg.blocks.make_block"]  # re-exported
    assert consumers["pkg.blocks.Flow"][2] == (("key", "net"),)  # only without a net
    assert consumers["pkg.layers.Squeeze"][1:] == ((), (), ())  # takes a key, draws nothing
    assert consumers["pkg.layers.Block"][3] == ("**",)  # hands **kwargs to Dense
    found = check(tmp_path, "train.py", "pkg")
    assert sorted((d["path"], d["line"]) for d in found if d["code"] == "JAX501") == [
        ("train.py", 11),  # make_block(key) after split(key)
        ("train.py", 22),  # Flow without a net draws from the key that built `net`
        ("train.py", 32),  # Block(key=key) reaches Dense after normal(key)
    ]


@pytest.mark.parametrize(
    "spelling",
    [
        ("from . import noise", "noise.add_noise"),
        ("from pkg import noise", "noise.add_noise"),
        ("import pkg.noise as nz", "nz.add_noise"),
    ],
)
def test_a_consumer_called_through_its_module_is_followed(
    tmp_path: Path, spelling: tuple[str, str]
) -> None:
    statement, call = spelling
    views = VIEWS.replace("from .noise import add_noise, describe", statement)
    views = views.replace("add_noise(", call + "(").replace("describe(key)", "str(key)")
    make_package(tmp_path, {"noise.py": NOISE, "views.py": views})
    found = check(tmp_path, "pkg/views.py")
    assert [(d["line"], d["code"]) for d in found] == [(9, "JAX501")]


def test_a_cached_result_is_dropped_when_a_consumer_elsewhere_changes(tmp_path: Path) -> None:
    package = make_package(tmp_path, {"noise.py": NOISE, "views.py": VIEWS})
    assert [d["code"] for d in check(tmp_path, "pkg/views.py")] == ["JAX501"]
    (package / "noise.py").write_text(
        textwrap.dedent(NOISE).replace("jax.random.normal(key, x.shape)", "x")
    )
    assert check(tmp_path, "pkg/views.py") == []


PLAIN = """
    import jax


    @jax.jit
    def scaled(x):
        print("scaling", x)
        return 2 * x
"""


def test_checks_made_while_indexing_are_kept_only_where_the_finished_index_agrees(
    tmp_path: Path,
) -> None:
    files = {"losses.py": LOSSES, "train.py": TRAIN, "noise.py": NOISE, "views.py": VIEWS}
    package = make_package(tmp_path, {**files, "plain.py": PLAIN, "ping.py": PING, "pong.py": PONG})
    paths = sorted(package.glob("*.py"))
    fused = index_project(paths, Config(), LintOptions())
    # ping.py and pong.py import each other: the one indexed first is marked after it was
    # checked, and linted again; views.py calls a key consumer of noise.py: its key rules ran
    # again when the index followed keys into noise.py (nothing is left to redo); the others
    # (losses.py too: train.py, which imports it, came first) keep the check
    kept = {Path(key).name: check.redo for key, check in fused.checked.items()}
    again = {"ping.py", "pong.py"} - set(kept)
    assert len(again) == 1
    assert kept == {
        "__init__.py": frozenset(),
        "losses.py": frozenset(),
        "noise.py": frozenset(),
        "plain.py": frozenset(),
        "train.py": frozenset(),
        "views.py": frozenset(),
        **{name: frozenset() for name in {"ping.py", "pong.py"} - again},
    }
    apart = index_project(paths, Config(), LintOptions(), check=False)
    assert apart.checked == {}
    for path in paths:
        expected = lint_path(path, Config(), apart).diagnostics
        assert lint_path(path, Config(), fused).diagnostics == expected
    codes = {p.name: [d.code for d in lint_path(p, Config(), fused).diagnostics] for p in paths}
    assert codes["losses.py"] == ["JAX201"] and codes["views.py"] == ["JAX501"]
    assert codes["plain.py"] == ["JAX201"]
    assert codes["ping.py"] == codes["pong.py"] == ["JAX201"]


PING = """
    import jax

    from . import pong


    def helper(x):
        print("ping helper", x)
        return x


    @jax.jit
    def run(x):
        return pong.scale(x)
"""
PONG = """
    import jax

    from . import ping


    def scale(x):
        print("scale", x)
        return 2 * x


    @jax.jit
    def run(x):
        return ping.helper(x)
"""


def test_a_module_is_indexed_after_the_modules_importing_it(tmp_path: Path) -> None:
    package = make_package(tmp_path, {"losses.py": LOSSES, "train.py": TRAIN})
    (package / "zoo").mkdir()
    (package / "zoo" / "__init__.py").write_text("from ..train import step\n")
    paths = sorted(package.rglob("*.py"))
    order = [Path(key).relative_to(package).as_posix() for key in _order(paths)]
    assert order.index("zoo/__init__.py") < order.index("train.py") < order.index("losses.py")


def test_import_lines_in_prose_do_not_stop_the_index(tmp_path: Path) -> None:
    # the order reads import lines as text, so it sees a docstring's too (carnot-ebm 0.1:
    # "import failure is not silently converted into a simulated parity result,")
    prose = '''
        """Run the probe.

        The probe checks that an
        import failure is not silently converted into a simulated result,
        from which import (
        import
        """
    '''
    package = make_package(tmp_path, {"losses.py": LOSSES, "train.py": TRAIN, "probe.py": prose})
    paths = sorted(package.glob("*.py"))
    assert len(_order(paths)) == len(paths)
    assert "mse" in build_project_index(paths).marks[str((package / "losses.py").resolve())]


def _order(paths: list[Path]) -> list[str]:
    from jaxlint.analysis.project import importers_first, module_site

    sources = {str(p.resolve()): p.read_bytes() for p in paths}
    sites = {key: module_site(Path(key)) for key in sources}
    return importers_first(sources, sites, {site.name: key for key, site in sites.items()})


def test_marks_do_not_depend_on_the_order_files_are_named_in(tmp_path: Path) -> None:
    package = make_package(
        tmp_path, {"losses.py": LOSSES, "train.py": TRAIN, "ping.py": PING, "pong.py": PONG}
    )
    paths = sorted(package.glob("*.py"))
    forward = build_project_index(paths).marks
    assert build_project_index(list(reversed(paths))).marks == forward
    marked = {Path(key).name: sorted(names) for key, names in forward.items() if names}
    assert marked == {"losses.py": ["mse"], "ping.py": ["helper"], "pong.py": ["scale"]}


def test_marks_reach_one_module_beyond_the_one_that_jits(tmp_path: Path) -> None:
    # a_train.py jits `step`, which calls b_losses.mse, which calls c_clipping.clip: `mse` is
    # traced, `clip` is not (a chain through a library reaches helpers nothing here describes),
    # though b_losses.py is indexed after the mark it gets from a_train.py
    files = {
        "a_train.py": TRAIN.replace("from . import losses", "from . import b_losses as losses"),
        "b_losses.py": LOSSES.replace(
            "import jax.numpy as jnp\n",
            "import jax.numpy as jnp\n\n    from .c_clipping import clip\n",
        ).replace(
            "err = jnp.mean((pred - target) ** 2)", "err = clip(jnp.mean((pred - target) ** 2))"
        ),
        "c_clipping.py": METRICS.replace("penalty", "clip"),
    }
    package = make_package(tmp_path, files)
    marks = build_project_index(sorted(package.glob("*.py"))).marks
    assert {Path(k).name: sorted(n) for k, n in marks.items() if n} == {"b_losses.py": ["mse"]}


DENSE_LAYERS = """
    import jax


    def dense(x, key):
        return x @ jax.random.normal(key, (x.shape[-1], 4))


    def frozen(x, **options):
        return dict(x=x, **options)
"""
DENSE_MODEL = """
    import jax

    from .layers import dense, frozen


    def forward(x, key):
        table = frozen(x, name="table")
        k1, k2 = jax.random.split(key)
        return dense(x, k1), table, jax.random.uniform(k2)
"""


def test_a_check_stands_where_what_the_index_learnt_later_cannot_change_it(
    tmp_path: Path,
) -> None:
    # `__init__` only re-exports `dense` (it calls nothing), and model.py calls `frozen`, which
    # forwards its **kwargs, with no key keyword: neither check depends on those consumers
    init = "from .layers import dense, frozen\n"
    package = make_package(tmp_path, {"layers.py": DENSE_LAYERS, "model.py": DENSE_MODEL})
    (package / "__init__.py").write_text(init)
    paths = sorted(package.glob("*.py"))
    fused = index_project(paths, Config(), LintOptions())
    assert fused.project.key_consumers["pkg.layers.frozen"] == (("x",), (), (), ("**",))
    assert {Path(k).name: c.redo for k, c in fused.checked.items()} == {
        "__init__.py": frozenset(),
        "layers.py": frozenset(),
        "model.py": frozenset(),
    }
    apart = index_project(paths, Config(), LintOptions(), check=False)
    for path in paths:
        assert (
            lint_path(path, Config(), fused).diagnostics
            == lint_path(path, Config(), apart).diagnostics
        )


FLOW_BASE = """
    import equinox as eqx
    from jax import random


    class Transform(eqx.Module):
        def __init__(self, *, input_shape, **kwargs):
            super().__init__(**kwargs)
            self.input_shape = input_shape


    class NoisyTransform(Transform):
        def __init__(self, *, input_shape, key, **kwargs):
            super().__init__(input_shape=input_shape, **kwargs)
            self.scale = random.normal(key, input_shape)
"""

FLOW_LAYERS = """
    from jax import random
    from pkg.base import *


    class Squeeze(Transform):
        def __init__(self, input_shape, **kwargs):
            super().__init__(input_shape=input_shape, **kwargs)


    class Jitter(NoisyTransform):
        def __init__(self, input_shape, **kwargs):
            super().__init__(input_shape=input_shape, **kwargs)


    def squeeze_flow(key, x):
        x = x + random.normal(key, x.shape)
        return Squeeze(x.shape, key=key), x


    def jitter_flow(key, x):
        x = x + random.normal(key, x.shape)
        return Jitter(x.shape, key=key), x


    if __name__ == "__main__":
        from debug import *
"""


def test_a_key_forwarded_through_super_to_bases_that_take_none_is_not_consumed(
    tmp_path: Path,
) -> None:
    # generax: `Squeeze(shape, key=key)` hands its **kwargs to a base whose constructor hands
    # them to `eqx.Module`: nothing draws from the key (a star import in the `__main__` block
    # comes after the class is made); a base that draws from `key` is a consumer
    make_package(tmp_path, {"base.py": FLOW_BASE, "layers.py": FLOW_LAYERS})
    found = check(tmp_path, "pkg")
    assert [(Path(d["path"]).name, d["line"], d["code"]) for d in found] == [
        ("layers.py", 23, "JAX501")
    ]


JOBJ = """
    import jax


    class JObj:
        @staticmethod
        def get_key(key=None):
            new_key, _ = jax.random.split(key)
            return new_key
"""
SAMPLER = """
    from ..jobj import JObj


    class Sampler(JObj):
        def __init__(self, name=None):
            self.name = name


    class Replay(JObj):
        def get_key(self, key=None):
            return key
"""
CHAIN = """
    from .base import Replay, Sampler


    class Metropolis(Sampler):
        def run(self, propose, x, key):
            x = propose(x).rvs(shape=(), key=key)
            key = self.get_key(key)
            return x, key


    class Replayed(Replay):
        def run(self, propose, x, key):
            x = propose(x).rvs(shape=(), key=key)
            key = self.get_key(key)
            return x, key
"""


def test_a_method_inherited_from_a_base_two_modules_away_consumes_its_key(
    tmp_path: Path,
) -> None:
    # jaxampler: `pkg/_src` has no `__init__.py` but holds packages (a namespace folder of
    # `pkg`, whose modules import `from ..jobj`); `Metropolis` gets `get_key` from `JObj`
    # through `Sampler`, `Replayed` from `Replay`, which overrides it with one drawing nothing
    package = make_package(tmp_path, {})
    source = package / "_src"
    (source / "samplers").mkdir(parents=True)
    (source / "jobj.py").write_text(textwrap.dedent(JOBJ))
    (source / "samplers" / "__init__.py").write_text("")
    (source / "samplers" / "base.py").write_text(textwrap.dedent(SAMPLER))
    (source / "samplers" / "chain.py").write_text(textwrap.dedent(CHAIN))
    assert module_site(source / "samplers" / "chain.py").name == "pkg._src.samplers.chain"
    assert module_site(source / "jobj.py").package == "pkg._src"
    consumers = build_project_index([source / "jobj.py"]).key_consumers
    inherited = consumers["pkg._src.samplers.base.Sampler.get_key"]
    assert inherited == consumers["pkg._src.jobj.JObj.get_key"]
    assert consumers["pkg._src.samplers.base.Replay.get_key"][1] == ()  # its own, not JObj's
    found = check(tmp_path, "pkg")
    assert [(Path(d["path"]).name, d["line"], d["code"]) for d in found] == [
        ("chain.py", 8, "JAX501")  # `Metropolis.run`: drawn, then split
    ]


def test_a_folder_beside_a_package_s_modules_without_packages_inside_stays_apart(
    tmp_path: Path,
) -> None:
    # pytest imports `pkg/tests/test_losses.py` as `test_losses` when `tests` has no
    # `__init__.py`: only a folder holding packages is taken for a namespace part of `pkg`
    package = make_package(tmp_path, {"losses.py": LOSSES})
    (package / "tests").mkdir()
    (package / "tests" / "test_losses.py").write_text("import pkg.losses\n")
    assert module_site(package / "tests" / "test_losses.py").name == "test_losses"


@pytest.mark.parametrize(
    "options, parses",
    [(["--jobs", "1"], 1), (["--jobs", "2"], 1), (["--fix", "--no-verify"], 1)],
)
def test_one_file_is_parsed_once_for_a_check_and_for_a_fix(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    options: list[str],
    parses: int,
) -> None:
    """The project index's parse of a lone file serves its check (a pool of workers has
    nothing to share out): `jaxlint check one.py` parsed a 10 MB module twice, 39 s → 24 s.
    A fix of it starts from the same parse (the index keeps it for a file its check found
    something to fix in): one parse, where there were three, then two."""
    from jaxlint import cli
    from jaxlint.analysis import project
    from jaxlint.engine import lint

    path = tmp_path / "step.py"
    path.write_text(
        "import jax\n\n\n@jax.jit\ndef step(x):\n    print(x)\n    return x * 2\n", encoding="utf-8"
    )
    parsed: list[str] = []
    for module in (project, lint):
        original = module.parse_python

        def counting(text: str, filename: str = "<unknown>", _original=original) -> object:
            parsed.append(filename)
            return _original(text, filename)

        monkeypatch.setattr(module, "parse_python", counting)
    cli.main(["check", "--no-cache", *options, str(path)])
    assert "JAX201" in capsys.readouterr().out
    assert len([f for f in parsed if f.endswith("step.py")]) == parses, parsed
