"""Reading source text cheaply: the text check for JAX, and `ast` parsing without warnings."""

from __future__ import annotations

import ast
import warnings

# A file that mentions none of these cannot hold a hazard jaxlint knows about.
JAX_MARKERS = ("jax", "equinox", "flax")


def parse_python(source: str, path: str = "<source>") -> ast.Module:
    """`ast.parse`, without Python's SyntaxWarnings about the user's code reaching stderr."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)
        return ast.parse(source, filename=path)


def mentions_jax(source: str, jit_decorators: tuple[str, ...] = ()) -> bool:
    """Cheap text check: can this file hold anything jaxlint looks at?"""
    markers = JAX_MARKERS + tuple(d.split(".")[0] for d in jit_decorators)
    return any(marker in source for marker in markers)
