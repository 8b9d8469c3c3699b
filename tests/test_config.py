"""`[tool.jaxlint]` (jaxlint.engine.config): validation, selection semantics, CLI handling."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from jaxlint.engine import config as config_module
from jaxlint.engine.config import (
    Config,
    ConfigError,
    config_from_table,
    load_config,
    parse_code_list,
)

REPO = Path(__file__).resolve().parent.parent

# A registry of our own, so selection semantics are tested whatever rules exist today.
FAKE_CODES = ["JAX000", "JAX101", "JAX102", "JAX201", "JAX204", "JAX301", "JAX303", "JAX306"]
FAKE_OPT_IN = {"JAX303", "JAX306"}


@pytest.fixture
def fake_registry(monkeypatch) -> None:
    monkeypatch.setattr(config_module, "known_codes", lambda: list(FAKE_CODES))
    monkeypatch.setattr(
        config_module, "default_codes", lambda: frozenset(set(FAKE_CODES) - FAKE_OPT_IN)
    )


def write_pyproject(folder: Path, body: str) -> Path:
    path = folder / "pyproject.toml"
    path.write_text("[tool.jaxlint]\n" + textwrap.dedent(body))
    return path


def jaxlint(cwd: Path, *argv: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    return subprocess.run(
        [sys.executable, "-m", "jaxlint", *argv],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )


# ---------------------------------------------------------------- validation


def test_unknown_key_is_an_error(tmp_path: Path) -> None:
    path = write_pyproject(tmp_path, "colour = 'red'\n")
    with pytest.raises(ConfigError, match=r"unknown key\(s\) colour"):
        load_config(start=tmp_path)
    with pytest.raises(ConfigError, match=r"unknown key\(s\) colour"):
        load_config(path)


@pytest.mark.parametrize("value", ["0", "-1", "'4'", "true", "2.5"])
def test_bad_tiny_max_ops(tmp_path: Path, value: str) -> None:
    write_pyproject(tmp_path, f"tiny-max-ops = {value}\n")
    with pytest.raises(ConfigError, match="`tiny-max-ops` must be a positive integer"):
        load_config(start=tmp_path)


def test_tiny_max_ops_is_read(tmp_path: Path) -> None:
    write_pyproject(tmp_path, "tiny-max-ops = 7\n")
    assert load_config(start=tmp_path).tiny_max_ops == 7
    assert Config().tiny_max_ops == 4


@pytest.mark.parametrize(
    "body, message",
    [
        ("select = 'JAX1'\n", "`select` must be a list of strings"),
        ("exclude = [1]\n", "`exclude` must be a list of strings"),
        ("jit-decorators = ['my jit']\n", "is not a dotted name"),
        ("per-file-ignores = ['x']\n", "`per-file-ignores` must be a table"),
        ("[tool.jaxlint.per-file-ignores]\n'tests/*' = 'JAX1'\n", "must be a list of codes"),
    ],
)
def test_bad_values(tmp_path: Path, body: str, message: str) -> None:
    write_pyproject(tmp_path, body)
    with pytest.raises(ConfigError, match=message):
        load_config(start=tmp_path)


def test_invalid_toml_is_a_config_error(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.jaxlint\n")
    with pytest.raises(ConfigError, match="invalid TOML"):
        load_config(tmp_path / "pyproject.toml")


def test_missing_config_file_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="config file not found"):
        load_config(tmp_path / "nope.toml")


def test_unknown_code_in_select_is_an_error(tmp_path: Path, fake_registry: None) -> None:
    write_pyproject(tmp_path, "select = ['JAX1', 'XYZ']\n")
    with pytest.raises(ConfigError, match="unknown rule code or prefix 'XYZ'"):
        load_config(start=tmp_path)


def test_config_is_found_by_walking_up(tmp_path: Path, fake_registry: None) -> None:
    write_pyproject(tmp_path, "ignore = ['JAX2']\n")
    deep = tmp_path / "src" / "pkg"
    deep.mkdir(parents=True)
    config = load_config(start=deep / "mod.py")
    assert config.ignore == ("JAX2",)
    assert config.root == tmp_path.resolve()


def test_pyproject_without_a_jaxlint_table_is_skipped_on_the_way_up(
    tmp_path: Path, fake_registry: None
) -> None:
    write_pyproject(tmp_path, "ignore = ['JAX2']\n")
    inner = tmp_path / "inner"
    inner.mkdir()
    (inner / "pyproject.toml").write_text("[tool.black]\nline-length = 100\n")
    assert load_config(start=inner).ignore == ("JAX2",)


def test_dedicated_config_file_holds_keys_at_top_level(tmp_path: Path, fake_registry: None) -> None:
    path = tmp_path / "jaxlint.toml"
    path.write_text("select = ['JAX3']\n")
    assert load_config(path).select == ("JAX3",)


# ---------------------------------------------------------------- selection semantics


def test_default_selection_leaves_out_opt_in_rules(fake_registry: None) -> None:
    assert Config().enabled_codes() == frozenset(set(FAKE_CODES) - FAKE_OPT_IN)


def test_select_prefix_enables_exactly_what_it_names_opt_in_included(
    fake_registry: None,
) -> None:
    enabled = Config().with_overrides(select=["JAX3"]).enabled_codes()
    assert enabled == {"JAX000", "JAX301", "JAX303", "JAX306"}  # JAX000 is always reported


def test_select_all_and_extend_select(fake_registry: None) -> None:
    assert Config().with_overrides(select=["JAX"]).enabled_codes() == set(FAKE_CODES)
    extended = Config().with_overrides(extend_select=["JAX303"]).enabled_codes()
    assert extended == (set(FAKE_CODES) - {"JAX306"})


def test_ignore_removes_codes_and_prefixes(fake_registry: None) -> None:
    enabled = Config().with_overrides(ignore=["JAX1", "JAX204"]).enabled_codes()
    assert enabled == {"JAX000", "JAX201", "JAX301"}


def test_command_line_select_replaces_the_file_and_ignore_adds(
    tmp_path: Path, fake_registry: None
) -> None:
    write_pyproject(tmp_path, "select = ['JAX1']\nignore = ['JAX102']\n")
    config = load_config(start=tmp_path).with_overrides(select=["JAX2"], ignore=["JAX204"])
    assert config.enabled_codes() == {"JAX000", "JAX201"}


def test_override_codes_are_case_insensitive_and_checked(fake_registry: None) -> None:
    assert Config().with_overrides(select=["jax30"]).select == ("JAX30",)
    with pytest.raises(ConfigError, match="--ignore: unknown rule code or prefix 'JAX9'"):
        Config().with_overrides(ignore=["JAX9"])


def test_per_file_ignores(tmp_path: Path, fake_registry: None) -> None:
    write_pyproject(
        tmp_path,
        """\
        [tool.jaxlint.per-file-ignores]
        "tests/*" = ["JAX2"]
        "scripts/run.py" = ["JAX101", "JAX102"]
        """,
    )
    config = load_config(start=tmp_path)
    default = set(FAKE_CODES) - FAKE_OPT_IN
    assert config.enabled_codes(tmp_path / "tests" / "test_a.py") == default - {"JAX201", "JAX204"}
    assert config.enabled_codes(tmp_path / "scripts" / "run.py") == default - {"JAX101", "JAX102"}
    assert config.enabled_codes(tmp_path / "src" / "a.py") == default


def test_exclude_globs(tmp_path: Path) -> None:
    config = Config(exclude=("generated", "*_pb2.py"), root=tmp_path)
    assert config.is_excluded(tmp_path / "generated" / "a.py")
    assert config.is_excluded(tmp_path / "pkg" / "generated" / "a.py")
    assert config.is_excluded(tmp_path / "pkg" / "m_pb2.py")
    assert not config.is_excluded(tmp_path / "pkg" / "m.py")


def test_parse_code_list() -> None:
    assert parse_code_list("JAX101,JAX2") == ["JAX101", "JAX2"]
    assert parse_code_list(" JAX101 , JAX2,, ") == ["JAX101", "JAX2"]
    assert parse_code_list("") == []


def test_config_from_table_requires_a_table(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="must be a table"):
        config_from_table(["select"], tmp_path / "pyproject.toml")  # type: ignore[arg-type]


# ---------------------------------------------------------------- the real registry


def test_real_registry_opt_in_rules() -> None:
    """Opt-in rules (SPEC §3: JAX303 and JAX306) are on only when selected."""
    from jaxlint.engine.registry import all_rules, default_codes

    rules = all_rules()
    opt_in = {code for code, rule in rules.items() if rule.opt_in}
    assert opt_in == {"JAX303", "JAX306"}
    for code in opt_in:
        assert rules[code].opt_in, code
        assert code not in default_codes()
        assert code not in Config().enabled_codes()
        assert code in Config().with_overrides(select=["JAX3"]).enabled_codes()
    assert "JAX101" in Config().enabled_codes()


# ---------------------------------------------------------------- the command line


def test_cli_unknown_key_exits_two_with_a_clear_message(tmp_path: Path) -> None:
    write_pyproject(tmp_path, "colour = 'red'\n")
    (tmp_path / "a.py").write_text("x = 1\n")
    done = jaxlint(tmp_path, "check", "a.py")
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.startswith(
        f"jaxlint: error: {tmp_path / 'pyproject.toml'}: [tool.jaxlint]: unknown key(s) colour;"
    )
    assert "Traceback" not in done.stderr


def test_cli_bad_tiny_max_ops_exits_two(tmp_path: Path) -> None:
    write_pyproject(tmp_path, "tiny-max-ops = 0\n")
    done = jaxlint(tmp_path, "check", ".")
    assert done.returncode == 2
    assert done.stderr == (
        f"jaxlint: error: {tmp_path / 'pyproject.toml'}: [tool.jaxlint]: "
        "`tiny-max-ops` must be a positive integer, got 0\n"
    )


def test_cli_config_option_and_missing_file(tmp_path: Path) -> None:
    done = jaxlint(tmp_path, "check", "--config", "nope.toml", ".")
    assert (done.returncode, done.stderr) == (
        2,
        "jaxlint: error: config file not found: nope.toml\n",
    )


def test_cli_config_is_found_from_the_first_path(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / "src").mkdir(parents=True)
    write_pyproject(project, "colour = 1\n")
    (project / "src" / "a.py").write_text("x = 1\n")
    done = jaxlint(tmp_path, "check", "project/src/a.py")
    assert done.returncode == 2
    assert "unknown key(s) colour" in done.stderr


JITTED_PRINT = textwrap.dedent(
    """\
    import jax


    @jax.jit
    def f(x):
        print(x)
        return x + 1
    """
)


def test_cli_per_file_ignores_and_exclude(tmp_path: Path) -> None:
    write_pyproject(
        tmp_path,
        """\
        exclude = ["generated"]

        [tool.jaxlint.per-file-ignores]
        "legacy/*" = ["JAX201"]
        """,
    )
    for folder in ("legacy", "src", "generated"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "m.py").write_text(JITTED_PRINT)
    done = jaxlint(tmp_path, "check", ".")
    assert done.returncode == 1, done.stderr
    findings = [line for line in done.stdout.splitlines() if ": JAX" in line]
    assert sorted({line.split(":")[0] for line in findings}) == ["src/m.py"]


def test_cli_ignore_and_select_options(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(JITTED_PRINT)
    ignored = jaxlint(tmp_path, "check", "--ignore", "JAX2", "m.py")
    assert (ignored.returncode, ignored.stdout) == (0, "All checks passed!\n")
    selected = jaxlint(tmp_path, "check", "--select", "JAX1", "m.py")
    assert (selected.returncode, selected.stdout) == (0, "All checks passed!\n")
    only = jaxlint(tmp_path, "check", "--select", "JAX201", "m.py")
    assert only.returncode == 1
    assert only.stdout.startswith("m.py:6:5: JAX201 ")
