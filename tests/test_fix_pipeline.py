"""--fix end to end on the seed, with real JAX: rewrites are verified, wrong ones are refused."""

from __future__ import annotations

import functools
import importlib.util
import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import libcst as cst
import pytest

from jaxlint.engine.config import Config
from jaxlint.engine.edits import Edit
from jaxlint.engine.rule import Rule
from jaxlint.fixes.pipeline import fix_source, lint_source
from tests.conftest import FIXTURES

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")


@pytest.fixture(scope="module")
def fixed_seed(tmp_path_factory) -> tuple[Path, list[dict]]:
    """A copy of fixtures/seed after `jaxlint check --fix`, and the JSON report of that run."""
    folder = tmp_path_factory.mktemp("seed")
    for path in (FIXTURES / "seed").glob("*.py"):
        shutil.copy(path, folder / path.name)
    done = subprocess.run(
        [sys.executable, "-m", "jaxlint", "check", "--fix", "--output-format", "json", str(folder)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    # every default finding is fixed but the static `print("Function run")` marker, left as is
    assert done.returncode == 1, done.stdout + done.stderr
    return folder, json.loads(done.stdout)


def load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_seed_fix_rewrites_three_hazards_verified(fixed_seed):
    _, report = fixed_seed
    applied = sorted((Path(d["path"]).name, d["code"]) for d in report if d["fix"]["applied"])
    assert applied == [
        ("cumulative_sum.py", "JAX101"),
        ("cumulative_sum.py", "JAX101"),
        ("scale_class.py", "JAX301"),
    ]
    (marker,) = [d for d in report if not d["fix"]["applied"]]
    assert (Path(marker["path"]).name, marker["code"]) == ("jit_and_aot.py", "JAX201")
    assert marker["fix"]["note"].startswith("prints only static values")
    for diagnostic in (d for d in report if d["fix"]["applied"]):
        verification = diagnostic["fix"]["verification"]
        assert verification["status"] == "verified"
        assert verification["inputs_passed"] >= 3
        assert verification["max_abs_diff"] <= 1e-5
        if diagnostic["code"] == "JAX101":
            assert verification["eqns_after"] < verification["eqns_before"]


def test_seed_rewrites_are_the_expected_code(fixed_seed):
    folder, _ = fixed_seed
    cumulative = (folder / "cumulative_sum.py").read_text()
    assert "for i in range" not in cumulative
    # the module's own `from jax import lax` spelling is reused
    assert "y = acc + lax.cumsum(acc_terms, axis=0)" in cumulative
    assert "y = y + jnp.sum(y_terms, axis=0, dtype=y_terms.dtype)" in cumulative
    assert '    print("Function run")' in (folder / "jit_and_aot.py").read_text()
    scale = (folder / "scale_class.py").read_text()
    assert "return _scale_class_apply(self.scale, x)" in scale
    assert "@jax.jit\ndef _scale_class_apply(scale, x: jnp.array):" in scale


def test_rewritten_seed_runs_under_jit_like_the_original_without_jit(fixed_seed):
    folder, _ = fixed_seed
    original = load(FIXTURES / "seed" / "cumulative_sum.py", "seed_original")
    rewritten = load(folder / "cumulative_sum.py", "seed_rewritten")
    for n in (1, 7, 100):
        x = jnp.linspace(-1.0, 2.0, n, dtype=jnp.float32)
        # a running sum adds in another order than the loop: float32 rounding, near zero too
        close = functools.partial(jnp.allclose, rtol=1e-5, atol=1e-5)
        assert close(jax.jit(rewritten.cumulative_sum)(x), original.cumulative_sum(x))
        assert close(jax.jit(rewritten.cumulative_total)(x), original.cumulative_total(x))
    scale = load(folder / "scale_class.py", "scale_rewritten")
    model = scale.ScaleClass(jnp.float32(2.0))
    assert jnp.allclose(model.apply(jnp.arange(3.0)), jnp.arange(3.0) * 2.0)
    model.scale = 5.0  # attributes are read per call: no stale cache
    assert jnp.allclose(model.apply(jnp.arange(3.0)), jnp.arange(3.0) * 5.0)


def test_loop_rewrites_have_a_constant_jaxpr_size(fixed_seed):
    folder, _ = fixed_seed
    original = load(FIXTURES / "seed" / "cumulative_sum.py", "seed_original_sizes")
    rewritten = load(folder / "cumulative_sum.py", "seed_rewritten_sizes")

    def equations(function, n):
        return len(jax.make_jaxpr(function)(jnp.ones(n)).jaxpr.eqns)

    for name in ("cumulative_sum", "cumulative_total"):
        before = [equations(getattr(original, name), n) for n in (10, 100)]
        after = [equations(getattr(rewritten, name), n) for n in (10, 100, 1000)]
        assert before[1] > before[0] * 5  # unrolled: grows with N
        assert len(set(after)) == 1 and after[0] <= 3  # vmap + cumsum or sum: constant


class _WrongRewrite(Rule):
    """A deliberately wrong 'fix' (x * 2 → x * 3) that must not survive verification."""

    name = "wrong-rewrite"
    severity = "warning"
    summary = "injected wrong fix"
    fix_kind = "verified"

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        if self.context.traced and isinstance(node.right, cst.Integer) and node.right.value == "2":
            edit = Edit(
                replacements={node: node.with_changes(right=cst.Integer("3"))},
                description="x * 2 → x * 3",
                verify_target=self.context.verify_target(),
            )
            self.report(node, "doubling", fix=edit)


_WrongRewrite.code = "JAX999"  # set after class creation: a test rule stays out of the registry

WRONG_SOURCE = textwrap.dedent(
    """\
    import jax


    @jax.jit
    def double(x):
        return x * 2
    """
)


def test_a_fix_that_changes_results_is_caught_and_not_applied():
    result = fix_source(WRONG_SOURCE, "wrong.py", Config(), [_WrongRewrite])
    assert result.fixed_source is None
    (diagnostic,) = result.diagnostics
    assert not diagnostic.fix.applied
    assert diagnostic.fix.verification["status"] == "failed"
    assert diagnostic.fix.note.startswith("verification failed")


def test_unsafe_fixes_apply_even_an_unverified_fix():
    result = fix_source(WRONG_SOURCE, "wrong.py", Config(), [_WrongRewrite], unsafe_fixes=True)
    assert result.fixed_source == WRONG_SOURCE.replace("x * 2", "x * 3")


def test_no_verify_leaves_verified_kind_fixes_unapplied():
    source = "import jax\n\n@jax.jit\ndef f(x):\n    print(x)\n    return x\n"
    result = lint_source(source, "p.py", Config(), fix=True, verify=False)
    assert result.fixed_source is None
    (diagnostic,) = result.diagnostics
    assert diagnostic.fix.note == "not verified (--no-verify)"


def test_without_jax_verified_fixes_say_how_to_get_verification(monkeypatch):
    import jaxlint.verify

    monkeypatch.setattr(jaxlint.verify, "jax_available", lambda python=None: False)
    source = "import jax\n\n@jax.jit\ndef f(x):\n    print(x)\n    return x\n"
    result = lint_source(source, "p.py", Config(), fix=True)
    assert result.fixed_source is None
    assert result.diagnostics[0].fix.note == "not verified: install jaxlint[verify]"


def test_refused_loop_keeps_the_diagnostic_with_the_reason():
    source = textwrap.dedent(
        """\
        import jax


        @jax.jit
        def first_big(x: jax.Array):
            total = 0.0
            for v in x:
                if total > 10.0:
                    break
                total = total + v
            return total
        """
    )
    (diagnostic,) = lint_source(source, "b.py", Config(select=("JAX101",))).diagnostics
    assert diagnostic.fix.kind == "suggestion"
    assert "`break`" in diagnostic.fix.note


def test_fixes_keep_comments_and_are_idempotent():
    source = textwrap.dedent(
        """\
        import jax  # the import


        # a jitted helper
        @jax.jit
        def f(x):
            # before the print
            print(x)  # trailing
            return x  # done
        """
    )
    first = lint_source(source, "c.py", Config(), fix=True)
    assert first.fixed_source is not None
    for comment in (
        "# the import",
        "# a jitted helper",
        "# before the print",
        "# trailing",
        "# done",
    ):
        assert comment in first.fixed_source
    second = lint_source(first.fixed_source, "c.py", Config(), fix=True)
    assert second.fixed_source is None and second.diagnostics == []


def test_rewrites_reuse_the_modules_jax_alias_and_keep_the_for_line_comment():
    source = textwrap.dedent(
        """\
        import jax as J


        @J.jit
        def total(x: J.Array):
            s = 0.0
            for v in x:  # accumulate
                s = s + v
            return s
        """
    )
    result = lint_source(source, "a.py", Config(), fix=True, unsafe_fixes=True, verify=False)
    fixed = result.fixed_source
    assert "def _step_terms(v):  # accumulate" in fixed
    assert "s_terms = J.vmap(_step_terms)(x)" in fixed
    assert "J.numpy.sum(s_terms" in fixed
    assert "import jax\n" not in fixed


def test_helpers_of_one_class_keep_the_order_of_its_methods():
    source = textwrap.dedent(
        """\
        import jax


        class Reg:
            def __init__(self, w):
                self.w = w

            @jax.jit
            def predict(self, x):
                return x @ self.w

            @jax.jit
            def predict_twice(self, x):
                return (x @ self.w) * 2
        """
    )
    result = lint_source(source, "r.py", Config(), fix=True, unsafe_fixes=True, verify=False)
    fixed = result.fixed_source
    assert fixed.index("def _reg_predict(") < fixed.index("def _reg_predict_twice(")


def test_a_loop_inside_a_lax_body_is_verified_by_its_total_jaxpr_size():
    source = textwrap.dedent(
        """\
        import jax
        import jax.numpy as jnp
        from jax import lax


        def smooth(x: jax.Array):
            def body(it, x):
                acc = jnp.zeros_like(x[0])
                for i in range(x.shape[0]):
                    acc = acc + x[i]
                return 0.5 * x + 0.5 * acc / x.shape[0]

            return lax.fori_loop(0, 3, body, x)
        """
    )
    result = lint_source(source, "s.py", Config(), fix=True)
    (diagnostic,) = result.diagnostics
    verification = diagnostic.fix.verification
    assert diagnostic.fix.applied, diagnostic.fix.note
    assert verification["eqns_after"] == verification["eqns_before"] == 1  # one `while`
    assert verification["eqns_total_after"] < verification["eqns_total_before"]


def test_a_training_step_taking_dicts_is_verified_with_dict_inputs():
    """`batch["x"]` in the module: verification builds dicts of arrays with those keys."""
    source = textwrap.dedent(
        """\
        import jax
        import jax.numpy as jnp


        def loss_fn(params, batch):
            pred = batch["x"] @ params["w"] + params["b"]
            return jnp.mean((pred - batch["y"]) ** 2)


        @jax.jit
        def train_step(params, batch):
            loss, grads = jax.value_and_grad(loss_fn)(params, batch)
            print("loss", loss)
            params = jax.tree.map(lambda p, g: p - 0.1 * g, params, grads)
            return params, loss
        """
    )
    result = lint_source(source, "train.py", Config(), fix=True)
    (diagnostic,) = result.diagnostics
    assert diagnostic.fix.applied, diagnostic.fix.note
    assert diagnostic.fix.verification["inputs_passed"] >= 3
    assert 'jax.debug.print("loss {loss!s}", loss=loss)' in result.fixed_source


TWO_PRINTS = """\
import jax
import jax.numpy as jnp


@jax.jit
def step(w, x):
    loss = jnp.mean((x * w) ** 2)
    print("loss", loss){noqa}
    print("norm", jnp.linalg.norm(w))
    return w - 0.1 * loss
"""


def test_the_prints_of_a_function_are_one_fix_unless_one_is_silenced():
    together = lint_source(TWO_PRINTS.format(noqa=""), "p.py", Config(select=("JAX201",)))
    lead, other = together.diagnostics
    assert lead.fix is not None and lead.fix.description.startswith("2 prints of `step`")
    assert other.fix is not None and "one fix rewrites every print" in (other.fix.note or "")
    # a print a noqa silences keeps its text: the other keeps its own edit, not the shared one
    silenced = lint_source(
        TWO_PRINTS.format(noqa="  # noqa: JAX201"), "p.py", Config(select=("JAX201",))
    )
    (only,) = silenced.diagnostics
    assert only.fix is not None and only.fix.description.startswith("print → jax.debug.print")


@pytest.mark.parametrize("ending", ["\n\n ", "\n\n\t\n  ", "\r"])
def test_a_fix_keeps_the_file_s_own_whitespace_ending(ending: str) -> None:
    """libcst gives back neither a lone `\\r` ending the file nor a blank line before a last
    line of spaces; a fix far from the end keeps the ending byte for byte (found by the
    mutation suite: a truncated fixture lost its blank line)."""
    source = (
        textwrap.dedent(
            """\
        import time

        import jax


        @jax.jit
        def double(x):
            return x * 2


        def bench(x):
            t0 = time.perf_counter()
            out = double(x)
            return out, time.perf_counter() - t0
        """
        ).rstrip("\n")
        + ending
    )
    fixed = lint_source(source, "bench.py", Config(select=("JAX307",)), fix=True, verify=False)
    assert fixed.fixed_source is not None
    assert fixed.fixed_source.endswith("- t0" + ending)
    changed = [
        (a, b)
        for a, b in zip(source.splitlines(), fixed.fixed_source.splitlines(), strict=True)
        if a != b
    ]
    assert changed == [("    out = double(x)", "    out = jax.block_until_ready(double(x))")]


TIMED = """\
import time

import jax
import jax.numpy as jnp


@jax.jit
def step(x):
    return jnp.tanh(x) * 2


def bench(x):
    step(x)
    start = time.perf_counter()
    y = step(x)
    return y, time.perf_counter() - start
"""


def test_fix_parses_each_text_once(tmp_path, monkeypatch, capsys) -> None:
    """`--fix` (issue 33): the file as read is parsed by `ast` once (the project index's parse
    serves its check and its fix) and by libcst once as a whole module; the fixed text once by
    each (its analysis is the next round's, and says whether it parses)."""
    from jaxlint import cli
    from jaxlint.analysis import project
    from jaxlint.engine import lint

    parses: dict[tuple[str, str], int] = {}

    def counted(kind, parse):
        def parse_counted(source, *args, **kwargs):
            parses[kind, source] = parses.get((kind, source), 0) + 1
            return parse(source, *args, **kwargs)

        return parse_counted

    for module in (project, lint):
        monkeypatch.setattr(module, "parse_python", counted("ast", module.parse_python))
    monkeypatch.setattr(lint.cst, "parse_module", counted("cst", cst.parse_module))
    path = tmp_path / "timing.py"
    path.write_text(TIMED)
    assert cli.main(["check", "--fix", "--no-cache", "--jobs", "1", str(path)]) == 0
    capsys.readouterr()
    fixed = path.read_text()
    assert "jax.block_until_ready(step(x))" in fixed
    assert parses[("ast", TIMED)] == parses[("ast", fixed)] == 1
    assert parses[("cst", TIMED)] == parses[("cst", fixed)] == 1
