"""jaxlint.verify.namespace: a module built as its package imports it, running only what it needs.

Each test writes a small package into `tmp_path` and builds a callable from one of its modules
in-process (SPEC §5): relative and sibling imports resolve, unused optional dependencies are
never imported, top-level statements and `__main__` blocks never run.
"""

from __future__ import annotations

import os
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import jax.numpy as jnp
import numpy as np
import pytest

from jaxlint.verify import VerifyRequest, jax_available, verify
from jaxlint.verify.namespace import (
    NamespaceError,
    build_module,
    describe_exception,
    package_context,
    resolve_target,
)

# A package whose models.py needs relative and sibling imports, and does much it must not do here.
MYPKG = {
    "mypkg/__init__.py": """
        from .models import MLP
        from . import utils

        __version__ = "1.0"
    """,
    "mypkg/layers.py": """
        import jax.numpy as jnp

        def dense(x, w):
            return jnp.dot(x, w)

        def _private(x):
            return x
    """,
    "mypkg/utils.py": """
        import jax.numpy as jnp

        def relu(x):
            return jnp.maximum(x, 0.0)

        def normalize(x, eps):
            return x / (jnp.sum(jnp.abs(x)) + eps)
    """,
    "mypkg/core/__init__.py": "",
    "mypkg/core/ops.py": """
        from ..layers import dense
        from ..core import helpers

        def project(x):
            return helpers.double(dense(x, x))
    """,
    "mypkg/core/helpers.py": """
        def double(x):
            return 2 * x
    """,
    # Importable, and records being imported: it must stay unimported when nothing needs it.
    "heavy_dep.py": """
        from pathlib import Path

        Path(__file__).with_name("heavy_dep_imported.txt").write_text("imported")
    """,
    "mypkg/models.py": """
        \"\"\"Models: the target module.\"\"\"

        from __future__ import annotations

        import os
        from pathlib import Path

        import jax
        import jax.numpy as jnp
        import wandb  # an optional dependency that is not installed
        import heavy_dep  # installed, unused by the targets

        try:
            import torch
        except ImportError:
            torch = None

        try:
            import jaxlint_test_no_such_backend as backend
            HAS_BACKEND = True
        except ImportError:
            backend = None
            HAS_BACKEND = False

        from . import utils
        from .layers import dense
        from mypkg.utils import normalize

        EPS = 1e-6
        LAYERS = (3, 4)
        SCALE = 2.0
        Path(__file__).with_name("top_level_ran.txt").write_text("ran")
        UNUSED = 1 / 0
        raise RuntimeError("top-level statements must not run")


        def registered(cls):
            cls.registered = True
            return cls


        class Base:
            scale = SCALE


        @registered
        class MLP(Base):
            def __init__(self, width: int = LAYERS[0]):
                self.width = width

            def __call__(self, x: jax.Array) -> jax.Array:
                w = jnp.ones((x.shape[-1], self.width))
                return utils.relu(dense(x, w)) * self.scale


        @jax.jit
        def forward(x: jax.Array) -> jax.Array:
            h = utils.relu(dense(x, jnp.ones((x.shape[-1], LAYERS[1]))))
            if HAS_BACKEND:
                h = backend.boost(h)
            return normalize(h, EPS)


        def uses_torch(x):
            return torch.as_tensor(x)


        if __name__ == "__main__":
            Path(__file__).with_name("main_ran.txt").write_text("ran")
    """,
}


