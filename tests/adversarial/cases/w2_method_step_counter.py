"""An optimizer whose step counter is an int attribute bumped outside jit (JAX301).

The trap: `apply` branches on `self.step < self.warmup` and raises `decay` to a power of the
step; `update` (plain Python) does `self.step += 1` after every call. The fixed method must see
the current step on every call (a helper keyed on the instance, or a stale static value,
keeps the first learning rate), and `step`, stored only as ints, may be static."""

import jax


class WarmupSGD:
    def __init__(self, base_lr, warmup, decay=0.5):
        self.base_lr = base_lr
        self.warmup = warmup
        self.decay = decay
        self.step = 0

    @jax.jit
    def apply(self, params, grads):
        if self.step < self.warmup:
            lr = self.base_lr * (self.step + 1) / self.warmup
        else:
            lr = self.base_lr * self.decay ** (self.step - self.warmup)
        return jax.tree_util.tree_map(lambda p, g: p - lr * g, params, grads)

    def update(self, params, grads):
        new = self.apply(params, grads)
        self.step += 1
        return new
