"""Second-order recurrences written with simultaneous assignment."""

import jax


@jax.jit
def linear_recurrence(x):
    a, b = 0.0, 1.0
    for v in x:
        a, b = b, a + b * v
    return a, b


@jax.jit
def momentum_path(grads, lr, beta):
    pos = 0.0
    vel = 0.0
    for g in grads:
        vel, pos = beta * vel + g, pos - lr * vel
    return pos, vel
