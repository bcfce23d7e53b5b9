"""The runnable programs in examples/ train to a useful accuracy."""

from __future__ import annotations

import importlib.util
import pathlib

import numpy as np

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"


def load_example(name: str):
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_logistic_regression_learns_the_digits():
    example = load_example("logistic_regression_digits")
    assert example.main(steps=150) > 0.9


def test_logistic_regression_step_matches_numpy():
    example = load_example("logistic_regression_digits")
    (x, y), _ = example.load_digits()
    x, y = x[:64], y[:64]
    rng = np.random.default_rng(1)
    w = rng.normal(size=(64, 10)).astype(np.float32) * 0.1
    b = rng.normal(size=10).astype(np.float32) * 0.1
    new_w, new_b, loss = (np.asarray(v) for v in example.train_step(w, b, x, y, 0.5, 1e-3))

    logits = x @ w + b
    logits -= logits.max(1, keepdims=True)
    logp = logits - np.log(np.exp(logits).sum(1, keepdims=True))
    targets = np.eye(10, dtype=np.float32)[y]
    expected_loss = -(targets * logp).sum() / len(x) + 0.5 * 1e-3 * (w * w).sum()
    dlogits = (np.exp(logp) - targets) / len(x)
    np.testing.assert_allclose(loss, expected_loss, rtol=1e-5)
    np.testing.assert_allclose(new_w, w - 0.5 * (x.T @ dlogits + 1e-3 * w), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(new_b, b - 0.5 * dlogits.sum(0), rtol=1e-5, atol=1e-6)
