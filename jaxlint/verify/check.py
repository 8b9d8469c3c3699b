"""Run one verification request (SPEC §5) inside the child process."""

from __future__ import annotations

import contextlib
import inspect
import io
import itertools
import os
import re
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any, Literal

import jax
import jax.numpy as jnp
import numpy as np

from jaxlint.diagnostics import slower_at_run_time
from jaxlint.verify.classes import constructor_signature, is_linen_module, share_classes
from jaxlint.verify.compare import (
    Comparison,
    compare_outputs,
    compile_and_run_seconds,
    count_eqns,
    identical_outputs,
    rounding_dominated,
    same_text,
    within_noise,
)
from jaxlint.verify.inputs import (
    CALL_LADDER,
    INIT_LADDER,
    Binding,
    DimTable,
    call_site_values,
    candidate_bindings,
    data_dtypes,
    parameters,
    subscript_keys,
    unpacked_lengths,
    variants,
)
from jaxlint.verify.namespace import (
    NamespaceError,
    Target,
    build_module,
    describe_exception,
    jit_static_params,
    package_context,
    resolve_target,
    vmap_in_axes,
    x64_setting,
)
from jaxlint.verify.protocol import VerifyRequest, VerifyResult
from jaxlint.verify.recorded import Home, InstanceBinding, recorded_calls
from jaxlint.verify.shape_solver import with_solved

MIN_INPUT_SETS = 3
MAX_SIGNATURES = 3  # signatures tried beyond the first
MAX_REJECTED = 4  # signatures the original rejects, on which the rewrite must raise too
SIGNATURE_ATTEMPTS = 24  # original calls spent looking for them once the first is found
MAX_INPUT_SETS = 5  # set indices tried to find MIN_INPUT_SETS the original accepts
MAX_CALL_BINDINGS = 64
MAX_INIT_BINDINGS = 16
MAX_ATTEMPTS = 256  # original calls spent searching for inputs
# Compiling a huge unrolled original can take minutes (3000 eqns: 375 s); skip timing above this.
MAX_EQNS_TO_COMPILE = 2000
MAX_MUTATED_ATTRIBUTES = 6
_CALL_SALT, _INIT_SALT = 0, 17
_SAFE_ERRORS = (Exception, SystemExit)  # user code may call sys.exit()
# One call of the original: a `while` whose test never turns false on some inputs (Newton's
# method on a negative number) must cost one input set, not the whole time limit.
ORIGINAL_CALL_LIMIT_S = 5.0
# A recorded call: the original returned on these inputs when CMD ran, so a slow first call is
# its compile (a jitted environment step: several seconds), not a loop that never ends.
RECORDED_CALL_LIMIT_S = 30.0


class _Unverifiable(Exception):
    """The request cannot be checked (the original or its inputs are the problem)."""


class _Failed(Exception):
    """The rewritten function is wrong."""


class _OriginalTooSlow(BaseException):
    """The original did not return within ORIGINAL_CALL_LIMIT_S on an input set: that set is
    skipped (neither accepted nor rejected). A BaseException, so that the user's own
    `except Exception:` does not swallow it."""


