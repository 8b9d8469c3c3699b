"""PATHS → files (jaxlint.discovery): suffixes, excludes, .gitignore files, order, errors."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from jaxlint import discovery
from jaxlint.discovery import discover
from jaxlint.engine.config import Config


def make(root: Path, *relative: str, text: str = "x = 1\n") -> None:
    for name in relative:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def names(found: discovery.Discovery, root: Path) -> list[str]:
    return [Path(os.path.abspath(p)).relative_to(root).as_posix() for p in found.files]


def test_walks_python_files_and_notebooks_in_sorted_order(tmp_path: Path) -> None:
    make(tmp_path, "z.py", "a.py", "pkg/mod.py", "pkg/nb.ipynb", "pkg/notes.txt", "pkg/sub/deep.py")
    make(tmp_path, "setup.cfg", "pkg/data.json", "script")
    found = discover([tmp_path], Config())
    assert names(found, tmp_path) == [
        "a.py",
        "pkg/mod.py",
        "pkg/nb.ipynb",
        "pkg/sub/deep.py",
        "z.py",
    ]
    assert found.errors == ()


def test_default_path_is_the_current_folder(tmp_path: Path, monkeypatch) -> None:
    make(tmp_path, "a.py", "b/c.py")
    monkeypatch.chdir(tmp_path)
    found = discover([], Config())
    assert [p.as_posix() for p in found.files] == ["a.py", "b/c.py"]


def test_paths_keep_the_spelling_they_were_given(tmp_path: Path, monkeypatch) -> None:
    make(tmp_path, "src/a.py")
    monkeypatch.chdir(tmp_path)
    assert [p.as_posix() for p in discover(["src"], Config()).files] == ["src/a.py"]
    assert [p.as_posix() for p in discover(["./src/"], Config()).files] == ["src/a.py"]


def test_default_excluded_folders_are_skipped(tmp_path: Path) -> None:
    make(tmp_path, "keep.py", ".venv/lib/x.py", "build/y.py", "__pycache__/z.py", ".git/hooks/h.py")
    make(tmp_path, "pkg/node_modules/m.py", "pkg/.ipynb_checkpoints/nb.ipynb", "dist/d.py")
    assert names(discover([tmp_path], Config()), tmp_path) == ["keep.py"]


def test_configured_excludes_are_skipped_when_recursing(tmp_path: Path) -> None:
    make(tmp_path, "keep.py", "generated/a.py", "pkg/gen_b.py", "pkg/c.py", "vendor/lib/d.py")
    config = Config(exclude=("generated", "gen_*.py", "vendor/lib"), root=tmp_path)
    assert names(discover([tmp_path], config), tmp_path) == ["keep.py", "pkg/c.py"]


def test_a_file_named_explicitly_is_always_linted(tmp_path: Path) -> None:
    make(tmp_path, "generated/a.py", "build/b.py", "ignored.py", "script")
    (tmp_path / ".gitignore").write_text("ignored.py\n")
    config = Config(exclude=("generated",), root=tmp_path)
    explicit = [
        tmp_path / "generated/a.py",
        tmp_path / "build/b.py",
        tmp_path / "ignored.py",
        tmp_path / "script",
    ]
    found = discover(explicit, config)
    assert names(found, tmp_path) == ["build/b.py", "generated/a.py", "ignored.py", "script"]


def test_force_exclude_applies_excludes_to_named_files(tmp_path: Path) -> None:
    make(tmp_path, "generated/a.py", "build/b.py", "ignored.py", "sub/also.py", "keep.py")
    (tmp_path / ".git").mkdir()  # a repository: its .gitignore files count
    (tmp_path / ".gitignore").write_text("ignored.py\n")
    (tmp_path / "sub" / ".gitignore").write_text("also.py\n")
    config = Config(exclude=("generated",), root=tmp_path)
    named = [tmp_path / n for n in ("generated/a.py", "build/b.py", "ignored.py", "sub/also.py")]
    found = discover([*named, tmp_path / "keep.py"], config, force_exclude=True)
    assert names(found, tmp_path) == ["keep.py"]
    assert found.errors == ()


def test_force_exclude_does_not_exclude_a_project_inside_a_venv_named_folder(
    tmp_path: Path, monkeypatch
) -> None:
    project = tmp_path / "venv" / "project"  # only parts inside the project count
    make(project, "a.py")
    (project / ".git").mkdir()
    monkeypatch.chdir(project)
    assert names(discover(["a.py"], Config(), force_exclude=True), project) == ["a.py"]


def test_gitignore_patterns_apply_when_recursing(tmp_path: Path) -> None:
    make(tmp_path, "a.py", "gen_a.py", "out/b.py", "pkg/out/c.py", "pkg/d.py", "docs/e.py")
    (tmp_path / ".gitignore").write_text("# build outputs\ngen_*.py\nout/\n/docs\n")
    make(tmp_path, "pkg/docs/f.py")
    found = discover([tmp_path], Config())
    assert names(found, tmp_path) == ["a.py", "pkg/d.py", "pkg/docs/f.py"]


def test_nested_gitignore_applies_under_its_folder_only(tmp_path: Path) -> None:
    make(tmp_path, "local.py", "sub/local.py", "sub/keep.py", "sub/deeper/local.py", "other/x.py")
    make(tmp_path, "sub/generated.py")
    (tmp_path / ".gitignore").write_text("generated.py\n")
    (tmp_path / "sub" / ".gitignore").write_text("local.py\n!generated.py\n")
    found = discover([tmp_path], Config())
    assert names(found, tmp_path) == ["local.py", "other/x.py", "sub/generated.py", "sub/keep.py"]


def test_gitignore_above_a_named_folder_applies_inside_a_repository(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    make(tmp_path, "src/a.py", "src/a_pb2.py", "src/sub/b_pb2.py")
    (tmp_path / ".gitignore").write_text("*_pb2.py\n")
    found = discover([tmp_path / "src"], Config())
    assert names(found, tmp_path) == ["src/a.py"]


def test_git_info_exclude_is_honoured(tmp_path: Path) -> None:
    (tmp_path / ".git" / "info").mkdir(parents=True)
    (tmp_path / ".git" / "info" / "exclude").write_text("scratch.py\n")
    make(tmp_path, "a.py", "scratch.py")
    assert names(discover([tmp_path], Config()), tmp_path) == ["a.py"]


def test_gitignore_outside_any_repository_or_config_root_is_not_read(tmp_path: Path) -> None:
    make(tmp_path, "project/a.py")
    (tmp_path / ".gitignore").write_text("a.py\n")
    assert names(discover([tmp_path / "project"], Config()), tmp_path) == ["project/a.py"]
    # The config root bounds the walk up when there is no repository.
    config = Config(root=tmp_path)
    assert names(discover([tmp_path / "project"], config), tmp_path) == []


def test_missing_path_is_an_error_and_the_others_are_still_found(tmp_path: Path) -> None:
    make(tmp_path, "a.py")
    missing = tmp_path / "nope.py"
    found = discover([missing, tmp_path / "a.py"], Config())
    assert names(found, tmp_path) == ["a.py"]
    assert found.errors == (f"{missing}: no such file or folder",)


def test_same_file_named_twice_is_listed_once(tmp_path: Path, monkeypatch) -> None:
    make(tmp_path, "pkg/a.py", "b.py")
    monkeypatch.chdir(tmp_path)
    found = discover([".", "pkg", "pkg/a.py", "b.py"], Config())
    assert [p.as_posix() for p in found.files] == ["b.py", "pkg/a.py"]


def test_symlink_loop_terminates(tmp_path: Path) -> None:
    make(tmp_path, "pkg/a.py")
    (tmp_path / "pkg" / "loop").symlink_to(tmp_path / "pkg", target_is_directory=True)
    assert names(discover([tmp_path], Config()), tmp_path) == ["pkg/a.py"]


def test_unreadable_folder_is_reported_not_raised(tmp_path: Path, monkeypatch) -> None:
    make(tmp_path, "a.py", "locked/b.py")
    real_scandir = os.scandir
    locked = tmp_path / "locked"

    def scandir(path):
        if Path(path) == locked:
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(discovery.os, "scandir", scandir)
    found = discover([tmp_path], Config())
    assert names(found, tmp_path) == ["a.py"]
    assert found.errors == (f"{locked}: cannot read folder: Permission denied",)


@pytest.mark.parametrize("pattern", ["*.ipynb", "nb.ipynb", "/nb.ipynb"])
def test_notebooks_obey_gitignore(tmp_path: Path, pattern: str) -> None:
    make(tmp_path, "a.py", "nb.ipynb")
    (tmp_path / ".gitignore").write_text(pattern + "\n")
    assert names(discover([tmp_path], Config()), tmp_path) == ["a.py"]


def test_a_named_folder_is_linted_even_when_a_parent_gitignore_ignores_it(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text("vendor/\n*.gen.py\n")
    vendored = tmp_path / "vendor" / "lib"
    vendored.mkdir(parents=True)
    (vendored / "model.py").write_text("import jax\n")
    (vendored / "table.gen.py").write_text("import jax\n")
    (tmp_path / "main.py").write_text("import jax\n")
    walked = discover([tmp_path], Config())
    assert [p.name for p in walked.files] == ["main.py"]  # the parent walk honours .gitignore
    named = discover([tmp_path / "vendor"], Config())
    # named explicitly: linted, and only .gitignore files inside it would prune it
    assert sorted(p.name for p in named.files) == ["model.py", "table.gen.py"]
