"""Run one verification request (SPEC §5) inside the child process."""

from __future__ import annotations

import contextlib
import inspect
import itertools
import os
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxlint.verify.compare import compare_outputs, compile_seconds, count_eqns
from jaxlint.verify.inputs import (
    CALL_LADDER,
    INIT_LADDER,
    Binding,
    DimTable,
    candidate_bindings,
    parameters,
    subscript_keys,
)
from jaxlint.verify.namespace import (
    NamespaceError,
    Target,
    build_module,
    describe_exception,
    package_context,
    resolve_target,
    x64_setting,
)
from jaxlint.verify.protocol import VerifyRequest, VerifyResult

MIN_INPUT_SETS = 3
SECOND_PLAN_ATTEMPTS = 12  # budget for finding a second signature the original accepts
MAX_INPUT_SETS = 5  # set indices tried to find MIN_INPUT_SETS the original accepts
MAX_CALL_BINDINGS = 64
MAX_INIT_BINDINGS = 16
MAX_ATTEMPTS = 256  # original calls spent searching for inputs
# Compiling a huge unrolled original can take minutes (3000 eqns: 375 s); skip timing above this.
MAX_EQNS_TO_COMPILE = 2000
MAX_MUTATED_ATTRIBUTES = 6
_CALL_SALT, _INIT_SALT = 0, 17
_SAFE_ERRORS = (Exception, SystemExit)  # user code may call sys.exit()


class _Unverifiable(Exception):
    """The request cannot be checked (the original or its inputs are the problem)."""


class _Failed(Exception):
    """The rewritten function is wrong."""


@dataclass(frozen=True)
class InputPlan:
    """Argument kinds the original accepts, and its outputs on the accepted input sets."""

    init: Binding | None
    call: Binding
    set_indices: tuple[int, ...]
    expected: tuple[Any, ...]


@dataclass
class _Measurements:
    eqns_before: int | None = None
    eqns_after: int | None = None
    eqns_total_before: int | None = None
    eqns_total_after: int | None = None
    compile_s_before: float | None = None
    compile_s_after: float | None = None
    notes: list[str] = field(default_factory=list)


def run_check(request: VerifyRequest) -> VerifyResult:
    """Verify one rewrite; never raises for problems in user code."""
    jax.clear_caches()  # fair compile timings: nothing left over from earlier requests
    tag = "".join(c if c.isalnum() else "_" for c in request.request_id)
    module_names = [f"_jaxlint_verify_{tag}_{side}" for side in ("old", "new")]
    try:
        with _module_context(request, module_names):
            return _check(request, *module_names)
    except _Unverifiable as exc:
        return VerifyResult(request.request_id, "unverifiable", str(exc))
    except _Failed as exc:
        return VerifyResult(request.request_id, "failed", str(exc))
    except _SAFE_ERRORS as exc:
        reason = f"internal error while verifying: {describe_exception(exc)}"
        return VerifyResult(request.request_id, "unverifiable", reason)


@contextlib.contextmanager
def _module_context(request: VerifyRequest, module_names: list[str]) -> Iterator[None]:
    """sys.path for local imports, the module's x64 setting; undone afterwards."""
    entries, _ = package_context(request.path)
    saved_path = list(sys.path)
    saved_modules = set(sys.modules)
    sys.path[:0] = [e for e in entries if e not in sys.path]
    x64 = x64_setting(request.original_source)
    saved_x64 = jax.config.read("jax_enable_x64")
    if x64 is not None:
        jax.config.update("jax_enable_x64", x64)
    try:
        yield
    finally:
        sys.path[:] = saved_path
        jax.config.update("jax_enable_x64", saved_x64)
        for name in module_names:
            sys.modules.pop(name, None)
        # A sibling `utils.py` of the next request's file must not be served from this one's.
        for name in set(sys.modules) - saved_modules:
            if _is_under(getattr(sys.modules[name], "__file__", None), entries):
                del sys.modules[name]


def _is_under(path: str | None, folders: list[str]) -> bool:
    """True for the project's own files; never for installed packages (a venv inside it)."""
    if not path:
        return False
    path = os.path.abspath(path)
    parts = set(path.split(os.sep))
    if "site-packages" in parts or "dist-packages" in parts:
        return False
    return any(path.startswith(os.path.join(folder, "")) for folder in folders)


