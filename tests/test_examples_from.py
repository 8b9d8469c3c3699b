"""Recorded signatures: `jaxlint check --fix --examples-from CMD` (jaxlint.verify.recording).

The end-to-end tests run the real command line in a subprocess on a small project whose jitted
`train_step(params, batch)` takes nested dicts the ladder cannot build; the recorder tests run
commands directly (with NumPy only, so they need no JAX).
"""

from __future__ import annotations

import base64
import dataclasses
import json
import os
import shlex
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from jaxlint.cache import project_root
from jaxlint.verify import jax_available
from jaxlint.verify.protocol import VerifyRequest, request_from_wire, request_to_wire
from jaxlint.verify.recording import (
    TargetRef,
    record_examples,
    recorded_for,
    store,
)

REPO = Path(__file__).resolve().parent.parent
needs_jax = pytest.mark.skipif(not jax_available(), reason="JAX is not installed")

MODULE = textwrap.dedent(
    """\
    import jax
    import jax.numpy as jnp


    def predict(params, x):
        layer = params["dense"]
        return x @ layer["w"] + layer["b"]


    @jax.jit
    def train_step(params, batch):
        loss = jnp.mean((predict(params, batch["x"]) - batch["y"]) ** 2)
        print("loss", loss)
        return loss
    """
)

SCRIPT = textwrap.dedent(
    """\
    import sys

    import numpy as np

    from mod import train_step

    rng = np.random.RandomState(0)
    params = {"dense": {"w": rng.randn(3, 4).astype("float32"), "b": np.zeros(4, "float32")}}
    for n in (16, 16, 8):
        batch = {"x": rng.randn(n, 3).astype("float32"), "y": rng.randn(n, 4).astype("float32")}
        loss = float(train_step(params, batch))
        with open(sys.argv[1] if len(sys.argv) > 1 else "out.txt", "a") as out:
            out.write(f"{n} {loss:.6f}\\n")
    """
)

FIXED = 'jax.debug.print("loss {loss!s}", loss=loss)'


def command(*argv: str) -> str:
    """A shell-quoted command running this interpreter (the project's `python`)."""
    return shlex.join([sys.executable, *argv])