@contextlib.contextmanager
def _time_limited(seconds: float) -> Iterator[None]:
    """Raise _OriginalTooSlow in the block after `seconds` (a Python-level loop only: a
    compiled computation returns first). A no-op off the main thread, where signals are not
    delivered."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def expire(signum: int, frame: object) -> None:
        raise _OriginalTooSlow(f"the original did not return within {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@dataclass(frozen=True)
class InputPlan:
    """Argument kinds the original accepts, and its outputs on the accepted input sets."""

    init: Binding | None
    call: Binding
    set_indices: tuple[int, ...]
    expected: tuple[Any, ...]
    origin: str = "ladder"  # "recorded": a signature `--examples-from` saw (see _recorded_plans)


@dataclass
class _Measurements:
    eqns_before: int | None = None
    eqns_after: int | None = None
    eqns_total_before: int | None = None
    eqns_total_after: int | None = None
    compile_s_before: float | None = None
    compile_s_after: float | None = None
    run_s_before: float | None = None
    run_s_after: float | None = None
    notes: list[str] = field(default_factory=list)


def run_check(request: VerifyRequest) -> VerifyResult:
    """Verify one rewrite, timed; never raises for problems in user code."""
    start = time.perf_counter()
    result = _run_check(request)
    return replace(result, seconds=round(time.perf_counter() - start, 3))


def _run_check(request: VerifyRequest) -> VerifyResult:
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
    vmapped, in_axes = vmap_in_axes(request.original_source, request.target)
    if vmapped and original.function is not None:
        original = replace(original, vmapped=True, in_axes=in_axes)
    # What either version's jit hashes gets hashable inputs: a fix that makes `n` static stated,
    # and checked at every call site, that callers pass constants (JAX103)
    static = jit_static_params(request.original_source, request.target) | jit_static_params(
        request.rewritten_source, request.target
    )
    if static and original.function is not None:
        original = replace(original, static_params=static)
    if request.numpy_reference:
        original = replace(original, numpy_inputs=True)
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

    rejected: list[tuple[Binding | None, Binding, str]] = []
    plans = find_plans(original, rejected=rejected, recorded=request.recorded)
    _require_deterministic(original, plans[0])
    # inputs are made with the original's classes: the rewrite's identical ones are the same
    share_classes(
        old_module, new_module, request.original_source, request.rewritten_source, request.target
    )

    def unstaged() -> Target:  # the rewrite with its jit decorators removed, like the original
        module = build_module(
            request.rewritten_source,
            request.path,
            request.target,
            strip_staging=True,
            module_name=new_name + "_unstaged",
        )
        return resolve_target(module, request.target)

    measured = _measure(original, rewritten, plans[0], unstaged)
    comparer = _Comparer(original, rewritten, request)
    for plan in plans:
        comparer.on_plan(plan)
    for label, init, call, empty in variants(plans[0], _defaults(original)):
        comparer.on_variant(label, init, call, empty)
    for init, call, error in rejected:
        comparer.on_rejected(init, call, error)
    outcome = comparer.outcome()
    status, reason = "verified", ""
    try:
        if outcome.failure:
            raise _Failed(outcome.failure)
        if original.is_instance_method:
            # Only a restaging edit changes how the method is staged; others keep its decorators,
            # and a cache on `self` the original as written has is not theirs to remove.
            as_written = comparer.jitted() if not request.restages else None
            measured.notes.extend(_check_mutations(original, rewritten, plans[0], as_written))
        if request.require_fewer_eqns:
            _require_fewer_eqns(measured)
        reason = _summary(original, plans, comparer, measured)
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
        run_s_before=measured.run_s_before,
        run_s_after=measured.run_s_after,
        backend=jax.default_backend(),
        slower_at_run_time=_slower(request, measured),
    )


def _slower(request: VerifyRequest, measured: _Measurements) -> bool | None:
    """Is a fix made for speed measured slower than the original (None: not judged)?"""
    before, after = measured.run_s_before, measured.run_s_after
    if not request.judge_run_time or before is None or after is None:
        return None
    return slower_at_run_time(before, after)


def _require_deterministic(original: Target, plan: InputPlan) -> None:
    """Run the original again on the plan's first input set: outputs that differ from the first
    run come from randomness verification does not supply (host `np.random`, `random`, the
    clock, a counter kept between calls), and no comparison with a rewrite means anything."""
    set_index = plan.set_indices[0]
    try:
        again = _run(original, plan.init, plan.call, set_index)
    except _SAFE_ERRORS as exc:
        raise _Unverifiable(
            f"the original is nondeterministic: it returned on ({describe_inputs(original, plan)})"
            f" and then raised {describe_exception(exc)} on the same inputs"
        ) from exc
    if not identical_outputs(plan.expected[0].output, again.output):
        raise _Unverifiable(
            "the original is nondeterministic: two runs on the same inputs "
            f"({describe_inputs(original, plan)}) return different values; its randomness is "
            "not a JAX key verification supplies (host np.random, random, the clock, state "
            "kept between calls?)"
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
    if isinstance(init, InstanceBinding):
        recorded = init.instance(set_index)
        return recorded if type(recorded) is target.cls else _moved(recorded, target.cls)
    args, kwargs = init.make(set_index)
    return target.cls(*args, **kwargs)


def _moved(instance: object, cls: type) -> object:
    """`instance`'s state in an instance of `cls`: a recorded `self` given the rewritten class
    (or the original's, when it was recorded from the installed package's class)."""
    moved = object.__new__(cls)
    for name, value in vars(instance).items():  # TypeError without a __dict__: unverifiable
        object.__setattr__(moved, name, value)
    return moved


def _bind(target: Target, init: Binding | None, set_index: int) -> Callable[..., Any]:
    """The callable for an input set: the function, or the method of a fresh instance."""
    if target.function is not None:
        return target.function
    assert target.method is not None
    return _method(_instance(target, init, set_index), target.method)


def _method(instance: object, name: str) -> Callable[..., Any]:
    """`instance.name`; a flax linen module's method runs through `init` and `apply`."""
    if is_linen_module(instance):
        return partial(_linen_apply, instance, name)
    return getattr(instance, name)


def _linen_apply(module: Any, method: str, *args: Any, **kwargs: Any) -> Any:
    """A linen method runs on variables: initialised from one fixed key, so the original and a
    rewrite that declares the same parameters get the same values, then applied."""
    variables = module.init(jax.random.PRNGKey(0), *args, method=method, **kwargs)
    return module.apply(variables, *args, method=method, **kwargs)


def _in_float64(leaf: Any) -> Any:
    """A 32- or 16-bit float (or complex) array as its 64-bit widening; anything else as is."""
    if isinstance(leaf, (jax.Array, np.ndarray)) and jnp.issubdtype(leaf.dtype, jnp.inexact):
        wide = jnp.complex128 if jnp.issubdtype(leaf.dtype, jnp.complexfloating) else jnp.float64
        return jnp.asarray(leaf, wide)
    return leaf


def _call(target: Target, init: Binding | None, call: Binding, set_index: int) -> Any:
    args, kwargs = call.make(set_index)
    if not target.numpy_inputs:
        return _bind(target, init, set_index)(*args, **kwargs)
    copy = _widened_numpy_copy if target.widened else _numpy_copy
    args, kwargs = jax.tree_util.tree_map(copy, (args, kwargs))
    output = _bind(target, init, set_index)(*args, **kwargs)
    return jax.tree_util.tree_map(_jax_typed, output)


