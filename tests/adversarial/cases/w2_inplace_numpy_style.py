"""NumPy-style in-place writes into the parameters of jitted functions (JAX204).

Ported from NumPy: each function updates its argument in place and returns it. The traps:
`u[0] += left` / `u[-1] -= right` with a Python float into an int array (NumPy adds in the
promoted type, then truncates toward zero: -3 + 0.5 stores -2); `counts[0] /= 2` on an int
array keeps the int dtype with the quotient truncated toward zero (-3 / 2 stores -1), and for
counts above 2**24 a float32 quotient rounds where NumPy's float64 one does not;
`grid[:, j] *= s` scales the last column and `grid[0] **= 2` squares a row."""

import jax
import jax.numpy as jnp


@jax.jit
def apply_boundary(u: jax.Array, left: float, right: float) -> jax.Array:
    u[0] += left
    u[-1] -= right
    return u


@jax.jit
def halve_ends(counts: jnp.ndarray):
    counts[0] /= 2
    counts[-1] /= 3
    return counts


@jax.jit
def scale_column(grid, s):
    j = grid.shape[1] - 1
    grid[:, j] *= s
    grid[0] **= 2
    return grid