def jaxlint(cwd: Path, *argv: str, timeout: float = 300) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    return subprocess.run(
        [sys.executable, "-m", "jaxlint", *argv],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    (tmp_path / "mod.py").write_text(MODULE)
    (tmp_path / "run_example.py").write_text(SCRIPT)
    return tmp_path


def verification(result: subprocess.CompletedProcess, code: str) -> dict:
    """The JSON verification object of `code`'s diagnostic (JSON on stdout)."""
    (diagnostic,) = [d for d in json.loads(result.stdout) if d["code"] == code]
    return diagnostic["fix"]


# ---------------------------------------------------------------- end to end


@needs_jax
def test_recorded_signatures_verify_the_fix_and_the_cache_keeps_them(project: Path) -> None:
    without = jaxlint(project, "check", "--fix", "--output-format", "json", "mod.py")
    assert "Traceback" not in without.stderr
    fix = verification(without, "JAX201")
    assert not fix["applied"]
    assert fix["verification"]["status"] == "unverifiable"
    assert "no example inputs found" in fix["verification"]["reason"]
    assert (project / "mod.py").read_text() == MODULE

    recorded = jaxlint(
        project,
        "check",
        "--fix",
        "--output-format",
        "json",
        "--examples-from",
        command("run_example.py", "recorded.txt"),
        "mod.py",
    )
    assert "Traceback" not in recorded.stderr
    assert "recorded 2 signatures of 1/1 function" in recorded.stderr
    fix = verification(recorded, "JAX201")
    assert fix["applied"], fix
    reason = fix["verification"]["reason"]
    assert fix["verification"]["status"] == "verified"
    assert "inputs: 2 recorded signatures" in reason
    assert "params: {dense: {w: float32[3,4], b: float32[4]}}" in reason
    assert "batch: {x: float32[16,3], y: float32[16,4]}" in reason
    assert "batch: {x: float32[8,3], y: float32[8,4]}" in reason
    assert FIXED in (project / "mod.py").read_text()
    # the cache: a folder git ignores, one file per target keyed by the module's source
    cache = project / ".jaxlint_cache"
    assert (cache / ".gitignore").read_text() == "*\n"
    assert len(list((cache / "examples").glob("*.json"))) == 1

    # a later run without --examples-from, on the same source, still has the recorded inputs
    (project / "mod.py").write_text(MODULE)
    cached = jaxlint(project, "check", "--fix", "--output-format", "json", "mod.py")
    fix = verification(cached, "JAX201")
    assert fix["applied"], fix
    assert "inputs: 2 recorded signatures" in fix["verification"]["reason"]
    assert FIXED in (project / "mod.py").read_text()


SIM_MODULE = textwrap.dedent(
    """\
    from functools import partial
    from typing import NamedTuple

    import jax
    import jax.numpy as jnp
    import numpy as np


    class State(NamedTuple):
        x: jax.Array
        count: jax.Array


    class Settings:
        def __init__(self, damping):
            self.damping = damping


    class Integrator:
        def __init__(self, ts, settings):
            if not np.all(np.diff(np.asarray(ts)) > 0):
                raise ValueError("ts must be increasing")
            self.ts = jnp.asarray(ts)
            self.settings = settings

        @partial(jax.jit, static_argnums=0)
        def run(self, state, key):
            noise = jax.random.normal(key, state.x.shape) * self.settings.damping
            x = state.x + noise * (self.ts[-1] - self.ts[0])
            print("x", x)
            return State(x, state.count + 1)
    """
)

SIM_SCRIPT = textwrap.dedent(
    """\
    import jax
    import jax.numpy as jnp
    import numpy as np

    from sim import Integrator, Settings, State

    sim = Integrator(np.linspace(0.0, 1.0, 11).astype("float32"), Settings(0.1))
    state = State(jnp.zeros(3), jnp.zeros((), jnp.int32))
    key = jax.random.key(0)
    for _ in range(2):
        key, sub = jax.random.split(key)
        state = sim.run(state, sub)
    """
)


@needs_jax
def test_recorded_objects_keys_and_array_contents_are_rebuilt(tmp_path: Path) -> None:
    # The constructor needs an increasing time grid (recorded with its contents) and a settings
    # object (pickled); the method takes a NamedTuple (its structure over fresh leaves) and a
    # typed PRNG key. None of these can come from the ladder.
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'sim'\n")
    (tmp_path / "sim.py").write_text(SIM_MODULE)
    (tmp_path / "run_sim.py").write_text(SIM_SCRIPT)
    select = ("check", "--select", "JAX201", "--fix", "--output-format", "json")
    without = jaxlint(tmp_path, *select, "sim.py")
    assert verification(without, "JAX201")["verification"]["status"] == "unverifiable"
    assert (tmp_path / "sim.py").read_text() == SIM_MODULE

    recorded = jaxlint(tmp_path, *select, "--examples-from", command("run_sim.py"), "sim.py")
    assert "Traceback" not in recorded.stderr
    fix = verification(recorded, "JAX201")
    assert fix["applied"], fix
    reason = fix["verification"]["reason"]
    assert "inputs: 1 recorded signature" in reason
    assert "Integrator(ts: float32[11], settings: a recorded object)" in reason
    assert "state: State(float32[3], int32[]), key: key<fry>[]" in reason
    assert 'jax.debug.print("x {x!s}", x=x)' in (tmp_path / "sim.py").read_text()


@needs_jax
def test_a_failing_command_says_so_and_falls_back(project: Path) -> None:
    failing = command("-c", "import sys; print('boom'); sys.exit(1)")
    result = jaxlint(project, "verify", "--examples-from", failing, "mod.py")
    assert "Traceback" not in result.stderr + result.stdout
    assert "exited with code 1 (boom); nothing recorded; other example inputs are used" in (
        result.stderr
    )
    assert "no example inputs found for train_step" in result.stdout
    assert result.returncode == 1
    assert (project / "mod.py").read_text() == MODULE


def test_examples_from_without_fix_does_nothing(project: Path) -> None:
    marker = project / "ran.txt"
    result = jaxlint(
        project,
        "check",
        "--examples-from",
        command("-c", f"open({str(marker)!r}, 'w')"),
        "mod.py",
    )
    assert "only used when verifying fixes" in result.stderr
    assert not marker.exists()
    assert result.returncode == 1  # the print is still reported


# ---------------------------------------------------------------- the recorder


def refs_for(project: Path, *targets: str, name: str = "mod.py") -> list[TargetRef]:
    path = project / name
    return [TargetRef(str(path), path.read_text(), target) for target in targets]


NUMPY_MODULE = textwrap.dedent(
    """\
    import numpy as np


    def step(params, batch, scale=1.0, *, mode="mean"):
        return float(np.sum(batch["x"] @ params["w"]) * scale)


    class Model:
        def __init__(self, width, bias=0.5):
            self.width = width
            self.bias = bias

        def apply(self, x, flag):
            return float(np.sum(x)) * self.width + self.bias
    """
)

NUMPY_SCRIPT = textwrap.dedent(
    """\
    import sys

    import numpy as np

    import mod

    x = np.ones((5, 3), np.float32)
    results = []
    for _ in range(3):  # the same signature three times: recorded once
        results.append(mod.step({"w": np.ones((3, 2))}, {"x": x}, 2.0, mode="sum"))
    results.append(mod.step({"w": np.ones((3, 2))}, {"x": x[:2]}))
    model = mod.Model(3, bias=1.5)
    results.append(model.apply(np.arange(4.0), True))
    results.append((mod.step.__name__, mod.Model.apply.__name__, repr(model.width)))
    with open(sys.argv[1], "w") as out:
        out.write(repr(results) + "\\n")
    """
)


@pytest.fixture
def numpy_project(tmp_path: Path) -> Path:
    (tmp_path / "mod.py").write_text(NUMPY_MODULE)
    (tmp_path / "script.py").write_text(NUMPY_SCRIPT)
    return tmp_path


def test_recorder_records_trees_values_and_constructor_arguments(numpy_project: Path) -> None:
    refs = refs_for(numpy_project, "step", "Model.apply")
    outcome = record_examples(
        command("script.py", "out.txt"), refs, timeout_s=120, cwd=str(numpy_project)
    )
    assert outcome.messages == [
        "--examples-from "
        + repr(command("script.py", "out.txt"))
        + ": recorded 3 signatures of 2/2 functions"
    ]
    step = [json.loads(r) for r in outcome.records[refs[0]]]
    assert len(step) == 2
    ones = base64.b64encode(np.ones((3, 2)).tobytes()).decode("ascii")  # small: contents kept
    assert step[0]["args"][0] == {
        "t": "dict",
        "keys": ["w"],
        "items": [{"t": "array", "shape": [3, 2], "dtype": "float64", "data": ones}],
    }
    x = step[0]["args"][1]["items"][0]
    assert {k: x[k] for k in ("t", "shape", "dtype")} == {
        "t": "array",
        "shape": [5, 3],
        "dtype": "float32",
    }
    assert step[0]["args"][2] == {"t": "value", "v": 2.0}
    assert step[0]["kwargs"] == {"mode": {"t": "value", "v": "sum"}}
    assert step[1]["args"][1]["items"][0]["shape"] == [2, 3]
    (apply,) = [json.loads(r) for r in outcome.records[refs[1]]]
    assert apply["args"] == [
        {
            "t": "array",
            "shape": [4],
            "dtype": "float64",
            "data": base64.b64encode(np.arange(4.0).tobytes()).decode("ascii"),
        },
        {"t": "value", "v": True},
    ]
    pickled_self = base64.b64decode(apply["self"]["data"])  # `self` as it was, pickled
    assert apply["self"]["t"] == "pickle" and b"Model" in pickled_self and b"width" in pickled_self
    assert apply["init"] == {
        "args": [{"t": "value", "v": 3}],
        "kwargs": {"bias": {"t": "value", "v": 1.5}},
    }


def test_recording_does_not_change_what_the_command_does(numpy_project: Path) -> None:
    plain = subprocess.run(
        shlex.split(command("script.py", "plain.txt")),
        cwd=numpy_project,
        capture_output=True,
        timeout=120,
    )
    assert plain.returncode == 0, plain.stderr
    refs = refs_for(numpy_project, "step", "Model.apply")
    outcome = record_examples(
        command("script.py", "recorded.txt"), refs, timeout_s=120, cwd=str(numpy_project)
    )
    assert outcome.records
    plain_text = (numpy_project / "plain.txt").read_text()
    assert (numpy_project / "recorded.txt").read_text() == plain_text
    assert "('step', 'apply', '3')" in plain_text


def test_a_command_that_times_out_is_stopped_and_keeps_what_it_recorded(
    numpy_project: Path,
) -> None:
    slow = numpy_project / "slow.py"
    slow.write_text(
        "import time\nimport numpy as np\nimport mod\n"
        "mod.step({'w': np.ones((3, 2))}, {'x': np.ones((4, 3))})\n"
        "time.sleep(60)\n"
    )
    refs = refs_for(numpy_project, "step")
    outcome = record_examples(command("slow.py"), refs, timeout_s=3, cwd=str(numpy_project))
    (message,) = outcome.messages
    assert "did not finish within 3 s (--examples-timeout) and was stopped" in message
    assert "kept the 1 signature of 1/1 function recorded before" in message
    assert len(outcome.records[refs[0]]) == 1


@pytest.mark.parametrize(
    ("cmd", "expected"),
    [
        ("", "empty command"),
        ("'unbalanced", "cannot parse the command"),
        ("no-such-program-jaxlint-test", "cannot run 'no-such-program-jaxlint-test'"),
        (command("-c", "pass"), "the command ran but called none of the 1 function to verify"),
    ],
)
def test_commands_that_cannot_run_give_a_message(
    numpy_project: Path, cmd: str, expected: str
) -> None:
    outcome = record_examples(cmd, refs_for(numpy_project, "step"), cwd=str(numpy_project))
    assert not outcome.records
    assert expected in outcome.messages[0]


def test_the_cache_is_keyed_by_the_module_source(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    sub = tmp_path / "src"
    sub.mkdir()
    path = sub / "mod.py"
    path.write_text(NUMPY_MODULE)
    assert project_root(path) == tmp_path
    record = json.dumps({"args": [{"t": "value", "v": 1}], "kwargs": {}}, sort_keys=True)
    store(TargetRef(str(path), NUMPY_MODULE, "step"), [record])
    assert (tmp_path / ".jaxlint_cache" / ".gitignore").read_text() == "*\n"
    assert recorded_for(str(path), NUMPY_MODULE, "step") == (record,)
    assert recorded_for(str(path), NUMPY_MODULE, "Model.apply") == ()
    assert recorded_for(str(path), NUMPY_MODULE + "# edited\n", "step") == ()


def test_recorded_signatures_cross_the_wire() -> None:
    request = VerifyRequest("1", "m.py", "a", "b", "f", "JAX201", False, recorded=('{"args": []}',))
    assert request_from_wire(json.loads(json.dumps(request_to_wire(request)))) == request
    old = request_to_wire(request)
    del old["recorded"]
    assert request_from_wire(old).recorded == ()


# ---------------------------------------------------------------- records → bindings


def test_records_become_bindings_with_the_recorded_structure() -> None:
    pytest.importorskip("jax")
    import inspect

    from jaxlint.verify.recorded import NotRebuildable, binding

    def step(params, batch, scale=1.0, *, mode="mean", **extra):
        pass

    record = {
        "args": [
            {
                "t": "dict",
                "keys": ["dense"],
                "items": [
                    {
                        "t": "dict",
                        "keys": ["w", "b"],
                        "items": [
                            {"t": "array", "shape": [3, 4], "dtype": "float32"},
                            {"t": "array", "shape": [4], "dtype": "float32"},
                        ],
                    }
                ],
            },
            {
                "t": "tuple",
                "items": [
                    {"t": "array", "shape": [16, 3], "dtype": "float32"},
                    {"t": "value", "v": None},
                ],
            },
            {"t": "value", "v": 2.0},
        ],
        "kwargs": {"mode": {"t": "value", "v": "sum"}, "seed": {"t": "value", "v": 3}},
    }
    call = binding(inspect.signature(step), record)
    assert call.describe() == (
        "params: {dense: {w: float32[3,4], b: float32[4]}}, batch: (float32[16,3], None), "
        "scale: 2.0, mode: 'sum', seed: 3"
    )
    args, kwargs = call.make(0)
    assert args[0]["dense"]["w"].shape == (3, 4)
    assert args[1][0].shape == (16, 3) and args[1][1] is None
    assert args[2] == 2.0  # positional as recorded
    assert kwargs == {"mode": "sum", "seed": 3}
    again, _ = call.make(0)
    assert (again[0]["dense"]["w"] == args[0]["dense"]["w"]).all()  # fixed seeds
    assert call.sizes() == [3, 4, 16]
    assert call.resized(16, 0).make(0)[0][1][0].shape == (0, 3)
    assert call.retyped("int32").make(0)[0][0]["dense"]["b"].dtype == "int32"

    defaulted = binding(inspect.signature(step), {"args": record["args"][:2], "kwargs": {}})
    assert defaulted.defaulted() == ["scale", "mode"]
    with pytest.raises(NotRebuildable):
        binding(inspect.signature(step), {"opaque": "a flax.core.FrozenDict"})
    with pytest.raises(NotRebuildable):
        binding(inspect.signature(step), {"args": [], "kwargs": {}})  # params is missing


@dataclasses.dataclass
class _Particle:
    """A pytree with a static field, as `self` of a recorded method (see the test below)."""

    position: Any
    mass: float = dataclasses.field(metadata={"static": True})


def test_a_recorded_self_is_rebuilt_over_fresh_leaves() -> None:
    jax = pytest.importorskip("jax")
    import inspect

    from jaxlint.verify import record_shim
    from jaxlint.verify.recorded import InstanceBinding, recorded_calls

    particle_type = jax.tree_util.register_dataclass(_Particle)
    particle = particle_type(jax.numpy.ones(3), 2.0)
    encoded = record_shim._encode_object(particle, [100], 0)
    assert encoded["t"] == "skeleton"  # the object with placeholder leaves, pickled
    assert encoded["leaves"][0]["shape"] == [3]
    record = json.dumps({"args": [], "kwargs": {}, "init": None, "self": encoded})

    def method():  # the method's signature without `self`, as verification reads it
        pass

    ((init, call, why),) = list(
        recorded_calls(inspect.signature(method), inspect.signature(_Particle), [record])
    )
    assert why == "" and isinstance(init, InstanceBinding)
    rebuilt = init.instance(0)
    assert type(rebuilt) is _Particle and rebuilt.mass == 2.0  # the static field as recorded
    assert (rebuilt.position == 1).all()  # a small concrete leaf: its contents, as recorded
    nearby = init.instance(1).position  # in later input sets, floats within 1%
    assert not (nearby == 1).all() and (abs(nearby - 1) < 0.05).all()
    assert (init.instance(1).position == nearby).all()  # the same every run


def test_a_command_setting_its_own_pythonpath_is_still_recorded(numpy_project: Path) -> None:
    # `env PYTHONPATH=lib python script.py` replaces the PYTHONPATH jaxlint gives the command
    (numpy_project / "lib").mkdir()
    (numpy_project / "mod.py").rename(numpy_project / "lib" / "mod.py")
    refs = refs_for(numpy_project, "step", name="lib/mod.py")
    cmd = shlex.join(
        ["env", "-u", "JAXLINT_UNUSED", "PYTHONPATH=lib", sys.executable, "script.py", "out.txt"]
    )
    outcome = record_examples(cmd, refs, timeout_s=120, cwd=str(numpy_project))
    assert outcome.messages[0].endswith("recorded 2 signatures of 1/1 function"), outcome.messages