def _numpy_copy(leaf: Any) -> Any:
    return np.array(leaf) if isinstance(leaf, jax.Array) else leaf


def _widened_numpy_copy(leaf: Any) -> Any:
    copy = _numpy_copy(leaf)
    if isinstance(copy, np.ndarray) and copy.dtype in _SIXTEEN_BIT_FLOATS:
        return copy.astype(np.float32)
    return copy


_SIXTEEN_BIT_FLOATS = (np.dtype(np.float16), np.dtype(jnp.bfloat16))


def _jax_typed(leaf: Any) -> Any:
    """A NumPy result as JAX would type it (float64 is float32 without x64), values kept."""
    if isinstance(leaf, (np.ndarray, np.generic)):
        return np.asarray(leaf, dtype=jax.dtypes.canonicalize_dtype(leaf.dtype))
    return leaf


def _numpy_only_error(target: Target, exc: BaseException) -> bool:
    """An error of the NumPy reference that JAX's `.at[]` does not raise, by its documented
    semantics: an index out of bounds (the update is dropped) or a cast NumPy's in-place
    ufunc refuses (`int_array[i] *= 0.5`: `.at[i].multiply` casts). The original as written
    raises on every input, so no working call of it behaves otherwise."""
    if not target.numpy_inputs:
        return False
    return isinstance(exc, IndexError) or any(
        kind.__name__ == "UFuncTypeError" for kind in type(exc).__mro__
    )


def find_plans(
    original: Target,
    *,
    max_attempts: int = MAX_ATTEMPTS,
    recorded: Sequence[str] = (),
    rejected: list[tuple[Binding | None, Binding, str]] | None = None,
) -> list[InputPlan]:
    """Input signatures the original accepts, each with MIN_INPUT_SETS input sets.

    Signatures `--examples-from` recorded come first (`_with_recorded`).

    The first is the simplest the ladder finds; up to MAX_SIGNATURES more differ from it in the
    rank or kind of some argument (a row loop over `float32[7]` and `float32[7,3]`; `w` a
    vector and a matrix beside `X: float32[7,3]`), so a rewrite must hold for all of them.
    Signatures the ladder finds the original rejects go to `rejected` (with the error), up to
    MAX_REJECTED: the rewrite must reject them too.
    """
    if recorded:
        return _with_recorded(original, recorded, max_attempts)
    dims = DimTable()
    try:
        callable_ = original.function or getattr(original.cls, original.method or "", None)
        call_params = parameters(
            _signature(original),
            dims,
            CALL_LADDER,
            keys=subscript_keys(callable_),
            unpacked=unpacked_lengths(callable_),
            dtypes=data_dtypes(callable_),
            static=original.static_params,
            function=callable_,  # annotations' classes, and call sites (jaxlint.verify.call_sites)
            method=original.cls is not None,
        )
        init_bindings: list[Binding | None] = [None]
        if original.cls is not None:
            init_params = parameters(
                constructor_signature(original.cls),
                dims,
                INIT_LADDER,
                function=callable_,
                site_name=original.cls.__name__,
            )
            init_bindings = list(candidate_bindings(init_params, _INIT_SALT, MAX_INIT_BINDINGS))
    except (TypeError, ValueError) as exc:
        raise _Unverifiable(f"cannot read the signature of {original.qualname}: {exc}") from exc

    plans: list[InputPlan] = []
    profiles: set[tuple[Any, ...]] = set()
    attempts = 0
    plans_budget = max_attempts
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
        calls: Iterator[Binding] = candidate_bindings(call_params, _CALL_SALT, MAX_CALL_BINDINGS)
        if original.cls is None:  # consistent shapes for coupled parameters before the ladder
            calls = with_solved(original.function, call_params, calls, _CALL_SALT)
        for call in calls:
            if attempts >= max_attempts or (plans and attempts >= plans_budget):
                break
            profile = (init.profile() if init else (), call.profile())
            if profile in profiles:
                continue
            accepted: list[tuple[int, Run]] = []
            for set_index in range(MAX_INPUT_SETS):
                attempts += 1
                try:
                    accepted.append((set_index, _run(original, init, call, set_index)))
                except _OriginalTooSlow as exc:
                    if set_index == 0:
                        last_error = f"({call.describe()}): {exc}"
                        break
                except _SAFE_ERRORS as exc:
                    if set_index == 0:
                        last_error = f"({call.describe()}): {describe_exception(exc)}"
                        if (
                            rejected is not None
                            and len(rejected) < MAX_REJECTED
                            and not _numpy_only_error(original, exc)
                        ):
                            rejected.append((init, call, describe_exception(exc)))
                        break
                if len(accepted) == MIN_INPUT_SETS:
                    indices, runs = zip(*accepted, strict=True)
                    plans.append(InputPlan(init, call, indices, runs))
                    profiles.add(profile)
                    if len(plans) == 1:
                        plans_budget = attempts + SIGNATURE_ATTEMPTS
                    break
            if len(plans) > MAX_SIGNATURES:
                return plans
        if plans:
            return plans  # one constructor signature is enough: methods vary by their calls
    params = ", ".join(p.name for p in call_params)
    detail = f"; last error {last_error}" if last_error else ""
    raise _Unverifiable(
        f"no example inputs found for {original.qualname}({params}) after {attempts} tries{detail}"
    )


