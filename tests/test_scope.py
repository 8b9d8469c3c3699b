"""SPEC §2: which functions are traced, how, and which parameters are static."""

from __future__ import annotations

import ast
import textwrap

import pytest

from jaxlint.analysis.jax_api import TraceKind
from jaxlint.analysis.scope import ModuleIndex, build_index


def index_of(source: str, jit_decorators: tuple[str, ...] = ()) -> ModuleIndex:
    return build_index(ast.parse(textwrap.dedent(source)), jit_decorators)


def traced(source: str, **kwargs) -> dict[str, TraceKind | None]:
    return {f.name: f.trace for f in index_of(source, **kwargs).functions if f.name != "<lambda>"}


ABSTRACT, CONCRETE = TraceKind.ABSTRACT, TraceKind.CONCRETE


@pytest.mark.parametrize(
    "decorator, imports",
    [
        ("@jax.jit", "import jax"),
        ("@jit", "from jax import jit"),
        ("@J.jit", "import jax as J"),
        ("@jjit", "from jax import jit as jjit"),
        ("@jax.jit(static_argnames='n')", "import jax"),
        ("@functools.partial(jax.jit, static_argnums=1)", "import functools, jax"),
        ("@partial(jax.jit, static_argnums=1)", "import jax\nfrom functools import partial"),
        ("@jax.pmap", "import jax"),
        ("@eqx.filter_jit", "import equinox as eqx"),
        ("@nnx.jit", "from flax import nnx"),
        ("@jax.vmap", "import jax"),
        ("@jax.checkpoint", "import jax"),
    ],
)
def test_decorator_spellings_make_a_function_traced(decorator, imports):
    source = f"{imports}\n{decorator}\ndef f(x, n=1):\n    return x\n"
    assert traced(source)["f"] == ABSTRACT


CUSTOM_VJP = """
    import jax
    import jax.numpy as jnp

    @jax.custom_vjp
    def f(x):
        return jnp.sin(x)

    def f_fwd(x):
        return f(x), x

    def f_bwd(x, g):
        return (g * jnp.cos(x),)

    f.defvjp(f_fwd, f_bwd)

    @jax.custom_jvp
    def h(x):
        return jnp.sin(x)

    @h.defjvp
    def h_jvp(primals, tangents):
        return h(primals[0]), tangents[0]
"""


def test_custom_derivatives_are_not_traced_on_their_own():
    # eagerly, or under an eager jax.grad, JAX runs them on concrete arrays
    found = traced(CUSTOM_VJP + "\n    eager_grad = jax.grad(lambda x: f(x) + h(x))\n")
    assert {name: found[name] for name in ("f", "f_fwd", "f_bwd", "h", "h_jvp")} == dict.fromkeys(
        ("f", "f_fwd", "f_bwd", "h", "h_jvp")
    )


def test_custom_derivatives_called_from_jitted_code_are_traced_with_their_rules():
    found = traced(CUSTOM_VJP + "\n    @jax.jit\n    def loss(x):\n        return f(x) + h(x)\n")
    assert {name: found[name] for name in ("f", "f_fwd", "f_bwd", "h", "h_jvp")} == dict.fromkeys(
        ("f", "f_fwd", "f_bwd", "h", "h_jvp"), ABSTRACT
    )


def test_named_call_passes_through():
    # jax.named_call(f)(x) runs f eagerly on concrete arrays: only a jitted caller traces it
    source = """
        import jax
        def step(v):
            return v * 2
        named = jax.named_call(step, name="step")
        @jax.named_call
        def loss(v):
            return v.sum()
        @jax.jit
        def train(v):
            return named(v)
    """
    found = traced(source)
    assert (found["loss"], found["step"]) == (None, ABSTRACT)


def test_names_are_resolved_through_imports_not_spelling():
    source = """
        import mylib as jax
        @jax.jit
        def f(x):
            return x
    """
    assert traced(source)["f"] is None