def _check(request: VerifyRequest, old_name: str, new_name: str) -> VerifyResult:
    try:
        old_module = build_module(
            request.original_source,
            request.path,
            request.target,
            strip_staging=True,
            module_name=old_name,
        )
        original = resolve_target(old_module, request.target)
    except NamespaceError as exc:
        raise _Unverifiable(f"original {request.target}: {exc}") from exc
    try:
        new_module = build_module(
            request.rewritten_source,
            request.path,
            request.target,
            strip_staging=False,
            module_name=new_name,
        )
        rewritten = resolve_target(new_module, request.target)
    except NamespaceError as exc:
        raise _Failed(f"rewritten {request.target}: {exc}") from exc
    if original.is_instance_method != rewritten.is_instance_method:
        raise _Failed(f"rewritten {request.target} is no longer the same kind of callable")

    plan = find_inputs(original)
    measured = _measure(original, rewritten, plan)
    outcome = _compare_on_sets(original, rewritten, plan)
    plans = [plan]
    if not outcome.failure:
        try:
            second = find_inputs(original, other_than=plan, max_attempts=SECOND_PLAN_ATTEMPTS)
        except _Unverifiable:
            second = None  # the original accepts one signature only
        if second is not None:
            plans.append(second)
            more = _compare_on_sets(original, rewritten, second)
            worst = max((w for w in (outcome.worst, more.worst) if w is not None), default=None)
            outcome = _Outcome(
                outcome.tried + more.tried, outcome.passed + more.passed, worst, more.failure
            )
    status, reason = "verified", ""
    try:
        if outcome.failure:
            raise _Failed(outcome.failure)
        if original.is_instance_method:
            measured.notes.extend(_check_mutations(original, rewritten, plan))
        if request.require_fewer_eqns:
            _require_fewer_eqns(measured)
        reason = _summary(original, plans, outcome.worst, measured)
    except _Failed as exc:
        status, reason = "failed", str(exc)
    return VerifyResult(
        request_id=request.request_id,
        status=status,
        reason=reason,
        inputs_tried=outcome.tried,
        inputs_passed=outcome.passed,
        max_abs_diff=outcome.worst,
        eqns_before=measured.eqns_before,
        eqns_after=measured.eqns_after,
        eqns_total_before=measured.eqns_total_before,
        eqns_total_after=measured.eqns_total_after,
        compile_s_before=measured.compile_s_before,
        compile_s_after=measured.compile_s_after,
    )


def _signature(target: Target) -> inspect.Signature:
    if target.function is not None:
        return inspect.signature(target.function)
    assert target.cls is not None and target.method is not None
    unbound = inspect.signature(getattr(target.cls, target.method))
    return unbound.replace(parameters=list(unbound.parameters.values())[1:])  # drop self


def _instance(target: Target, init: Binding | None, set_index: int) -> object:
    """A fresh instance of the target's class, built from the input set's constructor arguments."""
    assert target.cls is not None and init is not None
    args, kwargs = init.make(set_index)
    return target.cls(*args, **kwargs)


def _bind(target: Target, init: Binding | None, set_index: int) -> Callable[..., Any]:
    """The callable for an input set: the function, or the method of a fresh instance."""
    if target.function is not None:
        return target.function
    assert target.method is not None
    return getattr(_instance(target, init, set_index), target.method)


def _call(target: Target, init: Binding | None, call: Binding, set_index: int) -> Any:
    args, kwargs = call.make(set_index)
    return _bind(target, init, set_index)(*args, **kwargs)