_TRACER_TEXT = re.compile(r"Tracer\b|Traced<")  # how JAX prints a tracer


@dataclass(frozen=True)
class Run:
    """What one call did: its output and what it printed."""

    output: Any
    printed: str


def _run(
    target: Target,
    init: Binding | None,
    call: Binding,
    set_index: int,
    *,
    reference: bool = True,
    limit_s: float = ORIGINAL_CALL_LIMIT_S,
) -> Run:
    """Call the target on an input set, capturing its prints.

    The reference (the original) gives its output as it runs, and when it prints, its text as
    printed under `jax.disable_jit()`, where prints show values; `jax.debug.print` output of a
    rewrite is flushed before the capture ends.
    """
    limit = _time_limited(limit_s) if reference else contextlib.nullcontext()
    with limit:
        output, printed = _captured(target, init, call, set_index, staged=True)
        # Printed without tracers, the eager call's text is the unstaged text already: the
        # `disable_jit` run (every `lax` loop of the callees as Python, slow) is not needed.
        if reference and _TRACER_TEXT.search(printed):
            with contextlib.suppress(*_SAFE_ERRORS):  # a lax.cond may take a branch jit won't
                printed = _captured(target, init, call, set_index, staged=False)[1]
            if target.vmapped and _TRACER_TEXT.search(printed):
                with contextlib.suppress(*_SAFE_ERRORS):
                    printed = _per_element_prints(target, call, set_index)
    return Run(output, printed)


def _per_element_prints(target: Target, call: Binding, set_index: int) -> str:
    """What a vmapped function prints when run unstaged on each element in turn.

    `jax.disable_jit()` does not undo `vmap`: a print there still shows a batch tracer. The
    function under the decorator, called on each slice of the mapped axes, prints what each
    element's `jax.debug.print` prints.
    """
    inner = getattr(target.function, "__wrapped__", None)
    args, kwargs = call.make(set_index)
    axes = target.in_axes
    axes = axes if isinstance(axes, tuple) else (axes,) * len(args)
    if inner is None or kwargs or len(axes) != len(args):
        raise ValueError("not a vmap over positional arguments")
    sizes = {
        np.shape(leaf)[axis]
        for arg, axis in zip(args, axes, strict=True)
        if axis is not None
        for leaf in jax.tree_util.tree_leaves(arg)
    }
    if len(sizes) != 1:
        raise ValueError("no single mapped size")
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer), jax.disable_jit():
        for i in range(sizes.pop()):
            sliced = [
                arg
                if axis is None
                else jax.tree_util.tree_map(partial(jnp.take, indices=i, axis=axis), arg)
                for arg, axis in zip(args, axes, strict=True)
            ]
            jax.block_until_ready(inner(*sliced))
        jax.effects_barrier()
    return buffer.getvalue()


def _captured(
    target: Target, init: Binding | None, call: Binding, set_index: int, staged: bool
) -> tuple[Any, str]:
    buffer = io.StringIO()
    staging = contextlib.nullcontext() if staged else jax.disable_jit()
    with contextlib.redirect_stdout(buffer), staging:
        output = _call(target, init, call, set_index)
        jax.block_until_ready(output)
        jax.effects_barrier()
    return output, buffer.getvalue()


def _defaults(target: Target) -> dict[str, Any]:
    """Defaulted parameter → the values to try: its default's opposite and call-site literals."""
    function = target.function or getattr(target.cls, target.method or "", None)
    name = target.qualname.rsplit(".", 1)[-1]
    from_calls = call_site_values(function, name, skip_first=target.cls is not None)
    tried: dict[str, Any] = {}
    for param in _signature(target).parameters.values():
        if param.default is param.empty:
            continue
        values = [v for v in from_calls.get(param.name, []) if v != param.default]
        if isinstance(param.default, bool) and (not param.default) not in values:
            values.append(not param.default)
        if values:
            tried[param.name] = values
    return tried


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


def _measure(
    original: Target, rewritten: Target, plan: InputPlan, unstaged: Callable[[], Target]
) -> _Measurements:
    """Equation counts and compile times, before the rewritten function has run (cold caches).

    The original is traced without its jit decorators; the rewrite as written, or, where a
    decorator cannot run under `make_jaxpr` (flax's `nnx.jit` updates the module's variables
    from inside the trace), without them too (`unstaged()`): its own equations are the same."""
    measured = _Measurements()
    set_index = plan.set_indices[0]
    try:
        old_fn, old_args = _traceable(original, plan, set_index)
        measured.eqns_before, measured.eqns_total_before = count_eqns(old_fn, old_args)
    except _SAFE_ERRORS as exc:
        if not original.numpy_inputs:  # else the finding itself: a store into a tracer
            measured.notes.append(f"original not traceable: {describe_exception(exc)}")
    try:
        new_fn, new_args = _traceable(rewritten, plan, set_index)
        measured.eqns_after, measured.eqns_total_after = count_eqns(new_fn, new_args)
    except _SAFE_ERRORS as staged_error:
        try:
            new_fn, new_args = _traceable(unstaged(), plan, set_index)
            measured.eqns_after, measured.eqns_total_after = count_eqns(new_fn, new_args)
        except (*_SAFE_ERRORS, NamespaceError):
            measured.notes.append(f"rewritten not traceable: {describe_exception(staged_error)}")
    if measured.eqns_total_before is None or measured.eqns_total_after is None:
        return measured
    if measured.eqns_total_before > MAX_EQNS_TO_COMPILE:
        measured.notes.append(
            f"compile time not measured: original has {measured.eqns_total_before} equations"
        )
        return measured
    with contextlib.suppress(*_SAFE_ERRORS):
        measured.compile_s_before, measured.run_s_before = compile_and_run_seconds(old_fn, old_args)
    with contextlib.suppress(*_SAFE_ERRORS):
        measured.compile_s_after, measured.run_s_after = compile_and_run_seconds(new_fn, new_args)
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


