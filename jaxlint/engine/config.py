"""`[tool.jaxlint]` in pyproject.toml → a frozen Config. Unknown keys and bad values are errors."""

from __future__ import annotations

import fnmatch
import os
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from jaxlint.engine.registry import ENGINE_CODES, default_codes, known_codes

DEFAULT_TINY_MAX_OPS = 4
DEFAULT_EXCLUDES = (
    ".git",
    ".hg",
    ".svn",
    ".venv",
    "venv",
    ".tox",
    ".nox",
    ".eggs",
    "__pycache__",
    "build",
    "dist",
    "node_modules",
    "site-packages",
    ".ipynb_checkpoints",
)


class ConfigError(Exception):
    """A configuration problem the user must fix (exit code 2)."""


@dataclass(frozen=True)
class Config:
    """Everything that decides what jaxlint reports; immutable once built."""

    select: tuple[str, ...] | None = None  # None: the default selection
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    per_file_ignores: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    exclude: tuple[str, ...] = ()
    jit_decorators: tuple[str, ...] = ()
    tiny_max_ops: int = DEFAULT_TINY_MAX_OPS
    # The backend the fixed code runs on: chooses between fix forms whose speed depends on it
    # (rules/JAX101.md, "Which form"); "auto" is the one JAX picks on this machine.
    target: str = "auto"
    root: Path | None = None  # folder of the pyproject.toml the config came from
    source: Path | None = None

    def with_overrides(
        self,
        select: Sequence[str] | None = None,
        ignore: Sequence[str] | None = None,
        extend_select: Sequence[str] | None = None,
        per_file_ignores: Sequence[str] | None = None,
    ) -> Config:
        """Command-line options replace the file's select and add to its ignores
        (`per_file_ignores`: `PATTERN:CODES` entries)."""
        config = self
        if select is not None:
            config = replace(config, select=tuple(_check_codes(select, "--select")))
        if extend_select:
            config = replace(
                config,
                extend_select=config.extend_select
                + tuple(_check_codes(extend_select, "--extend-select")),
            )
        if ignore:
            config = replace(config, ignore=config.ignore + tuple(_check_codes(ignore, "--ignore")))
        if per_file_ignores:
            merged = dict(config.per_file_ignores)
            for entry in per_file_ignores:
                pattern, colon, codes = entry.rpartition(":")
                if not colon or not pattern:
                    raise ConfigError(f"--per-file-ignores: {entry!r} is not PATTERN:CODES")
                checked = tuple(_check_codes(parse_code_list(codes), "--per-file-ignores"))
                merged[pattern] = merged.get(pattern, ()) + checked
            config = replace(config, per_file_ignores=merged)
        return config

    def enabled_codes(self, path: str | Path | None = None) -> frozenset[str]:
        """The rule codes that run on `path` (per-file-ignores applied)."""
        base = _expand(self.select) if self.select is not None else set(default_codes())
        base |= _expand(self.extend_select)
        base |= set(ENGINE_CODES)  # a file that cannot be parsed is always reported
        base -= _expand(self.ignore)
        if path is not None and self.per_file_ignores:
            relative = self._relative(path)
            for pattern, codes in self.per_file_ignores.items():
                if _glob_match(relative, pattern):
                    base -= _expand(codes)
        return frozenset(base)

    def is_excluded(self, path: str | Path) -> bool:
        """True when a configured `exclude` glob matches the path or one of its folders."""
        if not self.exclude:
            return False
        relative = self._relative(path)
        parts = Path(relative).parts
        candidates = [relative, *parts, *("/".join(parts[: i + 1]) for i in range(len(parts)))]
        return any(_glob_match(c, pattern) for c in candidates for pattern in self.exclude)

    def _relative(self, path: str | Path) -> str:
        resolved = Path(os.path.realpath(path))  # Path.resolve raises on a symlink loop
        if self.root is not None:
            try:
                return resolved.relative_to(self.root).as_posix()
            except ValueError:
                pass
        return Path(path).as_posix()


def _glob_match(path: str, pattern: str) -> bool:
    pattern = pattern.rstrip("/")
    return fnmatch.fnmatchcase(path, pattern) or fnmatch.fnmatchcase(path, f"*/{pattern}")


def _expand(selectors: Iterable[str]) -> set[str]:
    codes = known_codes()
    return {code for selector in selectors for code in codes if code.startswith(selector)}


def _check_codes(selectors: Iterable[str], option: str) -> list[str]:
    out = []
    codes = known_codes()
    for raw in selectors:
        selector = raw.strip().upper()
        if not selector:
            continue
        if not any(code.startswith(selector) for code in codes):
            raise ConfigError(f"{option}: unknown rule code or prefix {raw!r}")
        out.append(selector)
    return out


