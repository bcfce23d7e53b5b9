"""numlir.rl gives RLax's TD errors, returns, policy losses and action distributions,
values and gradients, single transitions and vmapped batches."""

import jax
import jax.numpy as jjnp
import numpy as np
import pytest
import rlax

import numlir
import numlir.numpy as jnp
import numlir.rl as nrl

RNG = np.random.default_rng(9)
F = np.float32


def _f(*shape):
    return RNG.normal(size=shape).astype(F)


B, A, T = 5, 4, 7
TRANSITIONS = {
    "td_learning": (_f(B), _f(B), RNG.uniform(0, 1, B).astype(F), _f(B)),
    "q_learning": (_f(B, A), RNG.integers(0, A, B).astype(np.int32), _f(B),
                   RNG.uniform(0, 1, B).astype(F), _f(B, A)),
    "double_q_learning": (_f(B, A), RNG.integers(0, A, B).astype(np.int32), _f(B),
                          RNG.uniform(0, 1, B).astype(F), _f(B, A), _f(B, A)),
    "sarsa": (_f(B, A), RNG.integers(0, A, B).astype(np.int32), _f(B),
              RNG.uniform(0, 1, B).astype(F), _f(B, A), RNG.integers(0, A, B).astype(np.int32)),
}


@pytest.mark.parametrize("jit", [False, True], ids=["eager", "jit"])
@pytest.mark.parametrize("name", list(TRANSITIONS))
def test_td_errors_match_rlax_under_vmap(name, jit):
    args = TRANSITIONS[name]
    want = jax.vmap(getattr(rlax, name))(*args)
    f = numlir.vmap(getattr(nrl, name))
    got = (numlir.jit(f) if jit else f)(*args)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5, atol=1e-6)


def test_q_learning_gradient_stops_at_the_target():
    q_tm1, a, r, d, q_t = TRANSITIONS["q_learning"]
    loss = lambda lib, m: lambda q0, q1: m.sum(lib.vmap(  # noqa: E731
        (nrl if lib is numlir else rlax).q_learning)(q0, a, r, d, q1) ** 2)
    got = numlir.grad(loss(numlir, jnp), argnums=(0, 1))(q_tm1, q_t)
    want = jax.grad(loss(jax, jjnp), argnums=(0, 1))(q_tm1, q_t)
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-5, atol=1e-6)
    assert not np.any(np.asarray(got[1]))


R, DISC, V, LAM = _f(T), RNG.uniform(0.5, 1, T).astype(F), _f(T), RNG.uniform(0, 1, T).astype(F)
RETURNS = {
    "lambda_returns": lambda lib: lib.lambda_returns(R, DISC, V, 0.7),
    "lambda_returns_per_step": lambda lib: lib.lambda_returns(R, DISC, V, LAM),
    "discounted_returns_scalar": lambda lib: lib.discounted_returns(R, DISC, 1.5),
    "discounted_returns_per_step": lambda lib: lib.discounted_returns(R, DISC, V),
    "n_step_3": lambda lib: lib.n_step_bootstrapped_returns(R, DISC, V, 3),
    "n_step_10_lambda": lambda lib: lib.n_step_bootstrapped_returns(R, DISC, V, 10, lambda_t=0.5),
    "td_lambda": lambda lib: lib.td_lambda(V[::-1].copy(), R, DISC, V, 0.9),
}


@pytest.mark.parametrize("name", list(RETURNS))
def test_returns_match_rlax(name):
    np.testing.assert_allclose(np.asarray(RETURNS[name](nrl)), np.asarray(RETURNS[name](rlax)),
                               rtol=1e-5, atol=1e-6)


LOGITS, ACTIONS, ADV, W = _f(T, A), RNG.integers(0, A, T).astype(np.int32), _f(T), RNG.uniform(0, 1, T).astype(F)


@pytest.mark.parametrize("name", ["policy_gradient_loss", "entropy_loss", "clipped_surrogate_pg_loss"])
def test_policy_losses_and_gradients_match_rlax(name):
    def call(lib, logits):
        if name == "policy_gradient_loss":
            return lib.policy_gradient_loss(logits, ACTIONS, ADV, W)
        if name == "entropy_loss":
            return lib.entropy_loss(logits, W)
        return lib.clipped_surrogate_pg_loss(jjnp.exp(logits[:, 0]) if lib is rlax else jnp.exp(logits[:, 0]), ADV, 0.2)

    np.testing.assert_allclose(float(call(nrl, LOGITS)), float(call(rlax, LOGITS)), rtol=1e-5)
    got = numlir.grad(lambda x: call(nrl, x))(LOGITS)
    want = jax.grad(lambda x: call(rlax, x))(LOGITS)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-4, atol=1e-6)


PREFS = np.array([[1.0, 3.0, 3.0, 0.0], [0.5, -1.0, 2.0, 1.9]], F)


@pytest.mark.parametrize("name,args", [("greedy", ()), ("epsilon_greedy", (0.2,)), ("softmax", (0.5,))])
def test_action_distributions_match_rlax(name, args):
    ours, theirs = getattr(nrl, name)(*args), getattr(rlax, name)(*args)
    np.testing.assert_allclose(np.asarray(ours.probs(PREFS)), np.asarray(theirs.probs(PREFS)), rtol=1e-6)
    sample = np.array([1, 2], np.int32)
    np.testing.assert_allclose(np.asarray(ours.logprob(sample, PREFS)),
                               np.asarray(theirs.logprob(sample, PREFS)), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(ours.entropy(PREFS)), np.asarray(theirs.entropy(PREFS)),
                               rtol=1e-5, atol=1e-6)
    draws = np.asarray(numlir.vmap(lambda k: ours.sample(k, PREFS))(
        numlir.random.split(numlir.random.PRNGKey(0), 4000)))
    freq = np.stack([(draws == a).mean(0) for a in range(4)], -1)
    np.testing.assert_allclose(freq, np.asarray(theirs.probs(PREFS)), atol=0.03)
