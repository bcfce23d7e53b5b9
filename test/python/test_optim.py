"""numlir.optim gives Optax's updates, states, schedules and losses on the same inputs.

Every optimizer runs several steps from the same parameters and gradients in numlir
(eagerly and with the update under numlir.jit) and in optax on jax; parameters must
agree after each step.
"""

import jax
import jax.numpy as jjnp
import numpy as np
import optax
import pytest

import numlir
import numlir.numpy as jnp
import numlir.optim as nopt
from numlir import tree_util

RNG = np.random.default_rng(11)
PARAMS = {"w": RNG.normal(size=(3, 4)).astype(np.float32),
          "b": RNG.normal(size=(4,)).astype(np.float32)}
GRADS = [{k: RNG.normal(size=v.shape).astype(np.float32) for k, v in PARAMS.items()}
         for _ in range(5)]
MASK = {"w": True, "b": False}


def _pairs(lib):
    """(name, optimizer) for one library; lib is optax or numlir.optim."""
    return {
        "sgd": lib.sgd(0.1),
        "sgd_momentum": lib.sgd(0.1, momentum=0.9),
        "sgd_nesterov": lib.sgd(0.1, momentum=0.9, nesterov=True),
        "adam": lib.adam(1e-2),
        "adam_nesterov": lib.adam(1e-2, nesterov=True),
        "adam_eps_root": lib.adam(1e-2, b1=0.5, b2=0.9, eps_root=1e-8),
        "adamw": lib.adamw(1e-2, weight_decay=0.1),
        "adamw_masked": lib.adamw(1e-2, weight_decay=0.1, mask=MASK),
        "rmsprop": lib.rmsprop(1e-2),
        "rmsprop_momentum": lib.rmsprop(1e-2, momentum=0.5, nesterov=True),
        "rmsprop_torch_style": lib.rmsprop(1e-2, eps_in_sqrt=False, bias_correction=True),
        "rmsprop_centered": lib.rmsprop(1e-2, centered=True),
        "rmsprop_centered_momentum": lib.rmsprop(1e-2, decay=0.8, centered=True, momentum=0.5),
        "rmsprop_centered_torch_style": lib.rmsprop(1e-2, centered=True, eps_in_sqrt=False,
                                                    bias_correction=True, initial_scale=0.1),
        "adagrad": lib.adagrad(0.1),
        "lamb": lib.lamb(1e-2, weight_decay=0.01),
        "clipped_adam": lib.chain(lib.clip_by_global_norm(1.0), lib.adam(1e-2)),
        "clipped_sgd": lib.chain(lib.clip(0.5), lib.sgd(0.1)),
        "scheduled_adam": lib.adam(lib.exponential_decay(1e-2, 2, 0.5)),
        "warmup_cosine_sgd": lib.sgd(lib.warmup_cosine_decay_schedule(0.0, 0.1, 2, 5)),
        "multi_transform": lib.multi_transform({"fast": lib.sgd(0.1), "slow": lib.adam(1e-3)},
                                               {"w": "fast", "b": "slow"}),
        "masked_decay": lib.chain(lib.masked(lib.add_decayed_weights(0.5), MASK), lib.sgd(0.1)),
        "decayed_sgd": lib.chain(lib.add_decayed_weights(0.3), lib.sgd(0.1)),
        "scheduled_scale": lib.chain(lib.scale_by_schedule(lib.linear_schedule(1.0, 0.2, 4)),
                                     lib.scale(-0.1)),
        "adam_bf16_mu": lib.adam(1e-2, mu_dtype="bfloat16"),
        # optax's order: mu_dtype comes before weight_decay and mask, positionally too.
        "adamw_positional": lib.adamw(1e-2, 0.8, 0.95, 1e-7, 0.0, None, 0.2, MASK),
        "sgd_bf16_accumulator": lib.sgd(0.1, 0.9, False, "bfloat16"),
    }


NAMES = list(_pairs(nopt))


