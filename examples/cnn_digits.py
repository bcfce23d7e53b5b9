"""A small convolutional network on the bundled 8x8 digits, one file for numlir and JAX.

The model is conv 3x3 (16 filters, 'SAME') -> relu -> 2x2 max-pool -> linear
softmax head. Gradients come from ``value_and_grad`` (reverse mode through
the convolution, relu and max-pool). ``train_epoch`` is one jitted function: it draws a
random permutation of the training set, gathers it into minibatches and runs
SGD over them with ``lax.scan``.

Everything below the imports is plain JAX; ``CNN_BACKEND=jax`` runs the same
code on JAX instead of numlir::

    .venv/bin/python examples/cnn_digits.py
    CNN_BACKEND=jax .venv/bin/python examples/cnn_digits.py
"""

from __future__ import annotations

import os
import pathlib
import time

import numpy as np
from tqdm import tqdm

BACKEND = os.environ.get("CNN_BACKEND", "numlir")
if BACKEND == "jax":
    import jax
    import jax.numpy as jnp
    from jax import lax, random
elif BACKEND == "numlir":
    import numlir as jax
    import numlir.numpy as jnp
    from numlir import lax, random
else:
    raise ValueError(f"CNN_BACKEND must be 'numlir' or 'jax', got {BACKEND!r}")

DATA = pathlib.Path(__file__).resolve().parent.parent / "data" / "digits.npz"
NUM_CLASSES = 10
FILTERS = 16
BATCH_SIZE = 32
CONV_DIMS = ("NHWC", "HWIO", "NHWC")


def load_digits(seed: int = 0):
    """Images as (N, 8, 8, 1) in [0, 1]; the same fixed 80/20 split as the softmax example."""
    data = np.load(DATA)
    x = data["images"].astype(np.float32)[..., None] / 16.0
    y = data["labels"].astype(np.int32)
    order = np.random.default_rng(seed).permutation(len(x))
    x, y = x[order], y[order]
    split = int(0.8 * len(x))
    return (x[:split], y[:split]), (x[split:], y[split:])


def init_params(key):
    """He-normal conv filters, a small random head, zero biases."""
    conv_key, head_key = random.split(key)
    return {
        "conv_w": random.normal(conv_key, (3, 3, 1, FILTERS)) * np.sqrt(2.0 / 9.0),
        "conv_b": jnp.zeros(FILTERS),
        "head_w": random.normal(head_key, (4 * 4 * FILTERS, NUM_CLASSES)) * 0.01,
        "head_b": jnp.zeros(NUM_CLASSES),
    }


def forward(params, x):
    """The logits of a batch of images (N, 8, 8, 1)."""
    z = lax.conv_general_dilated(x, params["conv_w"], (1, 1), "SAME",
                                 dimension_numbers=CONV_DIMS) + params["conv_b"]
    h = jnp.maximum(z, 0.0)
    pooled = lax.reduce_window(h, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
    return pooled.reshape(x.shape[0], -1) @ params["head_w"] + params["head_b"]


def loss_fn(params, x, y):
    """Mean softmax cross-entropy of a batch."""
    logp = jax.nn.log_softmax(forward(params, x))
    return -jnp.mean(jnp.take_along_axis(logp, y[:, None], axis=1))


# Reverse mode through the conv, relu, max-pool and head: the loss and its gradient with
# respect to every parameter in one pass.
loss_and_grads = jax.value_and_grad(loss_fn)


@jax.jit
def train_epoch(params, x, y, key, learning_rate):
    """One pass of minibatch SGD over a random permutation of (x, y); returns the mean loss."""
    num_batches = x.shape[0] // BATCH_SIZE
    order = random.permutation(key, x.shape[0])[:num_batches * BATCH_SIZE]
    batches = order.reshape(num_batches, BATCH_SIZE)

    def step(params, indices):
        loss, grads = loss_and_grads(params, x[indices], y[indices])
        params = {k: params[k] - learning_rate * grads[k] for k in params}
        return params, loss

    params, losses = lax.scan(step, params, batches)
    return params, losses.mean()


@jax.jit
def accuracy(params, x, y):
    """Fraction of examples whose largest logit is the true class."""
    logits = forward(params, x)
    return jnp.mean(jnp.argmax(logits, axis=1) == y)


def main(epochs: int = 10, learning_rate: float = 0.1, seed: int = 0) -> float:
    (x_train, y_train), (x_test, y_test) = load_digits()
    key, init_key = random.split(random.PRNGKey(seed))
    params = init_params(init_key)
    print(f"backend {BACKEND}: {len(x_train)} training digits, "
          f"{len(x_train) // BATCH_SIZE} minibatches of {BATCH_SIZE} per epoch")

    progress = tqdm(range(epochs), desc="training", unit="epoch")
    seconds = []
    for epoch in progress:
        key, epoch_key = random.split(key)
        start = time.perf_counter()
        params, loss = train_epoch(params, x_train, y_train, epoch_key, learning_rate)
        loss = float(loss)  # waits for the epoch to finish
        seconds.append(time.perf_counter() - start)
        test_acc = float(accuracy(params, x_test, y_test))
        progress.set_postfix(loss=f"{loss:.4f}", test_acc=f"{test_acc:.3f}")
        tqdm.write(f"epoch {epoch + 1}: loss {loss:.4f}, test accuracy {test_acc:.3f}")

    train_acc = float(accuracy(params, x_train, y_train))
    test_acc = float(accuracy(params, x_test, y_test))
    steady = f", then {np.mean(seconds[1:]):.3f} s per epoch" if len(seconds) > 1 else ""
    print(f"first epoch (with compilation) {seconds[0]:.2f} s{steady}")
    print(f"train accuracy {train_acc:.3f}, test accuracy {test_acc:.3f} "
          f"({len(x_test)} held-out digits)")
    return test_acc


if __name__ == "__main__":
    main()
