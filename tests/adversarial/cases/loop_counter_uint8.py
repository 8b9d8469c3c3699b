"""Sum pixel values and count them, as an image pipeline would."""

import jax


@jax.jit
def pixel_sum_and_count(pixels):
    total = 0
    k = 0
    for p in pixels:
        total = total + p
        k = k + 1
    return total, k


@jax.jit
def count_bright(pixels, threshold):
    n_bright = 0
    steps = 0
    for i in range(pixels.shape[0]):
        n_bright = n_bright + (pixels[i] > threshold)
        steps += 1
    return n_bright, steps