class _Comparer:
    """Runs the rewrite beside the original on each input set, stopping at the first difference.

    A rewrite passes an input set when its output has the original's tree, shapes, dtypes and
    values and it prints the same text; where the original raises (on a varied input), the
    rewrite must raise too. On an empty axis the original often raises (`jnp.stack([])`) or
    returns a degenerate `jnp.array([])`: there only the original's non-empty results must
    match, and a carry may come back broadcast to its row shape.
    """

    def __init__(self, original: Target, rewritten: Target, request: VerifyRequest) -> None:
        self.original = original
        self.rewritten = rewritten
        self.request = request
        self.tried = 0
        self.passed = 0
        self.worst: float | None = None
        self.failure: str | None = None
        self.varied: list[str] = []  # variants both accepted
        self.rejected: list[str] = []  # variants the original (and the rewrite) reject
        self.numpy_only: list[str] = []  # variants only the NumPy reference rejects
        self.rounding = 0  # input sets whose values agree only within the compiled original's
        self.widened_rounding = 0  # ... only within the NumPy reference's float32 evaluation
        self.float64_rounding = 0  # ... only within the original's float32 rounding error
        self.ill_conditioned: list[str] = []  # variants whose float32 result is mostly rounding
        self._jitted_original: Target | None | bool = False

    def outcome(self) -> _Outcome:
        return _Outcome(self.tried, self.passed, self.worst, self.failure)

    def on_plan(self, plan: InputPlan) -> None:
        for set_index, expected in zip(plan.set_indices, plan.expected, strict=True):
            where = f"on input set {set_index} of {describe_inputs(self.original, plan)}"
            if not self._agrees(plan.init, plan.call, set_index, expected, where, empty=False):
                return

    def on_variant(self, label: str, init: Binding | None, call: Binding, empty: bool) -> None:
        if self.failure:
            return
        where = f"on {label} ({describe_call(self.original, init, call)})"
        loose = label.endswith("float16 data")
        try:
            expected = _run(self.original, init, call, 0)
        except _OriginalTooSlow:
            return  # no reference to compare with
        except _SAFE_ERRORS as exc:
            if empty and (label.endswith("→0") or _stacks_nothing(exc)):
                # A loop that ran zero times left a Python value (`0.0 / len(x)` divides by
                # zero) or stacked nothing (`jnp.stack([])`): the rewrite may return there.
                return
            if _numpy_only_error(self.original, exc):
                self.numpy_only.append(label)
                return
            if self._rejects(init, call, f"the original raises {describe_exception(exc)} {where}"):
                self.rejected.append(label)
            return
        if self._agrees(init, call, 0, expected, where, empty=empty, loose=loose, variant=label):
            self.varied.append(label)

    def on_rejected(self, init: Binding | None, call: Binding, error: str) -> None:
        """A signature the original raises on: the rewrite must raise too."""
        if not self.failure:
            where = describe_call(self.original, init, call)
            self._rejects(init, call, f"the original raises {error} on ({where})")

    def _rejects(self, init: Binding | None, call: Binding, raised: str) -> bool:
        """Does the rewrite raise where the original did (`raised` says how)? Else a failure.

        The jitted original accepting the inputs excuses the rewrite: jit makes a Python float
        an array, so it is not the rewrite that changed what runs.
        """
        self.tried += 1
        try:
            _run(self.rewritten, init, call, 0, reference=False)
        except _SAFE_ERRORS:
            self.passed += 1
            return True
        if self._run_jitted(init, call, 0) is not None:  # the jitted original accepts them
            self.passed += 1
            return False
        self.failure = f"{raised} but the rewrite returns"
        return False

    def jitted(self) -> Target | None:
        """The original as written, decorators kept (built on first use)."""
        if self._jitted_original is False:
            self._jitted_original = _load_jitted_original(self.request, self.original)
        return self._jitted_original if isinstance(self._jitted_original, Target) else None

    def _agrees(
        self,
        init: Binding | None,
        call: Binding,
        set_index: int,
        expected: Run,
        where: str,
        empty: bool,
        loose: bool = False,
        variant: str | None = None,
    ) -> bool:
        """Does the rewrite compute what the original did on these inputs? Else a failure;
        except on a `variant` where the original's own float32 result is mostly rounding (a
        singular `inv`): no comparison there can tell a rewrite from rounding, so the variant
        is set aside, named in the reason."""
        if self.failure:
            return False
        self.tried += 1
        try:
            actual = _run(self.rewritten, init, call, set_index, reference=False)
        except _SAFE_ERRORS as exc:
            self.failure = (
                f"rewritten {self.rewritten.qualname} raised {describe_exception(exc)} {where}"
            )
            return False
        comparison = compare_outputs(expected.output, actual.output, zero_trip=empty, loose=loose)
        noise = (
            "same"
            if comparison.same
            else self._noise(comparison, expected, actual, init, call, set_index, loose)
        )
        if noise == "ill-conditioned" and variant is not None:
            self.tried -= 1
            self.ill_conditioned.append(variant)
            return False
        if noise in ("differs", "ill-conditioned"):
            self.failure = f"{comparison.detail} {where}"
        if comparison.max_abs_diff is not None:
            self.worst = max(self.worst or 0.0, comparison.max_abs_diff)
        if self.failure:
            return False
        if not same_text(expected.printed, actual.printed, loose) and not self._prints_as_jitted(
            init, call, set_index, actual.printed, loose
        ):
            self.failure = (
                f"printed text differs {where}: {_excerpt(expected.printed)} from the original, "
                f"{_excerpt(actual.printed)} from the rewrite"
            )
            return False
        self.passed += 1
        return True

    def _noise(
        self,
        comparison: Comparison,
        expected: Run,
        actual: Run,
        init: Binding | None,
        call: Binding,
        set_index: int,
        loose: bool,
    ) -> Literal["rounding", "ill-conditioned", "differs"]:
        """Do only the values differ, by no more than rounding moves them (compiling the
        original, or its float32 result beside its float64 one)? "ill-conditioned": they differ
        more, where the original's float32 result is itself mostly rounding."""
        if not comparison.values_only:
            return "differs"
        compiled = self._run_jitted(init, call, set_index)
        widened = compiled is None and loose and self.original.numpy_inputs
        if widened:
            compiled = self._run_widened(init, call, set_index, expected)
        if compiled is not None and within_noise(
            expected.output, actual.output, compiled.output, loose
        ):
            if widened:
                self.widened_rounding += 1
            else:
                self.rounding += 1
            return "rounding"
        precise = self._run_in_float64(call, set_index)
        if precise is None:
            return "differs"
        if within_noise(expected.output, actual.output, precise.output, loose):
            self.float64_rounding += 1
            return "rounding"
        if rounding_dominated(expected.output, precise.output, loose):
            return "ill-conditioned"
        return "differs"

    def _run_in_float64(self, call: Binding, set_index: int) -> Run | None:
        """The original run with x64 on, its float inputs made float64: the value its float32
        arithmetic approximates. How far the float32 run is from it is the rounding error of
        the operations themselves (an ill-conditioned `inv` or `solve` multiplies it), which a
        rewrite that rounds in another order may show as well; None for a method (its
        constructor's arrays stay as built) or where it raises."""
        if self.original.function is None or self.original.numpy_inputs:
            return None
        args, kwargs = call.make(set_index)
        try:
            with jax.enable_x64(True):
                wide_args, wide_kwargs = jax.tree_util.tree_map(_in_float64, (args, kwargs))
                output = self.original.function(*wide_args, **wide_kwargs)
                jax.block_until_ready(output)
        except _SAFE_ERRORS:
            return None
        return Run(output, "")

    def _run_jitted(self, init: Binding | None, call: Binding, set_index: int) -> Run | None:
        """What the original as written (jitted) does on these inputs; None if it raises."""
        jitted = self.jitted()
        if jitted is None:
            return None
        try:
            return _run(jitted, init, call, set_index, reference=False)
        except _SAFE_ERRORS:
            return None

    def _run_widened(
        self, init: Binding | None, call: Binding, set_index: int, expected: Run
    ) -> Run | None:
        """The NumPy reference computed in float32 from 16-bit inputs, its results rounded back
        to the dtypes of `expected`: how XLA evaluates 16-bit arithmetic where the processor
        has no 16-bit units (a fused expression in float32, rounded once), beside NumPy's
        rounding after every operation. Their difference is what evaluation order alone moves
        a 16-bit result, as compiling moves the original's elsewhere; None if it raises."""
        widened = replace(self.original, widened=True)
        try:
            run = _run(widened, init, call, set_index, reference=False)
        except _SAFE_ERRORS:
            return None
        try:
            output = jax.tree_util.tree_map(_rounded_like, run.output, expected.output)
        except (TypeError, ValueError):  # another tree: nothing to measure with
            return None
        return Run(output, run.printed)

    def _prints_as_jitted(
        self, init: Binding | None, call: Binding, set_index: int, printed: str, loose: bool
    ) -> bool:
        """Does the original *as written* (jitted) print the same? Then the rewrite kept it.

        Trace-time prints elsewhere in a rewritten function (a static marker) print once per
        trace in both; only the print rewrite itself must print what the unstaged original does.
        """
        if self.request.rewrites_prints:
            return False
        run = self._run_jitted(init, call, set_index)
        return run is not None and same_text(run.printed, printed, loose)


