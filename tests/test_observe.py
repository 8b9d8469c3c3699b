"""`jaxlint check --observe CMD`: the fixture project's pytest suite (fixtures/observe) run once
with JAX watched, through the real CLI, in a copy of the project.

The fixture marks what each kind of run must report: `# expect: CODE` a static finding (every
run), `# expect: CODE seen` one the observation confirms, `# seen: CODE` a hazard only the run
shows (a static argument given a new value per step, a key reached through a dict, a tracer kept
by a helper of another module, float64 asked for through a settings dict), `# learnt: CODE` a
static finding made once the run has told the value analysis what a parameter held (a loop over
a parameter the suite passes an array).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import FIXTURES

pytest.importorskip("jax")

PROJECT = FIXTURES / "observe"
MARK = re.compile(r"#\s*(?P<kind>expect|seen|learnt):\s*(?P<code>JAX\d{3})(?P<seen>\s+seen)?")
SUITE = f"{sys.executable} -m pytest -q -p no:cacheprovider -p no:xdist tests"


def marks(observed: bool = True) -> dict[tuple[str, str, int], str]:
    """(code, path, line) → "static", "confirmed" or "run-only" in a check with (or without) an
    observation run, from the fixture's comments."""
    found = {}
    for path in sorted(PROJECT.rglob("*.py")):
        relative = path.relative_to(PROJECT).as_posix()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            match = MARK.search(line)
            if match and (observed or match["kind"] == "expect"):
                kind = "run-only" if match["kind"] == "seen" else "static"
                kind = "confirmed" if match["seen"] and observed else kind
                found[(match["code"], relative, number)] = kind
    return found


def check(project: Path, *options: str, path: str = ".") -> tuple[int, list[dict], str]:
    result = subprocess.run(
        [sys.executable, "-m", "jaxlint", "check", "--output-format", "json", *options, path],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert "Traceback" not in result.stderr, result.stderr
    return result.returncode, json.loads(result.stdout or "[]"), result.stderr


def reported(findings: list[dict]) -> dict[tuple[str, str, int], str]:
    out = {}
    for finding in findings:
        observed = finding.get("observed")
        kind = "static"
        if observed is not None:
            kind = "confirmed" if observed["confirms_static_finding"] else "run-only"
        out[(finding["code"], finding["path"], finding["line"])] = kind
    return out


@pytest.fixture(scope="module")
def observed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict], str]:
    project = tmp_path_factory.mktemp("observe") / "project"
    shutil.copytree(PROJECT, project)
    code, findings, stderr = check(project, "--observe", SUITE)
    assert code == 1
    return project, findings, stderr


def test_each_hazard_the_suite_shows_is_reported_with_its_evidence(observed) -> None:
    _, findings, stderr = observed
    assert "ran in" in stderr, stderr  # the suite passed under observation
    assert reported(findings) == marks()
    by_place = {(f["code"], f["path"], f["line"]): f.get("observed") for f in findings}
    recompiled = by_place[("JAX308", "lab/fitting.py", 9)]
    assert recompiled["kind"] == "recompiles" and recompiled["count"] == 6
    assert "static argument `lr` changed" in recompiled["summary"]
    assert recompiled["details"]["signatures"] == [
        {"args": ["w", "x", "y"], "types": ["float32[3]", "float32[3,3]", "float32[3]"]}
    ]
    reuse = by_place[("JAX501", "lab/noise.py", 9)]["details"]
    assert (reuse["first_api"], reuse["second_api"]) == ("normal", "bernoulli")
    assert [frame[1:] for frame in reuse["second_use"][-1:]] == [[9, "jitter"]]
    leak = by_place[("JAX202", "lab/tracking.py", 14)]
    assert "outlived its trace" in leak["summary"] and "used later" in leak["summary"]
    assert by_place[("JAX401", "lab/precision.py", 13)]["details"]["api"] == "linspace"


