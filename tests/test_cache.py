"""The cache: a warm rerun gives the same report without linting, and nothing cached goes stale."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from jaxlint import cli, files
from jaxlint.cache import CACHE_FOLDER, FORMAT

LOSSES = """
    import jax.numpy as jnp


    def mse(pred, target):
        err = jnp.mean((pred - target) ** 2)
        print("mse", err)
        return err
"""
TRAIN = """
    import jax

    from . import losses


    @jax.jit
    def step(w, x, y):
        return losses.mse(x @ w, y)
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch) -> Path:
    """A package whose `losses.mse` is traced only through `train.step`, in a git-less project."""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    for name, source in {"losses.py": LOSSES, "train.py": TRAIN}.items():
        (package / name).write_text(textwrap.dedent(source))
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("JAXLINT_CACHE_DIR", raising=False)
    return tmp_path


def check(capsys, *argv: str) -> list[tuple[str, int, str]]:
    code = cli.main(["check", "--output-format", "json", *argv])
    out = capsys.readouterr().out
    assert code in (0, 1)
    return [(Path(d["path"]).name, d["line"], d["code"]) for d in json.loads(out)]


def no_linting(monkeypatch) -> None:
    def fail(path: str):
        raise AssertionError(f"{path} was linted again")

    monkeypatch.setattr(files, "source_linter", fail)


def test_a_warm_run_reports_the_same_without_linting(project: Path, capsys, monkeypatch) -> None:
    cold = check(capsys, "pkg")
    assert cold == [("losses.py", 7, "JAX201")]
    assert (project / CACHE_FOLDER / ".gitignore").read_text() == "*\n"
    assert list((project / CACHE_FOLDER / FORMAT / "results").rglob("*.json"))
    no_linting(monkeypatch)
    assert check(capsys, "pkg") == cold


def test_no_cache_reads_and_writes_nothing(project: Path, capsys) -> None:
    check(capsys, "--no-cache", "pkg")
    assert not (project / CACHE_FOLDER).exists()


def test_a_changed_file_is_linted_again(project: Path, capsys) -> None:
    check(capsys, "pkg")
    losses = project / "pkg" / "losses.py"
    losses.write_text(losses.read_text().replace('print("mse", err)', "pass"))
    assert check(capsys, "pkg") == []


def test_another_selection_is_not_served_from_the_cache(project: Path, capsys) -> None:
    assert check(capsys, "pkg") == [("losses.py", 7, "JAX201")]
    assert check(capsys, "--ignore", "JAX201", "pkg") == []


def test_a_change_in_another_module_reaches_the_file_it_traces(project: Path, capsys) -> None:
    # losses.py is unchanged, but whether `mse` is traced depends on train.py
    assert check(capsys, "pkg") == [("losses.py", 7, "JAX201")]
    train = project / "pkg" / "train.py"
    train.write_text(train.read_text().replace("@jax.jit\n", ""))
    assert check(capsys, "pkg") == []


def test_an_unwritable_cache_only_costs_time(project: Path, capsys) -> None:
    (project / CACHE_FOLDER).write_text("not a folder")
    assert check(capsys, "pkg") == [("losses.py", 7, "JAX201")]


DRIVER = """
    class Solver:
        def run(self, x, steps):
            for _ in range(steps):
                x = self.step(x)
            return x
"""
SUBCLASS = """
    import jax

    from .driver import Solver


    class Descent(Solver):
        def step(self, x):
            @jax.jit
            def update(y):
                return y - 0.1 * y

            for _ in range(3):
                x = update(x)
            return x
"""


def test_a_loop_in_another_module_reaches_the_method_it_calls(project: Path, capsys) -> None:
    # descent.py is unchanged, but whether `step` runs in a loop depends on driver.py (JAX302)
    for name, source in {"driver.py": DRIVER, "descent.py": SUBCLASS}.items():
        (project / "pkg" / name).write_text(textwrap.dedent(source))
    assert ("descent.py", 9, "JAX302") in check(capsys, "pkg")
    driver = project / "pkg" / "driver.py"
    driver.write_text(driver.read_text().replace("for _ in range(steps):", "if steps:"))
    assert ("descent.py", 9, "JAX302") not in check(capsys, "pkg")