def parse_code_list(text: str) -> list[str]:
    """`JAX101,JAX2` as given on a command line → ["JAX101", "JAX2"]."""
    return [part.strip() for part in text.replace(" ", ",").split(",") if part.strip()]


def find_pyproject(start: Path) -> Path | None:
    """The nearest pyproject.toml with a [tool.jaxlint] table, walking up from `start`."""
    start = Path(os.path.realpath(start))
    folder = start if start.is_dir() else start.parent
    for candidate_dir in (folder, *folder.parents):
        candidate = candidate_dir / "pyproject.toml"
        if candidate.is_file():
            # a broken file may hold the [tool.jaxlint] table: never lint as if it did not
            try:
                data = tomllib.loads(candidate.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError) as error:
                raise ConfigError(f"cannot read config file {candidate}: {error}") from error
            except tomllib.TOMLDecodeError as error:
                raise ConfigError(f"{candidate}: invalid TOML: {error}") from error
            if "jaxlint" in data.get("tool", {}):
                return candidate
    return None


def load_config(config_file: Path | None = None, start: Path | None = None) -> Config:
    """Read the config from `config_file`, or the nearest pyproject.toml above `start`."""
    path = config_file if config_file is not None else find_pyproject(start or Path.cwd())
    if path is None:
        return Config()
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError as error:
        raise ConfigError(f"config file not found: {path}") from error
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"cannot read config file {path}: {error}") from error
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: invalid TOML: {error}") from error
    table = data.get("tool", {}).get("jaxlint")
    if table is None:
        if config_file is not None and Path(path).name != "pyproject.toml":
            table = data  # a dedicated jaxlint.toml holds the keys at top level
        else:
            return Config(root=Path(path).resolve().parent, source=Path(path))
    return config_from_table(table, Path(path))


_KEYS = {
    "select",
    "extend-select",
    "ignore",
    "per-file-ignores",
    "exclude",
    "jit-decorators",
    "tiny-max-ops",
    "target",
}
TARGETS = ("auto", "cpu", "gpu", "tpu")


def config_from_table(table: Mapping[str, Any], source: Path) -> Config:
    """Validate a `[tool.jaxlint]` table and build the Config."""
    where = f"{source}: [tool.jaxlint]"
    if not isinstance(table, Mapping):
        raise ConfigError(f"{where} must be a table")
    unknown = sorted(set(table) - _KEYS)
    if unknown:
        raise ConfigError(f"{where}: unknown key(s) {', '.join(unknown)}; known: {sorted(_KEYS)}")

    def string_list(key: str) -> list[str]:
        value = table.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{where}: `{key}` must be a list of strings, got {value!r}")
        return value

    per_file: dict[str, tuple[str, ...]] = {}
    raw_per_file = table.get("per-file-ignores", {})
    if not isinstance(raw_per_file, Mapping):
        raise ConfigError(f"{where}: `per-file-ignores` must be a table of glob = [codes]")
    for pattern, codes in raw_per_file.items():
        if not isinstance(codes, list) or not all(isinstance(c, str) for c in codes):
            raise ConfigError(f"{where}: `per-file-ignores.{pattern}` must be a list of codes")
        per_file[pattern] = tuple(_check_codes(codes, f"per-file-ignores.{pattern}"))

    tiny = table.get("tiny-max-ops", DEFAULT_TINY_MAX_OPS)
    if isinstance(tiny, bool) or not isinstance(tiny, int) or tiny < 1:
        raise ConfigError(f"{where}: `tiny-max-ops` must be a positive integer, got {tiny!r}")

    target = table.get("target", "auto")
    if target not in TARGETS:
        raise ConfigError(f"{where}: `target` must be one of {', '.join(TARGETS)}, got {target!r}")

    decorators = string_list("jit-decorators")
    for name in decorators:
        if not all(part.isidentifier() for part in name.split(".")):
            raise ConfigError(f"{where}: `jit-decorators` entry {name!r} is not a dotted name")

    return Config(
        select=tuple(_check_codes(string_list("select"), "select")) if "select" in table else None,
        extend_select=tuple(_check_codes(string_list("extend-select"), "extend-select")),
        ignore=tuple(_check_codes(string_list("ignore"), "ignore")),
        per_file_ignores=per_file,
        exclude=tuple(string_list("exclude")),
        jit_decorators=tuple(decorators),
        tiny_max_ops=tiny,
        target=target,
        root=source.resolve().parent,
        source=source,
    )
