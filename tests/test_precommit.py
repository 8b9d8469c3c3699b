"""The pre-commit hooks (.pre-commit-hooks.yaml), run by the real `pre-commit` tool.

The hooks are installed from a *snapshot* of this checkout: a throwaway git repository holding
the working tree as it is now (tracked and untracked files, minus what .gitignore excludes),
committed. pre-commit installs hooks from commits only, and `try-repo` on the checkout itself
would leave out files that are not yet tracked; the snapshot works before and after a commit.

Building a hook environment means `pip install` of this package (and JAX for the verified fix),
so these tests take a minute or two: deselect them with `-m "not precommit"`.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.precommit

ROOT = Path(__file__).resolve().parent.parent
HAZARD = textwrap.dedent(
    """\
    import jax
    import jax.numpy as jnp


    @jax.jit
    def scaled(x):
        print(x)
        return 2.0 * x


    if __name__ == "__main__":
        scaled(jnp.ones(3))
    """
)

pytest.importorskip("pre_commit")
if shutil.which("git") is None:
    pytest.skip("git is not installed", allow_module_level=True)


def git(*args: str, cwd: Path) -> str:
    result = subprocess.run(
        ["git", "-c", "user.name=jaxlint tests", "-c", "user.email=tests@jaxlint.invalid", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
    )
    return result.stdout


@pytest.fixture(scope="module")
def pre_commit_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One pre-commit cache for the module: each hook environment is built once."""
    return tmp_path_factory.mktemp("pre-commit-home")


@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A git repository holding this checkout's current files, committed: (path, sha)."""
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: cannot snapshot the hook repository")
    listed = git("ls-files", "-z", "--cached", "--others", "--exclude-standard", cwd=ROOT)
    snapshot = tmp_path_factory.mktemp("hook-repo")
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if source.is_file():  # listed but deleted in the working tree: leave it out
            target = snapshot / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    git("init", "--quiet", cwd=snapshot)
    git("add", "--all", cwd=snapshot)
    git("commit", "--quiet", "-m", "snapshot of the jaxlint checkout", cwd=snapshot)
    return snapshot, git("rev-parse", "HEAD", cwd=snapshot).strip()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A user's repository with one committed file that holds a JAX201 hazard."""
    git("init", "--quiet", cwd=tmp_path)
    git("config", "user.name", "Jax User", cwd=tmp_path)
    git("config", "user.email", "user@example.invalid", cwd=tmp_path)
    (tmp_path / "model.py").write_text(HAZARD)
    git("add", "model.py", cwd=tmp_path)
    git("commit", "--quiet", "-m", "a model", cwd=tmp_path)
    return tmp_path


def pre_commit(*args: str, cwd: Path, home: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PRE_COMMIT_HOME": str(home), "PRE_COMMIT_COLOR": "never"}
    env.pop("PRE_COMMIT", None)
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=1200,
    )


def write_config(project: Path, hook_repo: tuple[Path, str], hook: str, deps: list[str]) -> None:
    path, sha = hook_repo
    lines = [
        "repos:",
        f"  - repo: {path.as_posix()}",
        f"    rev: {sha}",
        "    hooks:",
        f"      - id: {hook}",
    ]
    if deps:
        lines.append(f"        additional_dependencies: [{', '.join(map(repr, deps))}]")
    (project / ".pre-commit-config.yaml").write_text("\n".join(lines) + "\n")
    git("add", ".pre-commit-config.yaml", cwd=project)
    git("commit", "--quiet", "-m", "pre-commit config", cwd=project)


def test_try_repo_check_hook_fails_on_a_hazard(
    project: Path, hook_repo: tuple[Path, str], pre_commit_home: Path
) -> None:
    result = pre_commit(
        "try-repo", str(hook_repo[0]), "jaxlint", "--all-files", cwd=project, home=pre_commit_home
    )
    output = result.stdout + result.stderr
    assert result.returncode == 1, output
    assert "jaxlint" in output and "Failed" in output
    assert "model.py:7:5: JAX201" in output
    assert (project / "model.py").read_text() == HAZARD  # checking never writes


def test_the_hooks_honour_the_projects_exclude(
    project: Path, hook_repo: tuple[Path, str], pre_commit_home: Path
) -> None:
    # pre-commit names every staged file, so without --force-exclude an excluded one is linted
    (project / "pyproject.toml").write_text('[tool.jaxlint]\nexclude = ["vendored"]\n')
    (project / "vendored").mkdir()
    (project / "vendored" / "third_party.py").write_text(HAZARD)
    (project / "model.py").write_text("import jax\n")
    git("add", "--all", cwd=project)
    git("commit", "--quiet", "-m", "vendored code", cwd=project)
    result = pre_commit(
        "try-repo", str(hook_repo[0]), "jaxlint", "--all-files", cwd=project, home=pre_commit_home
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert "third_party.py" not in output


def test_fix_hook_without_jax_leaves_verified_fixes_unapplied(
    project: Path, hook_repo: tuple[Path, str], pre_commit_home: Path
) -> None:
    write_config(project, hook_repo, "jaxlint-fix", deps=[])
    result = pre_commit("run", "jaxlint-fix", "--all-files", cwd=project, home=pre_commit_home)
    output = result.stdout + result.stderr
    assert result.returncode == 1, output
    assert "model.py:7:5: JAX201" in output
    assert "not verified: install jaxlint[verify]" in output
    assert (project / "model.py").read_text() == HAZARD


def test_fix_hook_with_verify_extra_rewrites_the_file(
    project: Path, hook_repo: tuple[Path, str], pre_commit_home: Path
) -> None:
    # As the README tells users: the `verify` extra brings JAX into the hook's environment.
    write_config(project, hook_repo, "jaxlint-fix", deps=["jaxlint[verify]"])
    result = pre_commit("run", "jaxlint-fix", "--all-files", cwd=project, home=pre_commit_home)
    output = result.stdout + result.stderr
    assert result.returncode == 1, output  # pre-commit fails a hook that modified files
    assert "files were modified by this hook" in output
    assert "model.py:7:5: JAX201" in output and "JAX201 [fixed]" in output
    assert re.search(r"verified on \d+ input sets", output)  # JAX ran in the hook's environment
    fixed = (project / "model.py").read_text()
    assert '    jax.debug.print("{x!s}", x=x)\n' in fixed
    assert fixed == HAZARD.replace("    print(x)\n", '    jax.debug.print("{x!s}", x=x)\n')

    again = pre_commit("run", "jaxlint-fix", "--all-files", cwd=project, home=pre_commit_home)
    assert again.returncode == 0, again.stdout + again.stderr
    assert (project / "model.py").read_text() == fixed
