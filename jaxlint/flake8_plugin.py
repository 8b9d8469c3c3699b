"""flake8 plugin: the same engine as `jaxlint check`, reported through flake8.

flake8 decides what is shown (`--select`, `--ignore`, `--extend-select`, `# noqa`,
`--per-file-ignores`); the plugin runs every rule and reports what the engine finds. Two
things keep flake8's answers equal to the CLI's:

- Opt-in rules (JAX303, JAX306) are added to flake8's *extended default ignore* list. flake8
  puts every plugin's entry-point name (`JAX`) on its default select list, so without this
  `flake8` would show them by default. An explicit `--select JAX` (or `JAX3`, `JAX303`,
  `--extend-select JAX303`) still shows them: an explicit select beats an implicit ignore.
- flake8 drops the extended default ignore list as soon as the user passes `--ignore`, so the
  plugin also skips opt-in rules unless `--select`/`--extend-select` names them.
"""

from __future__ import annotations

import argparse
import ast
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, ClassVar

from jaxlint.engine.config import Config
from jaxlint.engine.registry import all_rules
from jaxlint.fixes.pipeline import lint_source
from jaxlint.output import tool_version
from jaxlint.session import Session

# flake8's name for standard input when no --stdin-display-name is given.
_FLAKE8_STDIN_NAMES = ("stdin", "-")
# one per flake8 process: configurations by folder, project indexes by project
_SESSION = Session()


def opt_in_codes() -> tuple[str, ...]:
    """The codes that are not in the default selection (the CLI's and flake8's)."""
    return tuple(code for code, rule in all_rules().items() if rule.opt_in)


def _explicitly_selected(code: str, selectors: Sequence[str]) -> bool:
    return any(code.startswith(selector) for selector in selectors if selector)


def engine_config(filename: str, selected: Sequence[str] = ()) -> Config:
    """The engine config for one file: every rule flake8 may show, with the file's settings.

    Selection is flake8's business, so the file's select/ignore are not used; the settings that
    change what the rules find (`jit-decorators`, `tiny-max-ops`) are.
    """
    path = Path.cwd() if filename in _FLAKE8_STDIN_NAMES else Path(filename).resolve()
    file_config = _SESSION.config_for(path)
    skipped = tuple(code for code in opt_in_codes() if not _explicitly_selected(code, selected))
    return replace(
        Config(select=("JAX",), ignore=skipped),
        jit_decorators=file_config.jit_decorators,
        tiny_max_ops=file_config.tiny_max_ops,
        root=file_config.root,
        source=file_config.source,
    )


class JaxlintChecker:
    """flake8 tree checker: `run()` yields `(line, column0, "JAX101 message", type)`."""

    name = "jaxlint"
    version = tool_version()

    # Set from flake8's options in `parse_options` (once per process, as pyflakes does).
    explicit_select: ClassVar[tuple[str, ...]] = ()
    disable_noqa: ClassVar[bool] = False

    def __init__(self, tree: ast.AST, filename: str, lines: Sequence[str]) -> None:
        # `tree` is unused, but asking for it makes this an AST plugin: flake8 runs it only on
        # files it could parse, and reports E999 itself for the others. The linting happens
        # here, not in `run`: flake8 turns an exception raised here (a bad [tool.jaxlint]) into
        # a one-line "failed during execution" error instead of a traceback.
        self.filename = filename
        self.reports = self._lint("".join(lines))

    @classmethod
    def add_options(cls, option_manager: Any) -> None:
        """Keep opt-in rules out of flake8's default selection."""
        option_manager.extend_default_ignore(list(opt_in_codes()))

    @classmethod
    def parse_options(cls, options: argparse.Namespace) -> None:
        """Remember which codes the user selected explicitly, and whether noqa is off."""
        selectors = [*(options.select or ()), *(getattr(options, "extend_select", None) or ())]
        cls.explicit_select = tuple(s.strip().upper() for s in selectors if s.strip())
        cls.disable_noqa = bool(getattr(options, "disable_noqa", False))

    def _lint(self, source: str) -> list[tuple[int, int, str, str]]:
        """(line, 1-based column, code, message) of every finding flake8 may show."""
        config = engine_config(self.filename, self.explicit_select)
        # the text flake8 read: the file, or stdin under `--stdin-display-name`
        unsaved = {self.filename: source.encode("utf-8")}
        view = _SESSION.view(self.filename, config.jit_decorators, unsaved)
        result = lint_source(source, self.filename, config, project=view)
        reports = {(d.line, d.column, d.code, d.message) for d in result.diagnostics}
        if self.disable_noqa:
            # `flake8 --disable-noqa` shows suppressed findings; the engine has already
            # dropped them from `diagnostics`, but `findings` still holds them.
            enabled = config.enabled_codes(self.filename)
            reports |= {
                (f.span.line, f.span.column, f.rule.code, f.message)
                for f in result.findings
                if f.rule.code in enabled
            }
        return sorted(reports)

    def run(self) -> Iterator[tuple[int, int, str, type]]:
        """Report what the engine found in the exact text flake8 read (a file or stdin)."""
        for line, column, code, message in self.reports:
            yield line, max(column - 1, 0), f"{code} {_one_line(message)}", type(self)


def _one_line(message: str) -> str:
    return " ".join(message.split())