def test_the_text_report_says_what_was_seen(observed) -> None:
    project, _, _ = observed
    result = subprocess.run(
        [sys.executable, "-m", "jaxlint", "check", "--output-format", "full", "lab/noise.py"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert (
        "seen at run time: the key `jax.random.normal` consumed at line 8 was consumed again "
        "here by `jax.random.bernoulli`" in result.stdout
    )
    assert "seen at run time only" in result.stdout


def test_what_a_run_saw_is_kept_for_the_files_that_did_not_change(observed) -> None:
    project, findings, _ = observed
    code, again, _ = check(project)
    assert reported(again) == reported(findings)
    precision = project / "lab" / "precision.py"
    precision.write_text(precision.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    _, edited, _ = check(project)
    expected = {
        place: ("static" if place[1] == "lab/precision.py" else kind)
        for place, kind in marks().items()
        if not (place[1] == "lab/precision.py" and kind == "run-only")
    }
    assert reported(edited) == expected
    _, uncached, _ = check(project, "--no-cache")
    assert reported(uncached) == marks(observed=False)


def test_without_an_observation_run_only_static_findings_are_reported(tmp_path: Path) -> None:
    project = tmp_path / "project"
    shutil.copytree(PROJECT, project)
    _, findings, _ = check(project)
    assert reported(findings) == marks(observed=False)
    assert all("observed" not in f for f in findings)


def test_a_failing_command_still_reports_what_it_showed(tmp_path: Path) -> None:
    project = tmp_path / "project"
    shutil.copytree(PROJECT, project)
    command = (
        f"{sys.executable} -c 'import lab.precision as p; p.weights(3); p.grid(3); "
        f"raise SystemExit(3)'"
    )
    _, findings, stderr = check(project, "--observe", command, path="lab/precision.py")
    assert "exited with code 3" in stderr
    assert reported(findings) == {
        ("JAX401", "lab/precision.py", 9): "confirmed",
        ("JAX401", "lab/precision.py", 13): "run-only",
    }


@pytest.mark.parametrize(
    ("command", "says"),
    [
        ("no-such-command-jaxlint", "cannot run 'no-such-command-jaxlint'"),
        ("", "empty command"),
        ("python -c 'unclosed", "cannot parse the command"),
    ],
)
def test_a_command_that_cannot_run_is_said_and_the_static_check_goes_on(
    tmp_path: Path, command: str, says: str
) -> None:
    project = tmp_path / "project"
    shutil.copytree(PROJECT, project)
    code, findings, stderr = check(project, "--observe", command)
    assert says in stderr
    assert code == 1 and reported(findings) == marks(observed=False)


PROGRAM = """\
import jax, jax.numpy as jnp
from functools import partial

@partial(jax.jit, static_argnames=("n",))
def f(x, n):
    return jnp.sin(x) * n

key = jax.random.PRNGKey(3)
a = jax.random.normal(key, (3,))
b = jax.random.uniform(key, (3,))
k1, k2 = jax.random.split(key)
outs = [f(a, n) for n in range(4)]
wide = jnp.zeros(2, dtype=jnp.float64)
kept = []
@jax.jit
def g(x):
    kept.append(x)
    return x + 1
print(a.tolist(), b.tolist(), k1.tolist(), [o.tolist() for o in outs], wide.dtype, g(a).tolist())
"""


def test_observing_does_not_change_what_the_command_computes(tmp_path: Path) -> None:
    from jaxlint.observe.run import _SHIM
    from jaxlint.verify.recording import Shim, run_with_shims

    (tmp_path / "program.py").write_text(PROGRAM, encoding="utf-8")
    plain = subprocess.run(
        [sys.executable, "program.py"], cwd=tmp_path, capture_output=True, text=True, timeout=300
    )
    out = tmp_path / "events"
    out.mkdir()
    environment = {"JAXLINT_OBSERVE_DIR": str(out), "JAXLINT_OBSERVE_ROOT": str(tmp_path)}
    shim = Shim("shim", _SHIM, environment)
    work = tmp_path / "work"
    work.mkdir()
    problem = run_with_shims([sys.executable, "program.py"], [shim], str(work), 300, str(tmp_path))
    assert problem == ""
    output = (work / "output.log").read_text(encoding="utf-8")
    assert output.splitlines()[-1] == plain.stdout.strip()
    events = json.loads(next(out.glob("observed-*.json")).read_text(encoding="utf-8"))
    assert sorted(e["name"] for e in events["traces"].values()) == ["f", "g"]
    assert [len(events[k]) for k in ("reuse", "leaks", "float64")] == [2, 1, 1]
    assert events["errors"] == []
