"""`jaxlint verify PATHS`: build every verified-kind fix, prove it with JAX, print the report.

Nothing is written: this is `--fix --diff` without the diff, for reviewing what verification
found (inputs, max difference, jaxpr sizes, compile times) fix by fix.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from jaxlint.engine.config import Config
from jaxlint.fixes.pipeline import lint_source
from jaxlint.output.escape import to_stderr
from jaxlint.output.text import verification_text
from jaxlint.session import Session
from jaxlint.verify.runner import jax_available, shared_session


def run_verify_command(paths: Sequence[Path], config: Config) -> int:
    """Print one line per verified-kind fix; 0 when all verified, 1 when one was not, 2 no JAX."""
    if not jax_available():
        to_stderr("jaxlint verify: JAX is not installed: install jaxlint[verify]")
        return 2
    verified = unproven = 0
    session = Session()  # the project index, as `check` builds it
    with shared_session():
        for path in paths:
            try:
                source = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as error:
                to_stderr(f"{path}: cannot read: {error}")
                unproven += 1
                continue
            project = session.view(str(path), config.jit_decorators)
            result = lint_source(
                source, str(path), config, fix=True, unsafe_fixes=False, project=project
            )
            for diagnostic in result.diagnostics:
                fix = diagnostic.fix
                if fix is None or fix.kind != "verified":
                    continue
                where = f"{diagnostic.path}:{diagnostic.line}:{diagnostic.column}"
                if fix.verification is None:
                    print(f"{where}: {diagnostic.code} {fix.description}: {fix.note or 'no fix'}")
                    unproven += 1
                    continue
                print(f"{where}: {diagnostic.code} {fix.description}")
                print(f"    {verification_text(fix.verification)}")
                if fix.verification.get("status") == "verified":
                    verified += 1
                else:
                    unproven += 1
    print(f"{verified} fix{'es' if verified != 1 else ''} verified, {unproven} not verified")
    return 1 if unproven else 0
