"""Hessian-vector products and a Newton-CG solve of softmax regression.

``hvp(f, x, v)`` is forward-over-reverse: the JVP of ``grad(f)`` at ``x`` in
direction ``v``. It costs a small multiple of one gradient and never forms
the Hessian, so conjugate gradients can take Newton steps on models whose
Hessian would not fit in memory. Run ``python examples/hessian_vector_product.py``.
"""

from __future__ import annotations

import pathlib
import sys

import numpy as np
from tqdm import tqdm

import numlir
import numlir.numpy as jnp

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from logistic_regression_digits import load_digits  # noqa: E402

CLASSES, WEIGHT_DECAY = 10, 1e-3


def hvp(f, x, v):
    """H(x) @ v for scalar ``f`` (forward-over-reverse)."""
    return numlir.jvp(numlir.grad(f), (x,), (v,))[1]


def hvp_reverse_over_reverse(f, x, v):
    """The same product by differentiating <grad f(x), v> again in reverse mode."""
    return numlir.grad(lambda y: jnp.vdot(numlir.grad(f)(y), v))(x)


def softmax_loss(w, x, y):
    """Mean cross-entropy of softmax regression (w: [features * classes], flattened)."""
    logits = x @ w.reshape(x.shape[1], CLASSES)
    logp = logits - numlir.nn.logsumexp(logits, axis=1, keepdims=True)
    return -jnp.mean(jnp.take_along_axis(logp, y[:, None], axis=1)) + 0.5 * WEIGHT_DECAY * jnp.sum(w * w)


@numlir.jit
def newton_direction(w, x, y, iters: int = 20):
    """Solve H d = -g by conjugate gradients, with H only through Hessian-vector products."""
    loss = lambda w: softmax_loss(w, x, y)  # noqa: E731
    g = numlir.grad(loss)(w)

    def cg_step(_, state):
        d, r, p, rr = state
        hp = hvp(loss, w, p)
        alpha = rr / jnp.vdot(p, hp)
        d, r = d + alpha * p, r - alpha * hp
        rr_new = jnp.vdot(r, r)
        return d, r, r + (rr_new / rr) * p, rr_new

    zero = jnp.zeros_like(w)
    d, *_ = numlir.lax.fori_loop(0, iters, cg_step, (zero, -g, -g, jnp.vdot(g, g)))
    return d, loss(w)


def main(newton_steps: int = 5) -> float:
    (x_train, y_train), (x_test, y_test) = load_digits()
    w = jnp.zeros(x_train.shape[1] * CLASSES)
    for _ in tqdm(range(newton_steps), desc="Newton-CG", unit="step"):
        d, loss = newton_direction(w, x_train, y_train)
        w = w + d
    final = float(softmax_loss(w, x_train, y_train))
    logits = x_test @ np.asarray(w).reshape(-1, CLASSES)
    acc = float(np.mean(np.argmax(logits, axis=1) == y_test))
    print(f"loss after {newton_steps} Newton-CG steps: {final:.4f}; test accuracy {acc:.3f}")
    return acc


if __name__ == "__main__":
    main()
