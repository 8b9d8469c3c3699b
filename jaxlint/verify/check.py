"""Run the checked code for one verification request (SPEC §5), in the verification child.

`Trial` loads the module before and after the fix, finds input sets the original accepts, and
calls the original and the rewrite as jaxlint asks, sending back what each call returned and
printed as data (`jaxlint.verify.serialise`). It compares nothing and decides nothing: the
verdict is jaxlint's (`jaxlint.verify.verdict`), in a process this code cannot reach."""

from __future__ import annotations

import contextlib
import inspect
import io
import itertools
import os
import signal
import sys
import threading
import time
import types
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, replace
from functools import partial
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxlint.verify.classes import constructor_signature, is_linen_module, share_classes
from jaxlint.verify.cpu_clock import POLL_S, limit_spent, most_wall
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
from jaxlint.verify.measure import compile_and_run_seconds, count_eqns
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
from jaxlint.verify.observed import TRACER_TEXT
from jaxlint.verify.protocol import MIN_INPUT_SETS, Measurements, VerifyRequest
from jaxlint.verify.recorded import Home, InstanceBinding, recorded_calls
from jaxlint.verify.serialise import output_to_wire, printed_to_wire
from jaxlint.verify.shape_solver import with_solved

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
    """Raise _OriginalTooSlow in the block once it has spent `seconds` (`cpu_clock`: CPU time
    as well as wall time, so a loaded machine does not skip an input set; a Python-level loop
    only: a compiled computation returns first). A no-op off the main thread, where signals
    are not delivered."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    started_wall, started_cpu = time.monotonic(), time.process_time()
    most_wall_s = most_wall(seconds)

    def expire(signum: int, frame: object) -> None:
        wall = time.monotonic() - started_wall
        if limit_spent(seconds, wall, time.process_time() - started_cpu, most_wall_s):
            raise _OriginalTooSlow(f"the original did not return within {seconds:g} s")
        signal.setitimer(signal.ITIMER_REAL, min(POLL_S, most_wall_s - wall))

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
    moved: object = object.__new__(cls)
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
        return jax.device_put(np.asarray(leaf).astype(wide))  # exact; no conversion compiled
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
        if reference and TRACER_TEXT.search(printed):
            with contextlib.suppress(*_SAFE_ERRORS):  # a lax.cond may take a branch jit won't
                printed = _captured(target, init, call, set_index, staged=False)[1]
            if target.vmapped and TRACER_TEXT.search(printed):
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
) -> Measurements:
    """Equation counts and compile times, before the rewritten function has run (cold caches).

    The original is traced without its jit decorators; the rewrite as written, or, where a
    decorator cannot run under `make_jaxpr` (flax's `nnx.jit` updates the module's variables
    from inside the trace), without them too (`unstaged()`): its own equations are the same."""
    measured = Measurements()
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


# ---------------------------------------------------------------- the trial jaxlint drives


class Trial:
    """One request's modules, loaded in this process, and the calls jaxlint asks of them.

    A context manager: `sys.path`, the x64 setting and the modules it loaded are undone on exit.
    Input cases (a constructor binding and a call binding) are numbered in `open`'s reply; jaxlint
    names them by number in `call`.
    """

    def __init__(self, request: VerifyRequest) -> None:
        self.request = request
        tag = "".join(c if c.isalnum() else "_" for c in request.request_id)
        self._names = (f"_jaxlint_verify_{tag}_old", f"_jaxlint_verify_{tag}_new")
        self._context = contextlib.ExitStack()
        self._cases: list[tuple[Binding | None, Binding]] = []
        self._original: Target | None = None
        self._rewritten: Target | None = None
        self._jitted: Target | None | bool = False
        self._first_set = 0  # the first plan's first input set, where mutations are tried

    def __enter__(self) -> Trial:
        self._context.enter_context(_module_context(self.request, list(self._names)))
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._context.close()

    def open(self) -> dict[str, Any]:
        """Load both versions and find the inputs: the plans (with the original's runs), the
        variants, the signatures the original rejects, one more run of the original on the
        first input set, the equation counts and timings; or why there are none."""
        try:
            return self._open()
        except _Unverifiable as exc:
            return {"unverifiable": str(exc)}
        except _Failed as exc:
            return {"failed": str(exc)}

    def _open(self) -> dict[str, Any]:
        request = self.request
        original, rewritten, modules = self._load()
        rejected: list[tuple[Binding | None, Binding, str]] = []
        plans = find_plans(original, rejected=rejected, recorded=request.recorded)
        first = plans[0]
        again = self._called(original, first.init, first.call, first.set_indices[0])
        # inputs are made with the original's classes: the rewrite's identical ones are the same
        share_classes(*modules, request.original_source, request.rewritten_source, request.target)

        def unstaged() -> Target:  # the rewrite with its jit decorators removed, like the original
            name = self._names[1] + "_unstaged"
            return self._built(request.rewritten_source, name, strip=True)[1]

        measured = _measure(original, rewritten, first, unstaged)
        self._original, self._rewritten = original, rewritten
        self._first_set = first.set_indices[0]
        return {
            "plans": [
                {
                    "case": self._case(plan.init, plan.call),
                    "describe": describe_inputs(original, plan),
                    "sets": list(plan.set_indices),
                    "expected": [_run_to_wire(run) for run in plan.expected],
                    "origin": plan.origin,
                }
                for plan in plans
            ],
            "again": again,
            "variants": [
                {
                    "label": label,
                    "case": self._case(init, call),
                    "empty": empty,
                    "describe": describe_call(original, init, call),
                }
                for label, init, call, empty in variants(first, _defaults(original))
            ],
            "rejected": [
                {
                    "case": self._case(init, call),
                    "describe": describe_call(original, init, call),
                    "raised": error,
                }
                for init, call, error in rejected
            ],
            "cases": len(self._cases),
            "measured": asdict(measured),
            "backend": jax.default_backend(),
            "instance_method": original.is_instance_method,
            "numpy_inputs": original.numpy_inputs,
        }

    def _load(self) -> tuple[Target, Target, tuple[types.ModuleType, types.ModuleType]]:
        """The original (its staging decorators stripped) and the rewrite (as written)."""
        request = self.request
        old_name, new_name = self._names
        try:
            old_module, original = self._built(request.original_source, old_name, strip=True)
        except NamespaceError as exc:
            raise _Unverifiable(f"original {request.target}: {exc}") from exc
        vmapped, in_axes = vmap_in_axes(request.original_source, request.target)
        if vmapped and original.function is not None:
            original = replace(original, vmapped=True, in_axes=in_axes)
        # What either version's jit hashes gets hashable inputs: a fix that makes `n` static
        # stated, and checked at every call site, that callers pass constants (JAX103)
        static = jit_static_params(request.original_source, request.target) | jit_static_params(
            request.rewritten_source, request.target
        )
        if static and original.function is not None:
            original = replace(original, static_params=static)
        if request.numpy_reference:
            original = replace(original, numpy_inputs=True)
        try:
            new_module, rewritten = self._built(request.rewritten_source, new_name, strip=False)
        except NamespaceError as exc:
            raise _Failed(f"rewritten {request.target}: {exc}") from exc
        if original.is_instance_method != rewritten.is_instance_method:
            raise _Failed(f"rewritten {request.target} is no longer the same kind of callable")
        return original, rewritten, (old_module, new_module)

    def _built(self, source: str, name: str, strip: bool) -> tuple[types.ModuleType, Target]:
        """`source` as the module `name` (its staging decorators stripped with `strip`), and
        the request's target in it; NamespaceError when either cannot be had."""
        request = self.request
        module = build_module(
            source, request.path, request.target, strip_staging=strip, module_name=name
        )
        return module, resolve_target(module, request.target)

    def _case(self, init: Binding | None, call: Binding) -> int:
        self._cases.append((init, call))
        return len(self._cases) - 1

    def call(self, role: str, case: int, set_index: int) -> dict[str, Any] | None:
        """Call `role` on an input case: the original (the reference, its time per call
        limited), the rewrite, the original as written (`jitted`), the original in float64, or
        the NumPy reference on float32 copies of 16-bit data (`widened`). None where there is
        no such function."""
        assert self._original is not None and self._rewritten is not None, "open() first"
        init, call = self._cases[case]
        if role == "float64":
            return self._in_float64(call, set_index)
        if role == "jitted":
            target = self._jitted_original()
        elif role == "widened":
            target = replace(self._original, widened=True)
        else:
            target = {"original": self._original, "rewritten": self._rewritten}[role]
        if target is None:
            return None
        return self._called(target, init, call, set_index, reference=role == "original")

    def _called(
        self,
        target: Target,
        init: Binding | None,
        call: Binding,
        set_index: int,
        reference: bool = True,
    ) -> dict[str, Any]:
        try:
            run = _run(target, init, call, set_index, reference=reference)
        except _OriginalTooSlow:
            return {"raised": "TimeoutError", "too_slow": True}
        except _SAFE_ERRORS as exc:
            return _raised(target, exc)
        return _run_to_wire(run)

    def _in_float64(self, call: Binding, set_index: int) -> dict[str, Any] | None:
        """The original run with x64 on, its float inputs made float64: the value its float32
        arithmetic approximates. How far the float32 run is from it is the rounding error of
        the operations themselves (an ill-conditioned `inv` or `solve` multiplies it), which a
        rewrite that rounds in another order may show as well; None for a method (its
        constructor's arrays stay as built) or a NumPy reference."""
        original = self._original
        assert original is not None
        if original.function is None or original.numpy_inputs:
            return None
        args, kwargs = call.make(set_index)
        try:
            with jax.enable_x64(True):
                wide_args, wide_kwargs = jax.tree_util.tree_map(_in_float64, (args, kwargs))
                output = original.function(*wide_args, **wide_kwargs)
                jax.block_until_ready(output)
                return {"output": output_to_wire(output), "printed": "", "raised": ""}
        except _SAFE_ERRORS as exc:
            return _raised(original, exc)

    def _jitted_original(self) -> Target | None:
        """The original as written, decorators kept (built on first use)."""
        if self._jitted is False:
            assert self._original is not None
            self._jitted = _load_jitted_original(self.request, self._original)
        return self._jitted if isinstance(self._jitted, Target) else None

    def mutations(self) -> list[dict[str, Any]]:
        """Change each constructor-set attribute after a first call, and call the method of
        the original, the rewrite and the original as written (decorators kept) again.

        jaxlint compares them: a rewrite that caches on `self` (a stale jit cache, SPEC JAX306)
        returns what it returned before. Only a restaging edit changes how the method is staged;
        others keep its decorators, and a cache on `self` the original as written has is not
        theirs to remove: its as-written calls excuse a rewrite as stale as it.
        """
        original, rewritten = self._original, self._rewritten
        assert original is not None and rewritten is not None
        as_written = self._jitted_original() if not self.request.restages else None
        init, call = self._cases[0]  # the first plan's
        set_index = self._first_set
        args, kwargs = call.make(set_index)
        instances = [_instance(target, init, set_index) for target in (original, rewritten)]
        if as_written is not None:
            instances.append(_instance(as_written, init, set_index))
        methods = [_method(instance, original.method or "") for instance in instances]
        with contextlib.suppress(*_SAFE_ERRORS):  # warm the caches; errors were caught before
            for method in methods:
                method(*args, **kwargs)
        records: list[dict[str, Any]] = []
        attributes = [name for name in vars(instances[0]) if name in vars(instances[1])]
        for name in itertools.islice(attributes, MAX_MUTATED_ATTRIBUTES):
            value = vars(instances[0])[name]
            changed = _mutated(value)
            if changed is None:
                continue
            try:
                for instance in instances:
                    setattr(instance, name, changed)
            except _SAFE_ERRORS:  # a frozen dataclass or a read-only property: nothing to change
                continue
            calls = [_returned(original, method, args, kwargs) for method in methods]
            expected, actual, *written = calls
            records.append(
                {
                    "name": name,
                    "expected": expected if "output" in expected else None,
                    "actual": actual,
                    "written": written[0] if written and "output" in written[0] else None,
                }
            )
            for instance in instances:
                setattr(instance, name, value)
        return records


def _run_to_wire(run: Run) -> dict[str, Any]:
    return {"output": output_to_wire(run.output), "printed": printed_to_wire(run.printed)}


def _raised(target: Target, exc: BaseException) -> dict[str, Any]:
    """A call that raised, by its exception's class name alone: its message is the checked
    code's text, which no report shows."""
    return {
        "raised": type(exc).__name__,
        "stacks_nothing": _stacks_nothing(exc),
        "numpy_only": _numpy_only_error(target, exc),
    }


def _returned(target: Target, method: Callable[..., Any], args: Any, kwargs: Any) -> dict[str, Any]:
    try:
        return {"output": output_to_wire(method(*args, **kwargs)), "printed": ""}
    except _SAFE_ERRORS as exc:
        return _raised(target, exc)


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
    init: Binding | None
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
    if not path or not isinstance(names, dict):  # (a path comes only with the names)
        return None
    _, package = package_context(path)
    stem = os.path.splitext(os.path.basename(path))[0]
    module = package if stem == "__init__" else ".".join(filter(None, (package, stem)))
    return Home(module, names) if module else None


def _ladder_constructor(original: Target) -> Binding | None:
    """Constructor arguments from the ladder, for a method recorded without its `self`'s."""
    assert original.cls is not None  # (asked only for a method)
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
