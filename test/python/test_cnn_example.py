"""examples/cnn_digits.py runs unmodified on numlir and on JAX, with the same results."""

from __future__ import annotations

import importlib.util
import pathlib

import numpy as np
import pytest

EXAMPLE = pathlib.Path(__file__).resolve().parents[2] / "examples" / "cnn_digits.py"


def load_example(backend: str, monkeypatch):
    """A fresh copy of the example module with CNN_BACKEND=backend."""
    monkeypatch.setenv("CNN_BACKEND", backend)
    spec = importlib.util.spec_from_file_location(f"cnn_digits_{backend}", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def examples():
    with pytest.MonkeyPatch.context() as monkeypatch:
        return {backend: load_example(backend, monkeypatch) for backend in ("numlir", "jax")}


def run_one_epoch(example):
    (x, y), _ = example.load_digits()
    key, init_key = example.random.split(example.random.PRNGKey(0))
    params = example.init_params(init_key)
    # A positive conv bias makes max-pool windows over flat background tie.
    params["conv_b"] = params["conv_b"] + 0.05
    _, epoch_key = example.random.split(key)
    new_params, loss = example.train_epoch(params, x, y, epoch_key, 0.1)
    return ({k: np.asarray(v) for k, v in params.items()},
            {k: np.asarray(v) for k, v in new_params.items()}, float(loss))


def test_cnn_example_selects_its_backend(examples):
    assert examples["numlir"].jax.__name__ == "numlir"
    assert examples["jax"].jax.__name__ == "jax"


def test_cnn_example_draws_the_same_minibatches_as_jax(examples):
    orders = [np.asarray(ex.random.permutation(ex.random.PRNGKey(7), 1437))
              for ex in (examples["numlir"], examples["jax"])]
    np.testing.assert_array_equal(*orders)


def test_cnn_epoch_on_numlir_matches_jax(examples):
    init_numlir, params_numlir, loss_numlir = run_one_epoch(examples["numlir"])
    init_jax, params_jax, loss_jax = run_one_epoch(examples["jax"])
    for name in init_jax:
        # Not assert_array_equal: numlir's erf_inv, and so random.normal, is
        # within a few ulp of XLA's but not bit-identical.
        np.testing.assert_allclose(init_numlir[name], init_jax[name], rtol=1e-5, atol=1e-6,
                                   err_msg=name)
    np.testing.assert_allclose(loss_numlir, loss_jax, rtol=1e-5)
    for name in params_jax:
        np.testing.assert_allclose(params_numlir[name], params_jax[name], rtol=1e-4, atol=1e-5,
                                   err_msg=name)
        assert not np.allclose(params_numlir[name], init_numlir[name]), f"{name} did not train"


def test_cnn_gradients_match_jax_grad(examples):
    jax = examples["jax"].jax
    (x, y), _ = examples["jax"].load_digits()
    x, y = x[:32], y[:32]
    params = examples["jax"].init_params(jax.random.PRNGKey(3))
    params = {k: np.asarray(v) for k, v in params.items()}
    value_jax, grads_jax = examples["jax"].loss_and_grads(params, x, y)
    value, grads = examples["numlir"].loss_and_grads(params, x, y)
    np.testing.assert_allclose(value, value_jax, rtol=1e-6)
    for name in grads_jax:
        np.testing.assert_allclose(grads[name], grads_jax[name], rtol=1e-4, atol=1e-6, err_msg=name)
        assert np.abs(np.asarray(grads[name])).max() > 0, name


def test_cnn_example_learns_the_digits(examples):
    assert examples["numlir"].main(epochs=3) > 0.9