def find_inputs(
    original: Target, *, other_than: InputPlan | None = None, max_attempts: int | None = None
) -> InputPlan:
    """Search argument kinds until the original runs on MIN_INPUT_SETS input sets.

    With `other_than`, look for a second signature (other shapes or kinds) the original accepts:
    a rewrite must hold for more than one input shape (a row loop over a 1-D and a 2-D array).
    """
    limit = max_attempts if max_attempts is not None else MAX_ATTEMPTS
    dims = DimTable()
    try:
        callable_ = original.function or getattr(original.cls, original.method or "", None)
        call_params = parameters(
            _signature(original), dims, CALL_LADDER, keys=subscript_keys(callable_)
        )
        init_bindings: list[Binding | None] = [None]
        if original.cls is not None:
            init_params = parameters(inspect.signature(original.cls), dims, INIT_LADDER)
            init_bindings = list(candidate_bindings(init_params, _INIT_SALT, MAX_INIT_BINDINGS))
    except (TypeError, ValueError) as exc:
        raise _Unverifiable(f"cannot read the signature of {original.qualname}: {exc}") from exc

    attempts = 0
    last_error = ""
    for init in init_bindings:
        if init is not None:
            try:
                _instance(original, init, 0)
            except _SAFE_ERRORS as exc:
                attempts += 1
                constructor = f"{original.qualname.rsplit('.', 1)[0]}({init.describe()})"
                last_error = f"{constructor}: {describe_exception(exc)}"
                continue
        for call in candidate_bindings(call_params, _CALL_SALT, MAX_CALL_BINDINGS):
            if attempts >= limit:
                break
            if other_than is not None and (
                call.describe() == other_than.call.describe() or not call.array_shapes_agree()
            ):
                continue  # a second signature: other shapes, but consistent between arrays
            accepted: list[tuple[int, Any]] = []
            for set_index in range(MAX_INPUT_SETS):
                attempts += 1
                try:
                    accepted.append((set_index, _call(original, init, call, set_index)))
                except _SAFE_ERRORS as exc:
                    if set_index == 0:
                        last_error = f"({call.describe()}): {describe_exception(exc)}"
                        break
                if len(accepted) == MIN_INPUT_SETS:
                    indices, outputs = zip(*accepted, strict=True)
                    return InputPlan(init, call, indices, outputs)
    params = ", ".join(p.name for p in call_params)
    detail = f"; last error {last_error}" if last_error else ""
    raise _Unverifiable(
        f"no example inputs found for {original.qualname}({params}) after {attempts} tries{detail}"
    )


def _traceable(
    target: Target, plan: InputPlan, set_index: int
) -> tuple[Callable[..., Any], tuple[Any, ...]]:
    """`fn(*arrays)` with the array arguments traced and the Python scalars fixed (static)."""
    bound = _bind(target, plan.init, set_index)
    args, kwargs = plan.call.make(set_index)
    traced = [i for i, a in enumerate(args) if isinstance(a, (jax.Array, np.ndarray))]

    def fn(*arrays: Any) -> Any:
        full = list(args)
        for position, array in zip(traced, arrays, strict=True):
            full[position] = array
        return bound(*full, **kwargs)

    return fn, tuple(args[i] for i in traced)


def _measure(original: Target, rewritten: Target, plan: InputPlan) -> _Measurements:
    """Equation counts and compile times, before the rewritten function has run (cold caches)."""
    measured = _Measurements()
    set_index = plan.set_indices[0]
    try:
        old_fn, old_args = _traceable(original, plan, set_index)
        measured.eqns_before, measured.eqns_total_before = count_eqns(old_fn, old_args)
    except _SAFE_ERRORS as exc:
        measured.notes.append(f"original not traceable: {describe_exception(exc)}")
    try:
        new_fn, new_args = _traceable(rewritten, plan, set_index)
        measured.eqns_after, measured.eqns_total_after = count_eqns(new_fn, new_args)
    except _SAFE_ERRORS as exc:
        measured.notes.append(f"rewritten not traceable: {describe_exception(exc)}")
    if measured.eqns_total_before is None or measured.eqns_total_after is None:
        return measured
    if measured.eqns_total_before > MAX_EQNS_TO_COMPILE:
        measured.notes.append(
            f"compile time not measured: original has {measured.eqns_total_before} equations"
        )
        return measured
    with contextlib.suppress(*_SAFE_ERRORS):
        measured.compile_s_before = compile_seconds(old_fn, old_args)
    with contextlib.suppress(*_SAFE_ERRORS):
        measured.compile_s_after = compile_seconds(new_fn, new_args)
    return measured


def _require_fewer_eqns(measured: _Measurements) -> None:
    before, after = measured.eqns_before, measured.eqns_after
    if before is None:
        raise _Unverifiable(f"cannot count equations: {'; '.join(measured.notes)}")
    if after is None:
        raise _Failed(f"cannot count equations: {'; '.join(measured.notes)}")
    total_before, total_after = measured.eqns_total_before, measured.eqns_total_after
    smaller_total = (
        total_before is not None and total_after is not None and total_after < total_before
    )
    if after >= before and not smaller_total:
        # a loop inside a lax body shrinks the nested jaxpr while the top level stays one `while`
        raise _Failed(
            f"rewritten jaxpr is not smaller: {before} → {after} top-level equations"
            f" ({total_before} → {total_after} in total)"
        )


@dataclass(frozen=True)
class _Outcome:
    tried: int
    passed: int
    worst: float | None
    failure: str | None