def _optax_run(opt):
    params = jax.tree.map(jjnp.asarray, PARAMS)
    state = opt.init(params)
    history = []
    for g in GRADS:
        updates, state = opt.update(jax.tree.map(jjnp.asarray, g), state, params)
        params = optax.apply_updates(params, updates)
        history.append(jax.tree.map(np.asarray, params))
    return history, state


def _numlir_run(opt, jit: bool):
    params = tree_util.tree_map(jnp.asarray, PARAMS)
    state = opt.init(params)

    def step(g, state, params):
        updates, state = opt.update(g, state, params)
        return nopt.apply_updates(params, updates), state

    step = numlir.jit(step) if jit else step
    history = []
    for g in GRADS:
        params, state = step(g, state, params)
        history.append(tree_util.tree_map(np.asarray, params))
    return history, state


@pytest.mark.parametrize("jit", [False, True], ids=["eager", "jit"])
@pytest.mark.parametrize("name", NAMES)
def test_optimizer_steps_match_optax(name, jit):
    want, want_state = _optax_run(_pairs(optax)[name])
    got, got_state = _numlir_run(_pairs(nopt)[name], jit)
    for step, (g, w) in enumerate(zip(got, want)):
        for key in PARAMS:
            np.testing.assert_allclose(g[key], w[key], rtol=2e-5, atol=2e-6,
                                       err_msg=f"{name}, step {step}, {key}")
    got_leaves = [np.asarray(x) for x in tree_util.tree_leaves(got_state)]
    want_leaves = [np.asarray(x) for x in jax.tree.leaves(want_state)]
    assert len(got_leaves) == len(want_leaves)
    for g, w in zip(got_leaves, want_leaves):
        assert g.shape == w.shape and g.dtype == w.dtype
        np.testing.assert_allclose(g, w, rtol=2e-5, atol=2e-6)


def test_state_types_have_optax_names_and_fields():
    state = nopt.adam(1e-3).init(PARAMS)
    assert type(state[0]).__name__ == "ScaleByAdamState"
    assert state[0]._fields == optax.ScaleByAdamState._fields
    assert nopt.GradientTransformation._fields == ("init", "update")


SCHEDULES = {
    "constant": lambda lib: lib.constant_schedule(0.3),
    "linear": lambda lib: lib.linear_schedule(1.0, 0.1, 7, transition_begin=2),
    "exponential": lambda lib: lib.exponential_decay(1.0, 3, 0.5, transition_begin=1),
    "exponential_staircase_floor": lambda lib: lib.exponential_decay(1.0, 3, 0.5, staircase=True,
                                                                     end_value=0.2),
    "exponential_growth_ceiling": lambda lib: lib.exponential_decay(0.1, 2, 2.0, end_value=1.0),
    "cosine": lambda lib: lib.cosine_decay_schedule(1.0, 8, alpha=0.1, exponent=2.0),
    "warmup_cosine": lambda lib: lib.warmup_cosine_decay_schedule(0.0, 1.0, 3, 10, end_value=0.05),
    "warmup_exponential": lambda lib: lib.warmup_exponential_decay_schedule(0.0, 1.0, 2, 3, 0.7),
    "joined": lambda lib: lib.join_schedules([lib.constant_schedule(1.0),
                                              lib.linear_schedule(1.0, 0.0, 4)], [3]),
}


@pytest.mark.parametrize("name", list(SCHEDULES))
def test_schedules_match_optax(name):
    got_fn, want_fn = SCHEDULES[name](nopt), SCHEDULES[name](optax)
    for count in range(14):
        got = float(got_fn(jnp.asarray(count, jnp.int32)))
        want = float(want_fn(jjnp.asarray(count, jjnp.int32)))
        assert got == pytest.approx(want, rel=1e-6, abs=1e-7), (name, count)
    jitted = numlir.jit(got_fn)
    assert float(jitted(jnp.asarray(5, jnp.int32))) == pytest.approx(float(want_fn(5)), rel=1e-6)


