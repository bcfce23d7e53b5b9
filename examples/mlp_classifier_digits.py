"""A Haiku-style MLP classifier on the bundled 8x8 digits, with numlir.layers and numlir.optim.

The code is what one writes with Haiku and Optax, imports aside::

    .venv/bin/python examples/mlp_classifier_digits.py
"""

from __future__ import annotations

import pathlib

import numpy as np

import numlir
import numlir.layers as hk
import numlir.numpy as jnp
import numlir.optim as optax

DATA = pathlib.Path(__file__).resolve().parent.parent / "data" / "digits.npz"


def load_digits(seed: int = 0):
    """Flattened images in [0, 1] and labels, split 80/20."""
    data = np.load(DATA)
    x = data["images"].reshape(-1, 64).astype(np.float32) / 16.0
    y = data["labels"].astype(np.int32)
    order = np.random.default_rng(seed).permutation(len(x))
    split = int(0.8 * len(x))
    return (x[order[:split]], y[order[:split]]), (x[order[split:]], y[order[split:]])


def classifier(x, is_training: bool = False):
    h = hk.nets.MLP([128, 64], activate_final=True)(x)
    if is_training:
        h = hk.dropout(hk.next_rng_key(), 0.1, h)
    return hk.Linear(10)(h)


def train(epochs: int = 10, batch_size: int = 64, seed: int = 0):
    """Trained parameters and the test accuracy after each epoch."""
    (x_train, y_train), (x_test, y_test) = load_digits(seed)
    model = hk.transform(classifier)
    rng = hk.PRNGSequence(seed)
    params = model.init(next(rng), x_train[:1], True)
    opt = optax.chain(optax.clip_by_global_norm(1.0), optax.adam(3e-3))
    state = opt.init(params)

    def loss(params, key, x, y):
        logits = model.apply(params, key, x, True)
        return jnp.mean(optax.softmax_cross_entropy_with_integer_labels(logits, y))

    @numlir.jit
    def step(params, state, key, x, y):
        grads = numlir.grad(loss)(params, key, x, y)
        updates, state = opt.update(grads, state, params)
        return optax.apply_updates(params, updates), state

    @numlir.jit
    def accuracy(params, x, y):
        return jnp.mean(jnp.argmax(model.apply(params, None, x), axis=1) == y)

    order = np.random.default_rng(seed)
    history = []
    for _ in range(epochs):
        perm = order.permutation(len(x_train))
        for i in range(0, len(perm) - batch_size + 1, batch_size):
            idx = perm[i:i + batch_size]
            params, state = step(params, state, next(rng), x_train[idx], y_train[idx])
        history.append(float(accuracy(params, x_test, y_test)))
    return params, history


def main() -> None:
    _, history = train()
    print("test accuracy per epoch: " + " ".join(f"{a:.3f}" for a in history))


if __name__ == "__main__":
    main()