def _rounded_like(value: Any, like: Any) -> Any:
    if isinstance(value, np.ndarray) and isinstance(like, (np.ndarray, np.generic, jax.Array)):
        return value.astype(like.dtype)
    return value


def _stacks_nothing(exc: BaseException) -> bool:
    return isinstance(exc, ValueError) and str(exc).startswith("Need at least one array to")


def _load_jitted_original(request: VerifyRequest, original: Target) -> Target | None:
    """The original with its decorators, sharing the stripped original's classes (a `State`
    it returns is the same class as the one the stripped original and the rewrite return)."""
    tag = "".join(c if c.isalnum() else "_" for c in request.request_id)
    try:
        module = build_module(
            request.original_source,
            request.path,
            request.target,
            strip_staging=False,
            module_name=f"_jaxlint_verify_{tag}_jit",
        )
    except NamespaceError:
        return None
    owner = original.function if original.function is not None else original.cls
    stripped = sys.modules.get(getattr(owner, "__module__", "") or "")
    if stripped is not None:
        source = request.original_source
        share_classes(stripped, module, source, source, request.target)
    try:
        return resolve_target(module, request.target)
    except NamespaceError:
        return None


def _excerpt(text: str, limit: int = 80) -> str:
    text = text if len(text) <= limit else text[: limit - 1] + "…"
    return repr(text)