LOGITS = RNG.normal(size=(6, 5)).astype(np.float32) * 3
PROBS = np.asarray(jax.nn.softmax(RNG.normal(size=(6, 5)).astype(np.float32)))
INT_LABELS = RNG.integers(0, 5, size=(6,)).astype(np.int32)
BINARY = (RNG.random((6, 5)) > 0.5).astype(np.float32)
TARGETS = RNG.normal(size=(6, 5)).astype(np.float32) * 2

LOSSES = {
    "softmax_cross_entropy": (PROBS,),
    "softmax_cross_entropy_with_integer_labels": (INT_LABELS,),
    "sigmoid_binary_cross_entropy": (BINARY,),
    "l2_loss": (TARGETS,),
    "huber_loss": (TARGETS,),
}


@pytest.mark.parametrize("name", list(LOSSES))
def test_losses_and_their_gradients_match_optax(name):
    extra = LOSSES[name]
    got_fn, want_fn = getattr(nopt, name), getattr(optax, name)
    np.testing.assert_allclose(np.asarray(got_fn(LOGITS, *extra)),
                               np.asarray(want_fn(LOGITS, *extra)), rtol=1e-5, atol=1e-6)
    got_grad = numlir.grad(lambda x: jnp.sum(got_fn(x, *extra)))(LOGITS)
    want_grad = jax.grad(lambda x: jjnp.sum(want_fn(x, *extra)))(LOGITS)
    np.testing.assert_allclose(np.asarray(got_grad), np.asarray(want_grad), rtol=1e-5, atol=1e-6)
    assert getattr(nopt.losses, name) is got_fn


def test_huber_loss_delta_and_l2_without_targets():
    np.testing.assert_allclose(np.asarray(nopt.huber_loss(LOGITS, TARGETS, delta=0.5)),
                               np.asarray(optax.huber_loss(LOGITS, TARGETS, delta=0.5)), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(nopt.l2_loss(LOGITS)), np.asarray(optax.l2_loss(LOGITS)),
                               rtol=1e-6)


def test_multi_transform_rejects_unknown_labels():
    opt = nopt.multi_transform({"a": nopt.sgd(0.1)}, {"w": "a", "b": "zzz"})
    with pytest.raises(ValueError, match="zzz"):
        opt.init(PARAMS)


def test_weight_decay_needs_params():
    opt = nopt.adamw(1e-3)
    state = opt.init(PARAMS)
    with pytest.raises(ValueError, match="needs the params"):
        opt.update(GRADS[0], state)


def test_a_training_loop_reduces_a_quadratic():
    target = jnp.asarray(np.arange(4, dtype=np.float32))
    opt = nopt.adam(0.1)
    params = jnp.zeros(4)
    state = opt.init(params)

    @numlir.jit
    def step(params, state):
        loss, grads = numlir.value_and_grad(lambda p: jnp.sum((p - target) ** 2))(params)
        updates, state = opt.update(grads, state, params)
        return nopt.apply_updates(params, updates), state, loss

    losses = []
    for _ in range(100):
        params, state, loss = step(params, state)
        losses.append(float(loss))
    assert losses[-1] < 1e-2 * losses[0]


@pytest.mark.parametrize("where_shape", ["per_logit", "per_example"])
@pytest.mark.parametrize("name", ["softmax_cross_entropy",
                                  "softmax_cross_entropy_with_integer_labels"])
def test_cross_entropy_where_matches_optax(name, where_shape):
    where = RNG.random((6, 5)) > 0.3
    where[np.arange(6), INT_LABELS] = True  # the label's own logit always counts
    where[2] = False  # an example left out entirely
    if where_shape == "per_example":
        where = where.any(axis=1) & (np.arange(6) != 4)
    extra = LOSSES[name]
    got_fn, want_fn = getattr(nopt, name), getattr(optax, name)
    got = got_fn(LOGITS, *extra, where=jnp.asarray(where))
    want = want_fn(LOGITS, *extra, where=jjnp.asarray(where))
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5, atol=1e-6)
    got_grad = numlir.grad(lambda x: jnp.sum(got_fn(x, *extra, where=jnp.asarray(where))))(LOGITS)
    want_grad = jax.grad(lambda x: jjnp.sum(want_fn(x, *extra, where=jjnp.asarray(where))))(LOGITS)
    np.testing.assert_allclose(np.asarray(got_grad), np.asarray(want_grad), rtol=1e-5, atol=1e-6)


