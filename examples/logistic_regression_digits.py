"""Softmax regression on the bundled 8x8 digits, every step compiled by numlir.

The training step (forward pass, ``numlir.value_and_grad``, SGD update) is one
``@numlir.jit`` function: it compiles once to machine code through the hlo
dialect, MLIR's linalg and LLVM, then runs for every step. Run with
``make demo``; set ``NUMLIR_DUMP_DIR=dir`` to see every compiler stage.
"""

from __future__ import annotations

import pathlib
import time

import numpy as np
from tqdm import tqdm

import numlir
import numlir.numpy as jnp

DATA = pathlib.Path(__file__).resolve().parent.parent / "data" / "digits.npz"
NUM_CLASSES = 10


def load_digits(seed: int = 0):
    """Pixels scaled to [0, 1] with a bias column; a fixed 80/20 split."""
    data = np.load(DATA)
    x = data["images"].reshape(len(data["images"]), -1).astype(np.float32) / 16.0
    y = data["labels"].astype(np.int32)
    order = np.random.default_rng(seed).permutation(len(x))
    x, y = x[order], y[order]
    split = int(0.8 * len(x))
    return (x[:split], y[:split]), (x[split:], y[split:])


def one_hot(labels, num_classes):
    return (labels.reshape(-1, 1) == jnp.arange(num_classes).reshape(1, -1)).astype(jnp.float32)


def log_softmax(logits):
    shifted = logits - jnp.max(logits, axis=1, keepdims=True)
    return shifted - jnp.log(jnp.sum(jnp.exp(shifted), axis=1, keepdims=True))


def loss_fn(w, b, x, y, weight_decay):
    """L2-regularized mean cross-entropy."""
    logp = log_softmax(x @ w + b)
    targets = one_hot(y, NUM_CLASSES)
    return -jnp.sum(targets * logp) / x.shape[0] + 0.5 * weight_decay * jnp.sum(w * w)


@numlir.jit
def train_step(w, b, x, y, learning_rate, weight_decay):
    """One full-batch gradient step; forward and backward pass compile into one module."""
    loss, (dw, db) = numlir.value_and_grad(loss_fn, argnums=(0, 1))(w, b, x, y, weight_decay)
    return w - learning_rate * dw, b - learning_rate * db, loss


@numlir.jit
def accuracy(w, b, x, y):
    """Fraction of rows whose true class has the largest logit."""
    logits = x @ w + b
    true_logit = jnp.sum(logits * one_hot(y, NUM_CLASSES), axis=1)
    return jnp.mean((true_logit >= jnp.max(logits, axis=1)).astype(jnp.float32))


def main(steps: int = 1000) -> float:
    (x_train, y_train), (x_test, y_test) = load_digits()
    w = np.zeros((x_train.shape[1], NUM_CLASSES), np.float32)
    b = np.zeros(NUM_CLASSES, np.float32)

    start = time.perf_counter()
    w, b, loss = train_step(w, b, x_train, y_train, 0.5, 1e-4)
    compile_seconds = time.perf_counter() - start
    print(f"compiled the training step in {compile_seconds:.2f} s "
          f"(includes the first step)")

    progress = tqdm(range(1, steps), desc="training", unit="step")
    for step in progress:
        w, b, loss = train_step(w, b, x_train, y_train, 0.5, 1e-4)
        if step % 25 == 0:
            progress.set_postfix(loss=f"{float(loss):.4f}")

    train_acc = float(accuracy(w, b, x_train, y_train))
    test_acc = float(accuracy(w, b, x_test, y_test))
    print(f"final loss {float(loss):.4f}")
    print(f"train accuracy {train_acc:.3f}, test accuracy {test_acc:.3f} "
          f"({len(x_test)} held-out digits)")
    return test_acc


if __name__ == "__main__":
    main()
