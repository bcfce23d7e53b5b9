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


def _jax_mlp_example_loss(params, x, label):
    import jax
    import jax.numpy as J

    h = J.tanh(x @ params["w1"] + params["b1"])
    logits = h @ params["w2"] + params["b2"]
    return -(logits - jax.nn.logsumexp(logits))[label]


def test_per_example_gradients_match_jax():
    import jax

    example = load_example("per_example_gradients")
    (x, y), _ = example.load_digits()
    x, y = x[:16], y[:16]
    params = {k: np.asarray(v) for k, v in example.init_params(3, x.shape[1]).items()}
    got = example.per_example_grads(params, x, y)
    want = jax.vmap(jax.grad(_jax_mlp_example_loss), in_axes=(None, 0, 0))(params, x, y)
    for k in params:
        assert got[k].shape == (16,) + params[k].shape
        np.testing.assert_allclose(np.asarray(got[k]), np.asarray(want[k]), rtol=1e-4, atol=1e-6)
    norms = np.sqrt(sum((np.asarray(want[k]).reshape(16, -1) ** 2).sum(1) for k in params))
    np.testing.assert_allclose(np.asarray(example.global_norms(got)), norms, rtol=1e-4)


def test_per_example_clipped_sgd_learns():
    example = load_example("per_example_gradients")
    assert example.main(steps=150) > 0.85


def test_hessian_vector_product_matches_jax():
    import jax
    import jax.numpy as J

    example = load_example("hessian_vector_product")
    (x, y), _ = example.load_digits()
    x, y = x[:50], y[:50]
    rng = np.random.default_rng(0)
    w = rng.normal(size=x.shape[1] * 10).astype(np.float32) * 0.1
    v = rng.normal(size=w.shape).astype(np.float32)

    def jax_loss(w):
        logits = x @ w.reshape(x.shape[1], 10)
        logp = logits - jax.nn.logsumexp(logits, axis=1, keepdims=True)
        return -J.mean(J.take_along_axis(logp, y[:, None], axis=1)) + 0.5 * 1e-3 * J.sum(w * w)

    want = jax.jvp(jax.grad(jax_loss), (w,), (v,))[1]
    loss = lambda w: example.softmax_loss(w, x, y)  # noqa: E731
    np.testing.assert_allclose(np.asarray(example.hvp(loss, w, v)), want, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(np.asarray(example.hvp_reverse_over_reverse(loss, w, v)), want,
                               rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(np.asarray(jax.hessian(jax_loss)(w) @ v), want, rtol=1e-4, atol=1e-5)


def test_newton_cg_converges():
    example = load_example("hessian_vector_product")
    assert example.main(newton_steps=3) > 0.9


def test_mlp_classifier_on_the_digits_learns():
    example = load_example("mlp_classifier_digits")
    _, history = example.train(epochs=4)
    assert history[-1] > 0.9 and history[-1] > history[0] - 0.02


def test_karate_club_gcn_separates_the_two_clubs_from_two_labels():
    example = load_example("karate_club_gcn")
    graph = example.karate_club()
    assert graph.n_node[0] == 34 and graph.n_edge[0] == 2 * 78
    _, history = example.train(steps=100)
    assert history[-1] >= 0.85  # of 34 members, 32 of them unlabelled


def test_cartpole_policy_gradient_learns_to_balance():
    example = load_example("cartpole_policy_gradient")
    lengths = example.train(iterations=25)
    # A random policy keeps the pole up about 20 steps.
    assert lengths[0] < 40 and max(lengths[-5:]) > 3 * lengths[0], lengths


def test_cartpole_physics_matches_the_classic_equations():
    example = load_example("cartpole_policy_gradient")
    state = np.array([0.1, -0.2, 0.05, 0.3], np.float32)
    got = np.asarray(example.physics_step(state, 1))
    x, x_dot, th, th_dot = state.astype(np.float64)
    total = 1.1
    temp = (10.0 + 0.1 * 0.5 * th_dot ** 2 * np.sin(th)) / total
    th_acc = (9.8 * np.sin(th) - np.cos(th) * temp) / (0.5 * (4 / 3 - 0.1 * np.cos(th) ** 2 / total))
    x_acc = temp - 0.1 * 0.5 * th_acc * np.cos(th) / total
    want = [x + 0.02 * x_dot, x_dot + 0.02 * x_acc, th + 0.02 * th_dot, th_dot + 0.02 * th_acc]
    np.testing.assert_allclose(got, want, rtol=1e-5)