def _tagged_decay(lib):
    """A transformation that takes an extra argument shaped like the params: each update
    is decayed by its parameter's tag."""
    base = lib.GradientTransformationExtraArgs if hasattr(lib, "GradientTransformationExtraArgs") \
        else optax.GradientTransformationExtraArgs
    tree_map = tree_util.tree_map if lib is nopt else jax.tree.map

    def update(updates, state, params=None, *, tags):
        return tree_map(lambda u, t: u * t, updates, tags), state

    return base(lambda params: lib.EmptyState(), update)


@pytest.mark.parametrize("compatible", [False, True])
def test_extra_update_arguments_reach_masked_parts_as_in_optax(compatible):
    tags = {"w": np.full((3, 4), 0.5, np.float32), "b": np.full((4,), 2.0, np.float32)}
    results = []
    for lib, asarray in ((nopt, jnp.asarray), (optax, jjnp.asarray)):
        if compatible:
            opt = lib.chain(lib.masked(_tagged_decay(lib), MASK, mask_compatible_extra_args=True),
                            lib.sgd(0.1))
        else:
            # Without masking, the tags keep the params' structure, which the inner
            # transformation then sees in full: pass it only a tree that fits.
            opt = lib.chain(_tagged_decay(lib), lib.sgd(0.1))
        params = {k: asarray(v) for k, v in PARAMS.items()}
        state = opt.init(params)
        updates, _ = opt.update({k: asarray(v) for k, v in GRADS[0].items()}, state, params,
                                tags={k: asarray(v) for k, v in tags.items()})
        results.append({k: np.asarray(v) for k, v in updates.items()})
    for key in PARAMS:
        np.testing.assert_allclose(results[0][key], results[1][key], rtol=1e-6)


def test_transformations_without_extra_arguments_ignore_them_in_a_chain():
    opt = nopt.chain(nopt.clip(1.0), nopt.sgd(0.1))
    state = opt.init(PARAMS)
    with_extra, _ = opt.update(GRADS[0], state, PARAMS, value=jnp.asarray(3.0))
    without, _ = opt.update(GRADS[0], state, PARAMS)
    for key in PARAMS:
        np.testing.assert_array_equal(np.asarray(with_extra[key]), np.asarray(without[key]))


def test_moment_dtypes_are_kept_as_optax_keeps_them():
    state = nopt.adam(1e-2, mu_dtype=jnp.bfloat16).init(PARAMS)
    assert state[0].mu["w"].dtype == jnp.bfloat16 and state[0].nu["w"].dtype == np.float32
    _, state = nopt.adam(1e-2, mu_dtype=jnp.bfloat16).update(GRADS[0], state, PARAMS)
    assert state[0].mu["w"].dtype == jnp.bfloat16
    trace_state = nopt.sgd(0.1, momentum=0.9, accumulator_dtype=np.float64).init(PARAMS)
    # float64 is float32 without x64, as optax's canonicalize_dtype makes it.
    assert trace_state[0].trace["w"].dtype == np.float32


def test_scale_by_learning_rate_none_leaves_the_updates_as_optax():
    opt = nopt.scale_by_learning_rate(None)
    updates, _ = opt.update(GRADS[0], opt.init(PARAMS))
    want, _ = optax.scale_by_learning_rate(None).update(GRADS[0], optax.EmptyState())
    for key in PARAMS:
        np.testing.assert_array_equal(np.asarray(updates[key]), np.asarray(want[key]))
