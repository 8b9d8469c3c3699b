"""jaxlint.session: one project index per project, kept while its modules and unsaved texts stay
the same, built again when one changes (the language server asks on every keystroke)."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

from jaxlint.session import Session

TRAIN = """
    import jax

    from .losses import mse


    @jax.jit
    def step(w, x, y):
        return mse(x @ w, y)
"""
LOSSES = """
    import jax.numpy as jnp


    def mse(pred, target):
        print("mse", pred)
        return jnp.mean((pred - target) ** 2)
"""


def make_package(root: Path) -> Path:
    package = root / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "train.py").write_text(textwrap.dedent(TRAIN))
    (package / "losses.py").write_bytes(textwrap.dedent(LOSSES).replace("\n", "\r\n").encode())
    return package


def test_the_index_is_kept_until_a_module_or_an_unsaved_text_changes(tmp_path: Path) -> None:
    package = make_package(tmp_path)
    losses, train = str(package / "losses.py"), str(package / "train.py")
    session = Session()
    first = session.index_for(losses)
    assert first is not None and "mse" in first.view(losses).traced_from_outside
    assert session.index_for(train) is first  # one index for every module of the project
    # the same text with its newlines translated (what flake8 reads) is not an unsaved change
    same = textwrap.dedent(LOSSES).encode()
    assert session.index_for(losses, unsaved={losses: same}) is first
    # an editor buffer of train.py without the jit: losses.mse is no longer traced
    unjitted = textwrap.dedent(TRAIN).replace("@jax.jit\n", "").encode()
    edited = session.index_for(losses, unsaved={train: unjitted})
    assert edited is not first and "mse" not in edited.view(losses).traced_from_outside
    # saved to disk, with a later time: built again from the disk
    (package / "train.py").write_bytes(unjitted)
    os.utime(package / "train.py", ns=(0, 10**18))
    assert session.index_for(losses) is not edited


def test_names_that_are_no_module_have_no_index(tmp_path: Path) -> None:
    session = Session()
    assert session.index_for("-") is None
    assert session.index_for("<stdin>") is None
    assert session.index_for(str(tmp_path / "missing" / "mod.py")) is None
    assert session.view(str(tmp_path / "nb.ipynb")) is None
