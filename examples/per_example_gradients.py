"""Per-example gradients of a small MLP with ``vmap(grad(loss))``, used for DP-SGD-style clipping.

``grad`` differentiates the loss of ONE example; ``vmap`` maps it over the
batch, so the compiled step computes a separate gradient for every example
(no Python loop). Each example's gradient is clipped to norm ``CLIP`` before
averaging — the core of differentially private SGD. Run
``python examples/per_example_gradients.py``.
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

HIDDEN, CLASSES, CLIP = 32, 10, 1.0


def init_params(seed: int, n_in: int):
    k1, k2 = numlir.random.split(numlir.random.key(seed))
    return {
        "w1": numlir.random.normal(k1, (n_in, HIDDEN)) / np.sqrt(n_in),
        "b1": jnp.zeros(HIDDEN),
        "w2": numlir.random.normal(k2, (HIDDEN, CLASSES)) / np.sqrt(HIDDEN),
        "b2": jnp.zeros(CLASSES),
    }


def example_loss(params, x, label):
    """Cross-entropy of one example (x: [features], label: scalar int)."""
    h = jnp.tanh(x @ params["w1"] + params["b1"])
    logits = h @ params["w2"] + params["b2"]
    logp = logits - numlir.nn.logsumexp(logits)
    return -logp[label]


per_example_grads = numlir.jit(numlir.vmap(numlir.grad(example_loss), in_axes=(None, 0, 0)))


def global_norms(grads):
    """The L2 norm of each example's whole gradient (all parameters together)."""
    leaves = numlir.tree_util.tree_leaves(grads)
    return jnp.sqrt(sum(jnp.sum(g.reshape(g.shape[0], -1) ** 2, axis=1) for g in leaves))


@numlir.jit
def private_step(params, x, y, learning_rate):
    grads = numlir.vmap(numlir.grad(example_loss), in_axes=(None, 0, 0))(params, x, y)
    scale = jnp.minimum(1.0, CLIP / (global_norms(grads) + 1e-6))
    clipped = numlir.tree_util.tree_map(
        lambda g: jnp.mean(g * scale.reshape((-1,) + (1,) * (g.ndim - 1)), axis=0), grads)
    return numlir.tree_util.tree_map(lambda p, g: p - learning_rate * g, params, clipped)


@numlir.jit
def accuracy(params, x, y):
    h = jnp.tanh(x @ params["w1"] + params["b1"])
    return jnp.mean(jnp.argmax(h @ params["w2"] + params["b2"], axis=1) == y)


def main(steps: int = 300, batch: int = 64) -> float:
    (x_train, y_train), (x_test, y_test) = load_digits()
    params = init_params(0, x_train.shape[1])
    norms = np.asarray(global_norms(per_example_grads(params, x_train[:batch], y_train[:batch])))
    print(f"per-example gradient norms at init: min {norms.min():.3f}, "
          f"median {np.median(norms):.3f}, max {norms.max():.3f}")
    rng = np.random.default_rng(0)
    for _ in tqdm(range(steps), desc="clipped per-example SGD", unit="step"):
        idx = rng.integers(0, len(x_train), batch)
        params = private_step(params, x_train[idx], y_train[idx], 0.5)
    acc = float(accuracy(params, x_test, y_test))
    print(f"test accuracy {acc:.3f}")
    return acc


if __name__ == "__main__":
    main()
