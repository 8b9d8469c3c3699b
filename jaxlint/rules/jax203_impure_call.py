"""JAX203 impure-call-in-traced: I/O, clocks and host randomness run once and are baked in."""

from __future__ import annotations

import libcst as cst

from jaxlint.analysis.unit_summary import UnitSummary
from jaxlint.engine.rule import Rule

# qualified name (or prefix ending in ".") → what it is, for the message
IMPURE_CALLS: dict[str, str] = {
    "builtins.open": "file I/O",
    "builtins.input": "console input",
    "os.getenv": "an environment read",
    "os.system": "a shell command",
    "os.urandom": "host randomness",
    "sys.stdout.write": "console output",
    "sys.stderr.write": "console output",
    "datetime.datetime.now": "a clock",
    "datetime.datetime.utcnow": "a clock",
    "datetime.datetime.today": "a clock",
    "datetime.date.today": "a clock",
    "uuid.uuid1": "host randomness",
    "uuid.uuid4": "host randomness",
    "pickle.load": "file I/O",
    "pickle.dump": "file I/O",
    "json.load": "file I/O",
    "json.dump": "file I/O",
    "numpy.save": "file I/O",
    "numpy.savez": "file I/O",
    "numpy.load": "file I/O",
    "numpy.loadtxt": "file I/O",
    "numpy.savetxt": "file I/O",
    "wandb.log": "experiment logging",
    "time.": "a clock",
    "random.": "host randomness (Python's random)",
    "numpy.random.": "host randomness (NumPy's random)",
    "logging.": "logging",
    "absl.logging.": "logging",
    "subprocess.": "a subprocess",
    "requests.": "network I/O",
    "shutil.": "file I/O",
    "mlflow.": "experiment logging",
}
IMPURE_PREFIXES = tuple(prefix for prefix in IMPURE_CALLS if prefix.endswith("."))
LOGGER_FACTORIES = frozenset({"logging.getLogger", "absl.logging.get_absl_logger"})
LOGGER_METHODS = frozenset(
    {"debug", "info", "warning", "warn", "error", "exception", "critical", "log"}
)
# Pure helpers inside impure modules.
PURE_EXCEPTIONS = frozenset({"logging.getLogger", "time.struct_time", "random.Random"})


class ImpureCallInTraced(Rule):
    code = "JAX203"
    name = "impure-call-in-traced"
    severity = "warning"
    summary = "host side effect in traced code runs once at trace time; its result is frozen"

    @classmethod
    def may_apply(cls, unit: UnitSummary) -> bool:
        if not unit.traced:
            return False
        if unit.methods_called & LOGGER_METHODS:
            return True
        return any(name in IMPURE_CALLS or name.startswith(IMPURE_PREFIXES) for name in unit.called)

    def visit_Call(self, node: cst.Call) -> None:
        if not self.context.traced:
            return
        what = self.impurity(node)
        if what is None:
            return
        function = self.context.function
        where = function.describe() if function else "this function"
        if "random" in what:
            effect = "its result is baked into the compiled function as a constant"
            advice = "use jax.random with a key passed in"
        elif any(word in what for word in ("clock", "environment", "input")):
            effect = "its result is baked into the compiled function as a constant"
            advice = "compute it outside and pass it in"
        else:
            effect = "not on every call"
            advice = "move it outside the traced code or use jax.debug.callback"
        self.report(node, f"{what} in traced {where} runs once, at trace time: {effect}; {advice}")

    def impurity(self, node: cst.Call) -> str | None:
        qualified = self.context.resolve(node.func)
        if qualified is not None and qualified not in PURE_EXCEPTIONS:
            if qualified in IMPURE_CALLS:
                return f"`{qualified}` ({IMPURE_CALLS[qualified]})"
            for prefix in IMPURE_PREFIXES:
                if qualified.startswith(prefix):
                    return f"`{qualified}` ({IMPURE_CALLS[prefix]})"
        func = node.func
        if (
            isinstance(func, cst.Attribute)
            and isinstance(func.value, cst.Name)
            and func.attr.value in LOGGER_METHODS
            and self.context.index.module_values.get(func.value.value) in LOGGER_FACTORIES
            and self.context.function is not None
            and self.context.function.defining_function(func.value.value) is None  # not shadowed
        ):
            return f"`{func.value.value}.{func.attr.value}` (logging)"
        return None