def _check_mutations(
    original: Target, rewritten: Target, plan: InputPlan, as_written: Target | None = None
) -> list[str]:
    """Change each constructor-set attribute after a first call: both versions must still agree.

    Catches a rewrite that caches on `self` (a stale jit cache, SPEC JAX306). With `as_written`
    (the original with its decorators), a rewrite as stale as the original as written agrees.
    """
    set_index = plan.set_indices[0]
    args, kwargs = plan.call.make(set_index)
    old_self = _instance(original, plan.init, set_index)
    new_self = _instance(rewritten, plan.init, set_index)
    old_method = _method(old_self, original.method or "")
    new_method = _method(new_self, rewritten.method or "")
    written_self = _instance(as_written, plan.init, set_index) if as_written else None
    written_method = _method(written_self, original.method or "") if written_self else None
    with contextlib.suppress(*_SAFE_ERRORS):  # warm the caches; errors were caught before
        old_method(*args, **kwargs)
        new_method(*args, **kwargs)
        if written_method is not None:
            written_method(*args, **kwargs)
    checked = []
    attributes = [name for name in vars(old_self) if name in vars(new_self)]
    for name in itertools.islice(attributes, MAX_MUTATED_ATTRIBUTES):
        value = vars(old_self)[name]
        changed = _mutated(value)
        if changed is None:
            continue
        try:
            for instance in (old_self, new_self, written_self):
                if instance is not None:
                    setattr(instance, name, changed)
        except _SAFE_ERRORS:  # a frozen dataclass or a read-only property: nothing to change
            continue
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
            if not comparison.same and not _as_stale(written_method, args, kwargs, actual):
                raise _Failed(
                    f"stale result after changing self.{name}: {comparison.detail} "
                    "(the rewrite caches on self)"
                )
            checked.append(name)
        for instance in (old_self, new_self, written_self):
            if instance is not None:
                setattr(instance, name, value)
    return [f"agrees after changing self.{', self.'.join(checked)}"] if checked else []


def _as_stale(written: Callable[..., Any] | None, args: Any, kwargs: Any, actual: Any) -> bool:
    """Does the original as written give what the rewrite gave (its own stale cache)?"""
    if written is None:
        return False
    try:
        return compare_outputs(written(*args, **kwargs), actual).same
    except _SAFE_ERRORS:
        return False


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
    return describe_call(target, plan.init, plan.call)


def describe_call(target: Target, init: Binding | None, call: Binding) -> str:
    """`f(x: float32[7])`, with the constructor's arguments for a method."""
    if init is None:
        return f"{target.qualname}({call.describe()})"
    owner, method = target.qualname.rsplit(".", 1)
    return f"{owner}({init.describe()}).{method}({call.describe()})"


def _summary(
    original: Target, plans: list[InputPlan], comparer: _Comparer, measured: _Measurements
) -> str:
    signatures = " and ".join(describe_inputs(original, plan) for plan in plans)
    parts = [f"outputs and prints match on {comparer.passed} input sets: {signatures}"]
    parts += _origin_note(plans, comparer.request.recorded)
    if original.numpy_inputs:
        parts.append("the reference: the original on NumPy copies of the array inputs")
    if comparer.varied:
        parts[0] += f", varied by {', '.join(comparer.varied)}"
    if comparer.rejected:
        parts[0] += f" (both raise on {', '.join(comparer.rejected)})"
    if comparer.numpy_only:
        parts[0] += f" (only NumPy raises on {', '.join(comparer.numpy_only)})"
    if comparer.worst is not None:
        parts[0] += f", max |Δ| {comparer.worst:.3g}"
    within = (  # input sets that agree only within a measured rounding, and what measured it
        (comparer.rounding, "the original compiled as written differs from its op-by-op run"),
        (
            comparer.widened_rounding,
            "the NumPy reference computed in float32 differs from its 16-bit run",
        ),
        (comparer.float64_rounding, "the original's float32 result differs from its float64 one"),
    )
    for count, reference in within:
        if count:
            parts[0] += f" (on {count} of them no more than {reference})"
    if comparer.ill_conditioned:
        parts[0] += (
            f" (set aside: {', '.join(comparer.ill_conditioned)}, where the original's float32 "
            "result is mostly rounding, far from its float64 one)"
        )
    if measured.eqns_before is not None and measured.eqns_after is not None:
        parts.append(
            f"eqns {measured.eqns_before} → {measured.eqns_after} "
            f"(total {measured.eqns_total_before} → {measured.eqns_total_after})"
        )
    if measured.compile_s_before is not None and measured.compile_s_after is not None:
        parts.append(
            f"compile {measured.compile_s_before:.3f} s → {measured.compile_s_after:.3f} s"
        )
    before, after = measured.run_s_before, measured.run_s_after
    if before is not None and after is not None:
        parts.append(
            f"run {before * 1e6:.0f} µs → {after * 1e6:.0f} µs per call on "
            f"{jax.default_backend()} (the first input set)"
        )
        if _slower(comparer.request, measured):
            parts.append("the rewrite runs slower here than the original")
    return "; ".join(parts + measured.notes)