def write_tree(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


@pytest.fixture
def isolated(tmp_path: Path) -> Iterator[Path]:
    """A tmp folder; sys.path and every module loaded from it are undone afterwards."""
    saved_path = list(sys.path)
    saved_modules = set(sys.modules)
    yield tmp_path
    sys.path[:] = saved_path
    for name in set(sys.modules) - saved_modules:
        module = sys.modules[name]
        file = getattr(module, "__file__", None) or ""
        if name.startswith("_t_ns_") or file.startswith(str(tmp_path)):
            del sys.modules[name]


def build(root: Path, relative: str, target: str, name: str, *, strip: bool = True):
    path = root / relative
    return build_module(
        path.read_text(), str(path), target, strip_staging=strip, module_name=f"_t_ns_{name}"
    )


def test_relative_and_sibling_imports_give_a_working_callable(isolated: Path) -> None:
    write_tree(isolated, MYPKG)
    module = build(isolated, "mypkg/models.py", "forward", "forward")
    forward = resolve_target(module, "forward").function
    assert forward is not None
    x = jnp.arange(6.0).reshape(2, 3) - 2.0
    h = jnp.maximum(x @ jnp.ones((3, 4)), 0.0)
    np.testing.assert_allclose(forward(x), h / (jnp.sum(jnp.abs(h)) + 1e-6), rtol=1e-6)
    assert module.__package__ == "mypkg" and module.__name__ == "_t_ns_forward"
    assert module.EPS == 1e-6 and module.LAYERS == (3, 4)
    # the needed `try` ran its fallback: the backend is not installed
    assert module.HAS_BACKEND is False and module.backend is None


def test_only_needed_imports_and_definitions_run(isolated: Path) -> None:
    write_tree(isolated, MYPKG)
    module = build(isolated, "mypkg/models.py", "forward", "only_needed")
    names = set(vars(module))
    assert {"utils", "dense", "normalize", "EPS", "LAYERS", "jnp", "forward"} <= names
    # `jax` only for `@jax.jit` (stripped) and annotations (lazy under `from __future__`)
    assert (
        not {"jax", "wandb", "heavy_dep", "torch", "os", "UNUSED", "SCALE", "MLP", "Base"} & names
    )
    assert "heavy_dep" not in sys.modules
    assert not (isolated / "heavy_dep_imported.txt").exists()
    assert not (isolated / "mypkg" / "top_level_ran.txt").exists()
    assert not (isolated / "mypkg" / "main_ran.txt").exists()


def test_staging_decorator_stripped_only_when_asked(isolated: Path) -> None:
    write_tree(isolated, MYPKG)
    original = build(isolated, "mypkg/models.py", "forward", "stripped")
    rewritten = build(isolated, "mypkg/models.py", "forward", "kept", strip=False)
    assert not hasattr(original.forward, "lower")  # plain function
    assert hasattr(rewritten.forward, "lower")  # still jax.jit-wrapped
    x = jnp.ones((2, 3))
    np.testing.assert_allclose(original.forward(x), rewritten.forward(x))


def test_package_init_importing_the_target_gets_a_stand_in(isolated: Path) -> None:
    # mypkg/__init__.py does `from .models import MLP`: the real models.py must not run.
    write_tree(isolated, MYPKG)
    module = build(isolated, "mypkg/models.py", "MLP.__call__", "method")
    target = resolve_target(module, "MLP.__call__")
    assert target.is_instance_method and target.cls is module.MLP
    model = module.MLP()
    assert model.registered is True  # the decorator of a needed class ran
    out = model(jnp.ones((2, 5)))
    np.testing.assert_allclose(out, jnp.full((2, 3), 10.0))
    package = sys.modules["mypkg"]
    assert package.__version__ == "1.0" and isinstance(package.MLP, type)
    assert package.MLP is not module.MLP  # the stand-in's own definition, not the private one
    assert not (isolated / "mypkg" / "top_level_ran.txt").exists()
    assert not (isolated / "mypkg" / "main_ran.txt").exists()


def test_two_level_relative_import(isolated: Path) -> None:
    write_tree(isolated, {**MYPKG, "mypkg/__init__.py": ""})
    module = build(isolated, "mypkg/core/ops.py", "project", "ops")
    assert module.__package__ == "mypkg.core"
    x = jnp.eye(2) * 3.0
    np.testing.assert_allclose(module.project(x), 2 * (x @ x))


def test_package_that_cannot_be_imported_says_why(isolated: Path) -> None:
    # mypkg/__init__.py imports models.py for real when models.py is not the target, and
    # models.py imports wandb: the package itself cannot be imported here.
    write_tree(isolated, MYPKG)
    with pytest.raises(NamespaceError) as caught:
        build(isolated, "mypkg/core/ops.py", "project", "ops_broken")
    assert str(caught.value) == (
        "line 2: import of dense failed (`from ..layers import dense`): "
        f"ModuleNotFoundError: No module named 'wandb' (raised at mypkg{os.sep}models.py:11)"
    )


def test_an_unused_optional_dependency_never_matters(isolated: Path) -> None:
    write_tree(isolated, MYPKG)
    # uses_torch needs the try block: torch is not installed, so the fallback binds None
    module = build(isolated, "mypkg/models.py", "uses_torch", "torch")
    assert module.torch is None
    assert "wandb" not in vars(module)


def test_flag_set_after_an_import_in_a_try_is_gated_by_it(isolated: Path) -> None:
    write_tree(
        isolated,
        {
            "flags.py": """
                try:
                    import jaxlint_test_no_such_accelerator
                    import jaxlint_test_other_missing_module
                    FAST = True
                except ImportError:
                    FAST = False
                else:
                    CHECKED = True

                def f(x):
                    return x * (2 if FAST else 3)
            """
        },
    )
    module = build(isolated, "flags.py", "f", "flags")
    assert module.FAST is False and module.f(1) == 3
    assert "CHECKED" not in vars(module)


def test_failing_needed_import_names_the_import(isolated: Path) -> None:
    write_tree(
        isolated,
        {
            "proj/__init__.py": "",
            "proj/mod.py": """
                import jax.numpy as jnp
                from proj.missing import helper

                def f(x):
                    return helper(jnp.asarray(x))
            """,
        },
    )
    with pytest.raises(NamespaceError) as caught:
        build(isolated, "proj/mod.py", "f", "missing")
    message = str(caught.value)
    assert message.startswith("line 3: import of helper failed (`from proj.missing import helper`)")
    assert "ModuleNotFoundError: No module named 'proj.missing'" in message
    assert "\n" not in message and "Traceback" not in message


def test_error_in_package_init_says_where(isolated: Path) -> None:
    write_tree(
        isolated,
        {
            "broken/__init__.py": "import jaxlint_test_no_such_dependency\n",
            "broken/utils.py": "def g(x):\n    return x\n",
            "broken/mod.py": "from . import utils\n\ndef f(x):\n    return utils.g(x)\n",
        },
    )
    with pytest.raises(NamespaceError) as caught:
        build(isolated, "broken/mod.py", "f", "broken_init")
    message = str(caught.value)
    assert "import of utils failed (`from . import utils`)" in message
    assert "No module named 'jaxlint_test_no_such_dependency'" in message
    assert message.endswith(f"(raised at broken{os.sep}__init__.py:1)")


def test_a_failing_definition_in_the_target_module_used_by_init(isolated: Path) -> None:
    # The package's __init__ asks the stand-in for a name whose definition fails.
    write_tree(
        isolated,
        {
            "pkg3/__init__.py": "from .mod import BROKEN\n",
            "pkg3/helpers.py": "ONE = 1\n",
            "pkg3/mod.py": """
                from . import helpers
                BROKEN = 1 / 0

                def f(x):
                    return x + helpers.ONE
            """,
        },
    )
    with pytest.raises(NamespaceError) as caught:
        build(isolated, "pkg3/mod.py", "f", "stand_in_error")
    message = str(caught.value)
    assert "import of helpers failed" in message
    assert "pkg3.mod.BROKEN: line 3: defining BROKEN failed: ZeroDivisionError" in message


def test_an_exception_is_described_by_its_class_never_its_message(
    isolated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JAXLINT_TEST_API_KEY", "hunter2-very-secret")
    write_tree(
        isolated,
        {
            "leaky.py": """
                import os
                SETTING = int(os.environ["JAXLINT_TEST_API_KEY"])

                def f(x):
                    return x * SETTING
            """
        },
    )
    with pytest.raises(NamespaceError) as caught:
        build(isolated, "leaky.py", "f", "leaky")
    message = str(caught.value)
    assert message == "line 3: defining SETTING failed: ValueError"  # the value is the message's
    assert describe_exception(RuntimeError("token hunter2-very-secret")) == "RuntimeError"
    missing = ModuleNotFoundError("No module named 'torch'", name="torch")
    assert describe_exception(missing) == "ModuleNotFoundError: No module named 'torch'"


def test_target_in_package_init_does_not_run_it(isolated: Path) -> None:
    write_tree(
        isolated,
        {
            "initpkg/__init__.py": """
                from .layers import dense
                raise RuntimeError("the package's own top level must not run")

                def apply(x):
                    return dense(x) + 1
            """,
            "initpkg/layers.py": "def dense(x):\n    return 3 * x\n",
        },
    )
    module = build(isolated, "initpkg/__init__.py", "apply", "init_target")
    assert module.__package__ == "initpkg"
    np.testing.assert_allclose(module.apply(jnp.ones(3)), jnp.full(3, 4.0))


def test_namespace_package_without_init(isolated: Path) -> None:
    write_tree(
        isolated,
        {
            "nspkg/sub/helpers.py": "def g(x):\n    return x - 1\n\ndef h(x):\n    return 2 * x\n",
            "nspkg/sub/mod.py": """
                from nspkg.sub.helpers import g
                from .helpers import h

                def f(x):
                    return g(h(x))
            """,
        },
    )
    path = isolated / "nspkg" / "sub" / "mod.py"
    assert package_context(str(path)) == ([str(isolated)], "nspkg.sub")
    module = build(isolated, "nspkg/sub/mod.py", "f", "namespace")
    np.testing.assert_allclose(module.f(jnp.ones(2)), jnp.ones(2))


def test_src_layout_and_plain_scripts(isolated: Path) -> None:
    write_tree(
        isolated,
        {
            "proj/pyproject.toml": "",
            "proj/src/srcpkg/__init__.py": "",
            "proj/src/srcpkg/a.py": "from srcpkg.b import ONE\n\ndef f(x):\n    return x + ONE\n",
            "proj/src/srcpkg/b.py": "ONE = 1.0\n",
            "proj/scripts/run.py": "from tool import TWO\n\ndef f(x):\n    return x * TWO\n",
            "proj/scripts/tool.py": "TWO = 2.0\n",
        },
    )
    src = isolated / "proj" / "src"
    assert package_context(str(src / "srcpkg" / "a.py")) == ([str(src)], "srcpkg")
    scripts = isolated / "proj" / "scripts"
    assert package_context(str(scripts / "run.py")) == ([str(scripts)], None)
    assert build(isolated, "proj/src/srcpkg/a.py", "f", "src").f(1.0) == 2.0
    assert build(isolated, "proj/scripts/run.py", "f", "script").f(3.0) == 6.0


def test_package_folder_is_searched_last_not_first(isolated: Path) -> None:
    # `import json` from inside a package with its own json.py is the stdlib's; a sloppy
    # `import localhelper` (script-style) still finds the sibling.
    write_tree(
        isolated,
        {
            "sloppy/__init__.py": "",
            "sloppy/json.py": "raise RuntimeError('shadowed the stdlib')\n",
            "sloppy/localhelper.py": "K = 5\n",
            "sloppy/mod.py": """
                import json
                import localhelper

                def f(x):
                    return x + localhelper.K + len(json.dumps([]))
            """,
        },
    )
    sys.modules.pop("json", None)  # make `import json` really search sys.path
    try:
        module = build(isolated, "sloppy/mod.py", "f", "sloppy")
        assert module.f(1) == 8
    finally:
        import json

        sys.modules["json"] = json


def test_star_import_conditional_import_and_dataclass(isolated: Path) -> None:
    write_tree(
        isolated,
        {
            "starpkg/__init__.py": "",
            "starpkg/consts.py": "OFFSET = 0.5\n__all__ = ['OFFSET']\n",
            "starpkg/mod.py": """
                from __future__ import annotations

                import dataclasses
                import sys
                from typing import ClassVar

                from .consts import *

                if sys.version_info >= (3, 8):
                    from math import prod
                else:
                    raise RuntimeError("old Python")

                @dataclasses.dataclass
                class Config:
                    count: ClassVar[int] = 3
                    width: int = 2

                def f(x):
                    return x * prod((Config().width, Config.count)) + OFFSET
            """,
        },
    )
    module = build(isolated, "starpkg/mod.py", "f", "star")
    assert module.f(1.0) == 6.5
    assert [f.name for f in __import__("dataclasses").fields(module.Config)] == ["width"]


@pytest.mark.skipif(not jax_available(), reason="JAX is not installed")
def test_verify_end_to_end_in_a_package(isolated: Path) -> None:
    write_tree(isolated, MYPKG)
    path = isolated / "mypkg" / "models.py"
    original = path.read_text()
    rewritten = original.replace("return normalize(h, EPS)", "return normalize(h, EPS) + 0.0")
    request = VerifyRequest("pkg", str(path), original, rewritten, "forward", "JAX101", False)
    (result,) = verify([request], time_limit_s=120.0)
    assert result.status == "verified", result.reason
    assert not (isolated / "mypkg" / "top_level_ran.txt").exists()
    assert not (isolated / "heavy_dep_imported.txt").exists()


def test_package_init_star_importing_the_target(isolated: Path) -> None:
    # `from .models import *` without `__all__`: the stand-in offers the public definitions it
    # can make (not `BROKEN`, whose definition fails; never the top-level raise).
    write_tree(
        isolated,
        {
            "starinit/__init__.py": "from .models import *\n",
            "starinit/consts.py": "ONE = 1.0\n",
            "starinit/models.py": """
                import jax.numpy as jnp
                from .consts import ONE
                raise RuntimeError("top-level statements must not run")
                BROKEN = 1 / 0
                WIDTH = 4

                def helper(x):
                    return jnp.full(WIDTH, x)

                def f(x):
                    return helper(x) + ONE
            """,
        },
    )
    module = build(isolated, "starinit/models.py", "f", "star_init")
    package = sys.modules["starinit"]
    assert package.WIDTH == 4 and callable(package.helper) and not hasattr(package, "BROKEN")
    np.testing.assert_allclose(module.f(1.0), jnp.full(4, 2.0))


def test_import_paths_from_how_the_module_imports_itself(isolated: Path) -> None:
    write_tree(
        isolated,
        {
            # a regular package imported through the folder above it: `lib.mypkg`
            "repo/lib/mypkg/__init__.py": "",
            "repo/lib/mypkg/mod.py": "from lib.mypkg.b import ONE\n",
            # a script whose sibling `models.py` wins over the `models` folder it sits in
            "work/models/scripts/models.py": "",
            "work/models/scripts/run.py": "import models\n",
            # and a script importing its own folder as a namespace package
            "exp/models/train.py": "from models.mlp import MLP\n",
        },
    )
    repo = isolated / "repo"
    assert package_context(str(repo / "lib" / "mypkg" / "mod.py")) == (
        [str(repo), str(repo / "lib")],
        "lib.mypkg",
    )
    scripts = isolated / "work" / "models" / "scripts"
    assert package_context(str(scripts / "run.py")) == ([str(scripts)], None)
    exp = isolated / "exp"
    assert package_context(str(exp / "models" / "train.py")) == ([str(exp)], "models")
    # an installed package's name never makes a folder of the same name a package root
    assert package_context(str(isolated / "jax" / "run.py"), "import jax\n") == (
        [str(isolated / "jax")],
        None,
    )


def test_submodule_import_the_target_reads_through_its_package(isolated: Path) -> None:
    # `import subpkg.deep as unused_alias` is what makes `subpkg.deep` reachable from `subpkg`;
    # an unrelated submodule import stays unexecuted, and a failing one does not matter.
    write_tree(
        isolated,
        {
            "subpkg/__init__.py": "",
            "subpkg/deep.py": "def triple(x):\n    return 3 * x\n",
            "subpkg/other.py": "raise RuntimeError('not read by the target')\n",
            "user.py": """
                import subpkg
                import subpkg.deep as unused_alias
                import subpkg.other as other_alias
                import subpkg.deep.nothing_here as gone

                def f(x):
                    return subpkg.deep.triple(x)
            """,
        },
    )
    module = build(isolated, "user.py", "f", "submodule")
    assert module.f(2) == 6
    assert "subpkg.other" not in sys.modules and "other_alias" not in vars(module)