def test_local_variable_shadows_the_import():
    source = """
        import jax
        def outer(jax):
            @jax.jit
            def f(x):
                return x
            return f
    """
    assert traced(source)["f"] is None


def test_config_jit_decorators_are_roots():
    source = """
        import mylib
        @mylib.compiled
        def f(x):
            return x
    """
    assert traced(source, jit_decorators=("mylib.compiled",))["f"] == ABSTRACT
    assert traced(source)["f"] is None


@pytest.mark.parametrize(
    "wrapping",
    [
        "g = jax.jit(f)",
        "y = jax.jit(f)(1.0)",
        "c = jax.jit(f).lower(1.0).compile()",
        "g = jax.jit(functools.partial(f, n=2))",
        "g = jax.jit(jax.vmap(f))",
        "g = jax.jit(jax.grad(f))",
        "ys = jax.vmap(f)(xs)",
        "out = jax.lax.scan(f, 0.0, xs)",
        "out = lax.fori_loop(0, 10, f, 0.0)",
        "out = lax.while_loop(cond, f, 0.0)",
        "out = lax.cond(p, f, f, 1.0)",
        "out = lax.switch(i, [f, f], 1.0)",
        "out = lax.map(f, xs)",
        "out = jax.checkpoint(f)(1.0)",
    ],
)
def test_wrapping_and_transforms_make_a_function_abstractly_traced(wrapping):
    source = f"""
import functools
import jax
from jax import lax

def f(x, n=1):
    return x

{wrapping}
"""
    assert traced(source)["f"] == ABSTRACT


def test_autodiff_alone_traces_with_concrete_values():
    source = """
        import jax
        def loss(x):
            return x
        g = jax.grad(loss)
        vg = jax.value_and_grad(loss)
    """
    assert traced(source)["loss"] == CONCRETE


def test_lax_bodies_are_abstract_even_outside_jit():
    source = """
        from jax import lax
        def body(c, x):
            return c + x, c
        def run(xs):
            return lax.scan(body, 0.0, xs)
    """
    kinds = traced(source)
    assert kinds["body"] == ABSTRACT
    assert kinds["run"] is None


def test_callees_are_traced_transitively_with_the_strongest_kind():
    source = """
        import jax
        def leaf(x):
            return x
        def middle(x):
            return leaf(x)
        @jax.jit
        def top(x):
            return middle(x)
        def grad_only(x):
            return leaf(x)
        g = jax.grad(grad_only)
        def untouched(x):
            return x
    """
    kinds = traced(source)
    assert kinds["middle"] == ABSTRACT and kinds["leaf"] == ABSTRACT
    assert kinds["grad_only"] == CONCRETE
    assert kinds["untouched"] is None


def test_methods_called_through_self_are_traced():
    source = """
        import jax
        class Model:
            @jax.jit
            def __call__(self, x):
                return self.layer(x)
            def layer(self, x):
                return x
            def other(self, x):
                return x
    """
    kinds = traced(source)
    assert kinds["layer"] == ABSTRACT
    assert kinds["other"] is None


def test_nested_scan_body_and_local_jit_target():
    source = """
        import jax
        def make_step():
            def step(x):
                return x
            return jax.jit(step)
        def run(xs):
            def body(c, x):
                return c + x, c
            return jax.lax.scan(body, 0.0, xs)
    """
    kinds = traced(source)
    assert kinds["step"] == ABSTRACT and kinds["body"] == ABSTRACT
    assert kinds["make_step"] is None and kinds["run"] is None


def test_host_callbacks_are_not_traced():
    source = """
        import jax
        def log_value(v):
            print(v)
        @jax.jit
        def f(x):
            jax.debug.callback(log_value, x)
            return x
    """
    assert traced(source)["log_value"] is None


def by_name(index: ModuleIndex, name: str):
    return next(f for f in index.functions if f.name == name)


