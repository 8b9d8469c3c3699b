"""In-place updates inside Python loops of jitted functions, NumPy-style (JAX204).

The traps: `prefix_sum` reads the element the previous iteration wrote (`x[i] += x[i - 1]`),
so every store must see the updated array, and on a bool array NumPy's `+=` is a logical or;
`normalize_rows` divides a whole row by its own sum (`m[r] /= m[r].sum()`: the divisor is read
before the row changes; a zero row gives NaN) and must keep float16 data float16;
`one_hot_fill` indexes with a data-dependent label (`out[i, labels[i]] = 1.0`), which has no
exact `.at[]` form when labels repeat."""

import jax


@jax.jit
def prefix_sum(x):
    for i in range(1, x.shape[0]):
        x[i] += x[i - 1]
    return x


@jax.jit
def normalize_rows(m):
    for r in range(m.shape[0]):
        m[r] /= m[r].sum()
    return m


@jax.jit
def one_hot_fill(out, labels):
    for i in range(labels.shape[0]):
        out[i, labels[i]] = 1.0
    return out
