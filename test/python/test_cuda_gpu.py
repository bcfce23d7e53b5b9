"""The cuda backend on a real NVIDIA GPU against the cpu backend: the primitive set, the
MLP training step and transfers. Marked ``gpu`` and skipped unless NUMLIR_TEST_GPU=1, which tools/gpu/run.sh sets on a
machine with a GPU and its driver (numlir's CI has none).
What only this file verifies, docs/cuda-backend.md lists."""

import os

import numpy as np
import pytest

import numlir
import numlir.numpy as jnp
from numlir import lax

pytestmark = pytest.mark.gpu


def _gpu():
    # Only where asked (tools/gpu/run.sh): a test process that has loaded the fake libcuda
    # of test_cuda_runtime.py keeps it, and its "GPU" runs no kernels.
    if os.environ.get("NUMLIR_TEST_GPU") != "1":
        pytest.skip("set NUMLIR_TEST_GPU=1 on a machine with an NVIDIA GPU (tools/gpu/run.sh)")
    try:
        return numlir.devices("gpu")[0]
    except RuntimeError as error:
        pytest.fail(f"NUMLIR_TEST_GPU=1 but there is no GPU: {error}")


@pytest.fixture(scope="module")
def gpu():
    return _gpu()


PRIMITIVES = {
    "elementwise": lambda x: jnp.where(x > 0, jnp.exp(-x), jnp.tanh(x)) * 2 + jnp.abs(x),
    "softmax": lambda x: numlir.nn.softmax(x, axis=-1),
    "sums": lambda x: (x.sum(0), x.sum(1), x.max(), jnp.argmax(x, axis=1)),
    "matmul": lambda x: jnp.tanh(x @ x.T + 1),
    "data_movement": lambda x: (x.T[::2], jnp.concatenate([x, -x]), jnp.pad(x, 1),
                                jnp.cumsum(x, axis=1)),
    "gather_scatter": lambda x: (x[:, jnp.array([3, 1, 1])],
                                 x.at[:, jnp.array([0, 2, 2])].add(1.0)),
    "sort": lambda x: jnp.sort(x, axis=1),
}


@pytest.mark.parametrize("name", list(PRIMITIVES))
def test_primitives_on_the_gpu_match_the_cpu_backend(gpu, name):
    x = np.random.default_rng(0).standard_normal((37, 300)).astype(np.float32)
    x[0, :4] = [0.0, -0.0, np.inf, np.nan]
    fun = PRIMITIVES[name]
    got = numlir.tree_util.tree_leaves(numlir.jit(fun)(numlir.device_put(x, gpu)))
    want = numlir.tree_util.tree_leaves(numlir.jit(fun, backend="cpu")(x))
    for g, w in zip(got, want):
        assert g.devices() == {gpu}
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=2e-5, atol=2e-5)


def test_convolution_on_the_gpu_matches_the_cpu_backend(gpu):
    rng = np.random.default_rng(1)
    x, k = rng.standard_normal((2, 16, 16, 8)), rng.standard_normal((3, 3, 8, 4))
    x, k = x.astype(np.float32), k.astype(np.float32)
    conv = lambda x, k: lax.conv_general_dilated(  # noqa: E731
        x, k, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
    got = numlir.jit(conv)(numlir.device_put(x, gpu), numlir.device_put(k, gpu))
    np.testing.assert_allclose(np.asarray(got), np.asarray(numlir.jit(conv, backend="cpu")(x, k)),
                               rtol=1e-4, atol=1e-4)


def test_an_mlp_training_step_on_the_gpu_matches_the_cpu_backend(gpu):
    rng = np.random.default_rng(2)
    params = [rng.standard_normal((784, 512)).astype(np.float32) * 0.05,
              rng.standard_normal((512, 10)).astype(np.float32) * 0.05]
    x = rng.standard_normal((256, 784)).astype(np.float32)
    y = rng.integers(0, 10, 256)

    def step(params, x, y):
        def loss(params):
            logits = numlir.nn.relu(x @ params[0]) @ params[1]
            return -jnp.mean(numlir.nn.log_softmax(logits)[jnp.arange(256), y])
        value, grads = numlir.value_and_grad(loss)(params)
        return value, [p - 0.1 * g for p, g in zip(params, grads)]

    on_gpu = numlir.device_put((params, x, y), gpu)
    got = numlir.tree_util.tree_leaves(numlir.jit(step)(*on_gpu))
    want = numlir.tree_util.tree_leaves(numlir.jit(step, backend="cpu")(params, x, y))
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-4, atol=1e-5)