# ---------------------------------------------------------------- recorded signatures

MAX_RECORDED_PLANS = MAX_SIGNATURES + 1


def _with_recorded(original: Target, recorded: Sequence[str], max_attempts: int) -> list[InputPlan]:
    """The recorded signatures the original accepts, then what the ladder finds.

    With recorded plans the ladder only adds a signature or two (on a smaller budget) and may
    find none; without, it is the fallback and its error says what became of the records.
    """
    first, problem = _recorded_plans(original, recorded)
    try:
        budget = max_attempts // 4 if first else max_attempts
        ladder = find_plans(original, max_attempts=budget)
    except _Unverifiable as exc:
        if first:
            return first
        count = len(recorded)
        raise _Unverifiable(
            f"{exc}; the original accepted none of the {count} recorded signature"
            f"{'s' if count != 1 else ''} ({problem})"
        ) from exc
    if first:
        ladder = ladder[: max(1, MAX_SIGNATURES + 1 - len(first))]
    return first + ladder


def _recorded_plans(original: Target, recorded: Sequence[str]) -> tuple[list[InputPlan], str]:
    """Plans from the recorded signatures the original accepts; and the last problem seen."""
    try:
        init_signature = constructor_signature(original.cls) if original.cls is not None else None
        records = list(
            recorded_calls(_signature(original), init_signature, recorded, _home(original))
        )
    except (TypeError, ValueError) as exc:
        return [], f"cannot read the signature of {original.qualname}: {exc}"
    plans: list[InputPlan] = []
    problem = ""
    fallback_init: list[Binding | None] = []
    for init, call, why in records:
        if call is None:
            problem = f"cannot rebuild a recorded call: {why}"
            continue
        if original.cls is not None and init is None:
            if not fallback_init:
                fallback_init.append(_ladder_constructor(original))
            init = fallback_init[0]
            if init is None:
                problem = "no constructor arguments were recorded and none could be found"
                continue
        accepted: list[tuple[int, Run]] = []
        for set_index in range(MAX_INPUT_SETS):
            try:
                run = _run(original, init, call, set_index, limit_s=RECORDED_CALL_LIMIT_S)
                accepted.append((set_index, run))
            except (_OriginalTooSlow, *_SAFE_ERRORS) as exc:
                if set_index == 0:
                    problem = f"({call.describe()}): {describe_exception(exc)}"
                    break
            if len(accepted) == MIN_INPUT_SETS:
                indices, runs = zip(*accepted, strict=True)
                plans.append(InputPlan(init, call, indices, runs, origin="recorded"))
                break
        if len(plans) >= MAX_RECORDED_PLANS:
            break
    return plans, problem


def _home(original: Target) -> Home | None:
    """The original's module as recorded objects name it: `pkg.env` for `pkg/env.py`."""
    if original.function is not None:
        names = getattr(original.function, "__globals__", None)
    else:
        names = vars(sys.modules.get(getattr(original.cls, "__module__", ""), sys))
    path = names.get("__file__") if isinstance(names, dict) else None
    if not path:
        return None
    _, package = package_context(path)
    stem = os.path.splitext(os.path.basename(path))[0]
    module = package if stem == "__init__" else ".".join(filter(None, (package, stem)))
    return Home(module, names) if module else None


def _ladder_constructor(original: Target) -> Binding | None:
    """Constructor arguments from the ladder, for a method recorded without its `self`'s."""
    try:
        init_params = parameters(constructor_signature(original.cls), DimTable(), INIT_LADDER)
    except (TypeError, ValueError):
        return None
    for init in candidate_bindings(init_params, _INIT_SALT, MAX_INIT_BINDINGS):
        try:
            _instance(original, init, 0)
        except _SAFE_ERRORS:
            continue
        return init
    return None


def _origin_note(plans: list[InputPlan], recorded: Sequence[str]) -> list[str]:
    """`inputs: 2 recorded signatures, 1 from the ladder`, when signatures were recorded."""
    if not recorded:
        return []
    used = sum(1 for plan in plans if plan.origin == "recorded")
    ladder = len(plans) - used
    parts = [f"{used} recorded signature{'s' if used != 1 else ''}"]
    if ladder:
        parts.append(f"{ladder} from the ladder")
    note = f"inputs: {', '.join(parts)}"
    if used < len(recorded):
        note += f" (of {len(recorded)} recorded)"
    return [note]