@pytest.mark.parametrize(
    "decorator, static",
    [
        ("@partial(jax.jit, static_argnums=1)", {"n"}),
        ("@partial(jax.jit, static_argnums=(1, 2))", {"n", "mode"}),
        ("@partial(jax.jit, static_argnums=-1)", {"mode"}),
        ("@partial(jax.jit, static_argnames='mode')", {"mode"}),
        ("@partial(jax.jit, static_argnames=('n', 'mode'))", {"n", "mode"}),
        ("@jax.jit(static_argnames=['n'])", {"n"}),
        ("@jax.jit", set()),
    ],
)
def test_static_argnums_and_argnames(decorator, static):
    source = f"""
import jax
from functools import partial
{decorator}
def f(x, n, mode):
    return x
"""
    assert by_name(index_of(source), "f").static_params == static


def test_static_args_of_a_wrapping_call_and_a_bound_method():
    source = """
        import jax
        def f(x, n):
            return x
        g = jax.jit(f, static_argnums=(1,))
        class A:
            def __init__(self):
                self.fast = jax.jit(self._f, static_argnums=0)
            def _f(self, n, x):
                return x
    """
    index = index_of(source)
    assert by_name(index, "f").static_params == {"n"}
    # bound method: argnum 0 is the first parameter after self; self itself is a Python object
    assert by_name(index, "_f").static_params == {"self", "n"}


def test_eqx_filter_jit_holds_non_array_annotations_static():
    source = """
        import equinox as eqx
        @eqx.filter_jit
        def f(x, n: int, flag: bool, act):
            return x
    """
    assert by_name(index_of(source), "f").static_params == {"n", "flag"}


def test_pytree_classes_and_registration():
    source = """
        import jax
        import equinox as eqx
        from flax import struct
        @jax.tree_util.register_pytree_node_class
        class A: pass
        class B(eqx.Module): pass
        @struct.dataclass
        class C: pass
        class D: pass
        jax.tree_util.register_pytree_node(D, lambda d: ((), None), lambda a, c: D())
        class E: pass
    """
    from jaxlint.analysis.scope import is_pytree_class

    classes = index_of(source).classes
    assert [n for n, c in classes.items() if is_pytree_class(c)] == ["A", "B", "C", "D"]


def test_call_site_hints_for_parameters():
    source = """
        import jax
        import jax.numpy as jnp
        @jax.jit
        def f(xs, ys):
            return xs
        def g(*args):
            return f(args, jnp.ones(3))
    """
    hints = by_name(index_of(source), "f").param_hints
    assert hints == {"xs": {"container"}, "ys": {"array"}}


def test_units_are_the_smallest_statements_holding_traced_code():
    source = """
        import jax

        def untraced(x):
            return x

        class Model:
            def setup(self):
                pass

            def apply(self, xs):
                total = 0
                ys = jax.vmap(lambda v: v * 2)(xs)
                return ys

        @jax.jit
        def step(x):
            return x
    """
    index = index_of(source)
    units = [(first, last) for first, last, _ in index.units()]
    assert units == [(13, 13), (16, 18)]


def test_a_functions_own_import_binds_in_it_and_elsewhere_only_free_names() -> None:
    from jaxlint.analysis.scope import imports_in

    index = index_of(
        """
        import numpy as np

        def numerical(x):
            return np.zeros(3)

        def factory(n):
            import jax.numpy as np
            import jax.numpy as jnp

            def step(x):
                return np.zeros(n)

            return step
        """
    )
    factory = next(f for f in index.functions if f.name == "factory")
    step = next(f for f in index.functions if f.name == "step")
    assert index.imports.resolve("np.zeros") == "numpy.zeros"
    assert index.imports.resolve("jnp.zeros") == "jax.numpy.zeros"  # the module leaves it free
    assert imports_in(factory, index.imports).resolve("np.zeros") == "jax.numpy.zeros"
    assert imports_in(step, index.imports).resolve("np.zeros") == "jax.numpy.zeros"