def _compare_on_sets(original: Target, rewritten: Target, plan: InputPlan) -> _Outcome:
    """Run the rewritten function on every input set, stopping at the first difference."""
    worst: float | None = None
    passed = 0
    for set_index, expected in zip(plan.set_indices, plan.expected, strict=True):
        where = f"on input set {set_index} of {describe_inputs(original, plan)}"
        try:
            actual = _call(rewritten, plan.init, plan.call, set_index)
            jax.block_until_ready(actual)
        except _SAFE_ERRORS as exc:
            failure = f"rewritten {rewritten.qualname} raised {describe_exception(exc)} {where}"
            return _Outcome(passed + 1, passed, worst, failure)
        comparison = compare_outputs(expected, actual)
        if comparison.max_abs_diff is not None:
            worst = max(worst or 0.0, comparison.max_abs_diff)
        if not comparison.same:
            return _Outcome(passed + 1, passed, worst, f"{comparison.detail} {where}")
        passed += 1
    return _Outcome(passed, passed, worst, None)


def _check_mutations(original: Target, rewritten: Target, plan: InputPlan) -> list[str]:
    """Change each constructor-set attribute after a first call: both versions must still agree.

    Catches a rewrite that caches on `self` (a stale jit cache, SPEC JAX306).
    """
    set_index = plan.set_indices[0]
    args, kwargs = plan.call.make(set_index)
    old_self = _instance(original, plan.init, set_index)
    new_self = _instance(rewritten, plan.init, set_index)
    old_method = getattr(old_self, original.method or "")
    new_method = getattr(new_self, rewritten.method or "")
    with contextlib.suppress(*_SAFE_ERRORS):  # warm both caches; errors were caught before
        old_method(*args, **kwargs)
        new_method(*args, **kwargs)
    checked = []
    attributes = [name for name in vars(old_self) if name in vars(new_self)]
    for name in itertools.islice(attributes, MAX_MUTATED_ATTRIBUTES):
        value = vars(old_self)[name]
        changed = _mutated(value)
        if changed is None:
            continue
        setattr(old_self, name, changed)
        setattr(new_self, name, changed)
        try:
            expected = old_method(*args, **kwargs)
        except _SAFE_ERRORS:
            expected = None  # the original does not accept the change: nothing to compare
        if expected is not None:
            try:
                actual = new_method(*args, **kwargs)
            except _SAFE_ERRORS as exc:
                raise _Failed(
                    f"after changing self.{name}, rewritten {rewritten.qualname} raised "
                    f"{describe_exception(exc)}"
                ) from exc
            comparison = compare_outputs(expected, actual)
            if not comparison.same:
                raise _Failed(
                    f"stale result after changing self.{name}: {comparison.detail} "
                    "(the rewrite caches on self)"
                )
            checked.append(name)
        setattr(old_self, name, value)
        setattr(new_self, name, value)
    return [f"agrees after changing self.{', self.'.join(checked)}"] if checked else []


def _mutated(value: Any) -> Any:
    """A different value of the same type and shape, or None when there is no obvious one."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, float):
        return value * 2.0 + 1.0
    if isinstance(value, (jax.Array, np.ndarray)) and value.size:
        if jnp.issubdtype(value.dtype, jnp.bool_):
            return ~value
        if jnp.issubdtype(value.dtype, jnp.number):
            return value * 2 + 1
    return None


def describe_inputs(target: Target, plan: InputPlan) -> str:
    """`Cls(scale: float).apply(x: float32[7])` or `f(x: float32[7])`."""
    if plan.init is None:
        return f"{target.qualname}({plan.call.describe()})"
    owner, method = target.qualname.rsplit(".", 1)
    return f"{owner}({plan.init.describe()}).{method}({plan.call.describe()})"


def _summary(
    original: Target, plans: list[InputPlan], worst: float | None, measured: _Measurements
) -> str:
    sets = sum(len(plan.set_indices) for plan in plans)
    signatures = " and ".join(describe_inputs(original, plan) for plan in plans)
    parts = [f"outputs match on {sets} input sets of {signatures}"]
    if worst is not None:
        parts[0] += f", max |Δ| {worst:.3g}"
    if measured.eqns_before is not None and measured.eqns_after is not None:
        parts.append(
            f"eqns {measured.eqns_before} → {measured.eqns_after} "
            f"(total {measured.eqns_total_before} → {measured.eqns_total_after})"
        )
    if measured.compile_s_before is not None and measured.compile_s_after is not None:
        parts.append(
            f"compile {measured.compile_s_before:.3f} s → {measured.compile_s_after:.3f} s"
        )
    return "; ".join(parts + measured.notes)
