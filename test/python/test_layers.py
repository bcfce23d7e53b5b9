"""numlir.layers names parameters as Haiku does and computes what Haiku computes.

Each model is written once against a Haiku-like module ``hk`` and run with dm-haiku
and with numlir.layers: ``init`` must give the same parameter names and shapes, and
``apply`` with Haiku's parameters must give Haiku's outputs.
"""

import haiku
import jax
import numpy as np
import pytest

import numlir
import numlir.layers as nl

RNG = np.random.default_rng(5)
X = RNG.normal(size=(2, 4)).astype(np.float32)


def _models(hk, relu):
    class Block(hk.Module):
        def __init__(self, name=None):
            super().__init__(name=name)
            self.proj = hk.Linear(3)  # created in __init__: block/~/linear

        def __call__(self, x):
            h = relu(self.proj(x))
            h = hk.Linear(3)(h) + hk.Linear(3)(h)  # in __call__: block/linear, block/linear_1
            return self.head(h)

        def head(self, h):
            return hk.Linear(2, name="out")(h)  # in another method: block/~head/out

    class Deeper(Block):
        def __init__(self):
            super().__init__(name="deeper")
            self.extra = hk.Linear(4)

        def __call__(self, x):
            return super().__call__(self.extra(x))

    class Shared(hk.Module):
        def __call__(self, x):
            return hk.Linear(4)(x)

    def mlp(x):
        return hk.nets.MLP([5, 3], activate_final=True)(x)

    def two_top_level_linears(x):
        return hk.Linear(3)(x) * hk.Linear(3)(x)

    def block(x):
        return Block()(x) + Block()(x)  # block and block_1

    def subclass(x):
        return Deeper()(x)

    def called_twice_shares_parameters(x):
        m = Shared()
        return m(m(x))

    def explicit_numbers(x):
        a = hk.Linear(3, name="linear_3")(x)
        b = hk.Linear(3)(x)  # linear_4: counting continues after the explicit number
        c = hk.Linear(3, name="dense")(x)
        return a + b + c

    def sequential_and_flatten(x):
        seq = hk.Sequential([hk.Linear(6), relu, hk.Linear(2)])
        return hk.Flatten()(seq(x)[:, None, :])

    def top_level_parameter(x):
        w = hk.get_parameter("scale", [4], init=hk.initializers.Constant(2.0))
        return x * w

    def mlp_without_bias(x):
        return hk.nets.MLP([3, 3], with_bias=False, name="encoder")(x)

    return {name: fn for name, fn in locals().items() if callable(fn) and not isinstance(fn, type)}


NAMES = list(_models(nl, numlir.nn.relu))


def _shapes(params):
    return {m: {n: tuple(v.shape) for n, v in p.items()} for m, p in params.items()}


def _host(tree):
    return {m: {n: np.asarray(v) for n, v in p.items()} for m, p in tree.items()}


def _check_against_haiku(model_fn, inputs, jit: bool, seed: int, tol: float):
    """Same parameter names and shapes from init; Haiku's outputs from apply with Haiku's
    parameters (eagerly or under numlir.jit)."""
    ours, theirs = nl.transform(model_fn(nl)), haiku.transform(model_fn(haiku))
    params = theirs.init(jax.random.PRNGKey(seed), inputs)
    assert _shapes(ours.init(numlir.random.PRNGKey(seed), inputs)) == _shapes(params)
    want = np.asarray(theirs.apply(params, None, inputs))
    apply = numlir.jit(ours.apply) if jit else ours.apply
    np.testing.assert_allclose(np.asarray(apply(_host(params), None, inputs)), want, rtol=tol,
                               atol=tol)


@pytest.mark.parametrize("name", NAMES)
def test_parameter_names_and_shapes_match_haiku(name):
    ours = nl.transform(_models(nl, numlir.nn.relu)[name])
    theirs = haiku.transform(_models(haiku, jax.nn.relu)[name])
    got = ours.init(numlir.random.PRNGKey(0), X)
    want = theirs.init(jax.random.PRNGKey(0), X)
    assert _shapes(got) == _shapes(want)


@pytest.mark.parametrize("jit", [False, True], ids=["eager", "jit"])
@pytest.mark.parametrize("name", NAMES)
def test_apply_with_haiku_parameters_matches_haiku(name, jit):
    relu = {nl: numlir.nn.relu, haiku: jax.nn.relu}
    _check_against_haiku(lambda hk: _models(hk, relu[hk])[name], X, jit, 1, 1e-5)


def test_linear_default_initializer_has_haikus_scale():
    params = nl.transform(lambda x: nl.Linear(256)(x)).init(numlir.random.PRNGKey(3),
                                                            np.ones((1, 400), np.float32))
    w = np.asarray(params["linear"]["w"])
    # Truncated normal with stddev 1/sqrt(400): sample std about 0.05 * 0.88, within 2 stddevs.
    assert abs(w.std() - 0.05 * 0.8796) < 0.003 and np.abs(w).max() <= 0.1 + 1e-6
    np.testing.assert_array_equal(np.asarray(params["linear"]["b"]), 0.0)


def test_init_is_deterministic_in_the_key_and_differs_across_keys():
    model = nl.transform(_models(nl, numlir.nn.relu)["mlp"])
    a = model.init(numlir.random.PRNGKey(0), X)
    b = model.init(numlir.random.PRNGKey(0), X)
    c = model.init(numlir.random.PRNGKey(1), X)
    w = lambda p: np.asarray(p["mlp/~/linear_0"]["w"])  # noqa: E731
    np.testing.assert_array_equal(w(a), w(b))
    assert not np.array_equal(w(a), w(c))


def test_state_is_read_and_written():
    def counter(x):
        count = nl.get_state("count", [], np.int32, init=lambda s, d: np.zeros(s, d))
        nl.set_state("count", count + 1)
        return x + count

    model = nl.transform_with_state(counter)
    params, state = model.init(None, X)
    assert params == {} and int(state["~"]["count"]) == 0
    out, state = model.apply(params, state, None, X)
    out, state = model.apply(params, state, None, X)
    assert int(state["~"]["count"]) == 2
    np.testing.assert_allclose(np.asarray(out), X + 1)


def test_errors_name_the_problem():
    with pytest.raises(ValueError, match="part of a numlir.layers.transform"):
        nl.Linear(3)
    model = nl.transform(lambda x: nl.Linear(3)(x))
    with pytest.raises(ValueError, match="Unable to retrieve parameter 'w' for module 'linear'"):
        model.apply({}, None, X)
    params = model.init(numlir.random.PRNGKey(0), X)
    with pytest.raises(ValueError, match=r"linear/w has shape \(4, 3\)"):
        model.apply(params, None, np.ones((2, 5), np.float32))
    with pytest.raises(ValueError, match="next_rng_key needs an rng"):
        model.init(None, X)
    with pytest.raises(ValueError, match="uses state"):
        nl.transform(lambda x: nl.get_state("s", [], init=np.zeros)).init(None, X)


def test_without_apply_rng_and_jitted_training_step():
    model = nl.without_apply_rng(nl.transform(lambda x: nl.nets.MLP([8, 1])(x)))
    params = model.init(numlir.random.PRNGKey(0), X)
    y = np.ones((2, 1), np.float32)

    @numlir.jit
    def step(params):
        loss, grads = numlir.value_and_grad(
            lambda p: numlir.numpy.mean((model.apply(p, X) - y) ** 2))(params)
        return numlir.tree_util.tree_map(lambda p, g: p - 0.1 * g, params, grads), loss

    losses = []
    for _ in range(30):
        params, loss = step(params)
        losses.append(float(loss))
    assert losses[-1] < 0.1 * losses[0]


def _conv_models(hk, relu):
    def conv_stack(x):  # the DCGAN discriminator's shape of layers
        h = relu(hk.Conv2D(8, 5, stride=2)(x))
        h = relu(hk.Conv2D(16, 3, stride=1, padding="VALID", rate=2)(h))
        return hk.Conv2D(4, (1, 3), with_bias=False)(h)

    def transposed(x):  # the DCGAN generator's
        h = relu(hk.Conv2DTranspose(6, 5, stride=2)(x))
        return hk.Conv2DTranspose(2, 3, stride=2, padding="VALID")(h)

    def transposed_to_output_shape(x):
        a = hk.Conv2DTranspose(3, 4, stride=2, output_shape=(15, 16), padding="SAME")(x)
        b = hk.Conv2DTranspose(3, 3, stride=2, output_shape=17, padding="VALID")(x)
        return a.sum() + b.sum(axis=(1, 2))

    def one_d(x):
        seq = x.reshape(x.shape[0], x.shape[1] * x.shape[2], x.shape[3])
        return hk.Conv1DTranspose(3, 2, stride=2)(hk.Conv1D(5, 3, feature_group_count=1)(seq))

    def grouped_and_nchw(x):
        h = hk.Conv2D(4, 3, feature_group_count=2)(x)
        return hk.Conv2D(2, 3, data_format="NCHW")(h.transpose(0, 3, 1, 2))

    def layer_norms(x):
        a = hk.LayerNorm(axis=-1, create_scale=True, create_offset=True)(x)
        b = hk.LayerNorm(axis=(1, 2, 3), create_scale=True, create_offset=False, param_axis=-1)(x)
        c = hk.LayerNorm(axis=-1, create_scale=False, create_offset=False, use_fast_variance=True)(x)
        return a + b + c

    def pools(x):
        outs = [hk.max_pool(x, 2, 2, "SAME"), hk.avg_pool(x, 3, 2, "SAME"),
                hk.MaxPool((3, 3, 1), (1, 2, 1), "VALID")(x), hk.AvgPool((2, 2, 1), 1, "VALID")(x),
                hk.max_pool(x, (2, 2, 1), (2, 2, 1), "VALID", channel_axis=None)]
        return sum(o.reshape(o.shape[0], -1)[:, :64] for o in outs)

    def embed(x):
        ids = (x[..., 0] > 0).astype("int32") + 2 * (x[..., 1] > 0).astype("int32")
        e = hk.Embed(4, 3)
        return e(ids) + e(ids, lookup_style="ONE_HOT")

    return {name: fn for name, fn in locals().items() if callable(fn) and not isinstance(fn, type)}


IMAGES = RNG.normal(size=(2, 8, 8, 4)).astype(np.float32)
CONV_NAMES = list(_conv_models(nl, numlir.nn.relu))


# Under jit only: test_apply_with_haiku_parameters_matches_haiku runs the layers eagerly,
# and these networks op by op compiled each op on its own (a minute of make test).
@pytest.mark.parametrize("name", CONV_NAMES)
def test_convolutions_norms_pools_and_embeddings_match_haiku(name):
    relu = {nl: numlir.nn.relu, haiku: jax.nn.relu}
    _check_against_haiku(lambda hk: _conv_models(hk, relu[hk])[name], IMAGES, True, 2, 2e-5)


def test_dropout_keeps_the_expected_fraction_and_scales():
    x = np.ones((1000,), np.float32)
    y = np.asarray(nl.dropout(numlir.random.PRNGKey(0), 0.25, x))
    kept = y != 0
    assert 0.7 < kept.mean() < 0.8
    np.testing.assert_allclose(y[kept], 1 / 0.75, rtol=1e-6)
    assert nl.dropout(numlir.random.PRNGKey(0), 0.0, x) is x
    with pytest.raises(ValueError, match="rate"):
        nl.dropout(numlir.random.PRNGKey(0), 1.0, x)


def _batch_norm_model(hk):
    def f(x, is_training):
        h = hk.Conv2D(3, 3)(x)
        return hk.BatchNorm(True, True, decay_rate=0.9)(h, is_training)
    return f


def test_batch_norm_state_and_outputs_match_haiku():
    ours = nl.transform_with_state(_batch_norm_model(nl))
    theirs = haiku.transform_with_state(_batch_norm_model(haiku))
    params, state = theirs.init(jax.random.PRNGKey(0), IMAGES, True)
    our_params, our_state = ours.init(numlir.random.PRNGKey(0), IMAGES, True)
    assert _shapes(our_params) == _shapes(params) and _shapes(our_state) == _shapes(state)
    got_state, want_state = _host(state), state
    for step in range(3):  # training steps update the averages; then one evaluation
        batch = IMAGES * (1 + step)
        want, want_state = theirs.apply(params, want_state, None, batch, True)
        got, got_state = ours.apply(_host(params), got_state, None, batch, True)
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=2e-5, atol=2e-5)
        for m in want_state:
            for n in want_state[m]:
                np.testing.assert_allclose(np.asarray(got_state[m][n]), np.asarray(want_state[m][n]),
                                           rtol=2e-5, atol=1e-6, err_msg=f"{m}/{n} step {step}")
    want, _ = theirs.apply(params, want_state, None, IMAGES, False)
    got, _ = ours.apply(_host(params), got_state, None, IMAGES, False)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=2e-5, atol=2e-5)


def test_batch_norm_across_a_named_axis_matches_haiku_under_vmap():
    """cross_replica_axis: the statistics of every example of the vmap (pmean), as haiku's."""
    def model(hk, axis="i"):
        return lambda x: hk.BatchNorm(False, False, decay_rate=0.9, cross_replica_axis=axis)(x, True)

    ours = nl.transform_with_state(model(nl))
    theirs = haiku.transform_with_state(model(haiku))
    shards = IMAGES.reshape(2, 1, 8, 8, 4) * np.arange(1, 3, dtype=np.float32)[:, None, None, None, None]
    # the state's shapes, from a model without the axis (outside vmap it is unbound)
    _, state = haiku.transform_with_state(model(haiku, None)).init(jax.random.PRNGKey(0), shards[0])
    params = {}
    want, want_state = jax.vmap(lambda x: theirs.apply(params, state, None, x), axis_name="i")(shards)
    got, got_state = numlir.vmap(lambda x: ours.apply(params, _host(state), None, x),
                                 axis_name="i")(shards)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=2e-5, atol=2e-5)
    for m in want_state:
        for n in want_state[m]:
            np.testing.assert_allclose(np.asarray(got_state[m][n]), np.asarray(want_state[m][n]),
                                       rtol=2e-5, atol=1e-6, err_msg=f"{m}/{n}")


def _recurrent_models(hk):
    def lstm_dynamic(xs):  # xs: (T, B, F)
        core = hk.LSTM(6)
        out, state = hk.dynamic_unroll(core, xs, core.initial_state(xs.shape[1]))
        return out.sum() * 0 + out + state.cell.sum(axis=-1, keepdims=True)[None]

    def gru_batch_major_reverse(xs):
        core = hk.GRU(5)
        out, states = hk.dynamic_unroll(core, xs.swapaxes(0, 1), core.initial_state(xs.shape[1]),
                                        time_major=False, reverse=True, return_all_states=True)
        return out + states

    def lstm_dynamic_unrolled(xs):  # unroll steps per loop iteration; results do not change
        core = hk.LSTM(5)
        out, state = hk.dynamic_unroll(core, xs, core.initial_state(xs.shape[1]), unroll=3)
        return out + state.hidden[None]

    def lstm_static(xs):
        core = hk.LSTM(4)
        out, state = hk.static_unroll(core, xs, core.initial_state(xs.shape[1]))
        return out + state.hidden[None]

    return {name: fn for name, fn in locals().items() if callable(fn)}


SEQUENCE = RNG.normal(size=(7, 3, 4)).astype(np.float32)


@pytest.mark.parametrize("name", list(_recurrent_models(nl)))
def test_recurrent_cores_and_unrolls_match_haiku(name):  # under jit only, as the convolutions
    _check_against_haiku(lambda hk: _recurrent_models(hk)[name], SEQUENCE, True, 4, 2e-5)


def test_transform_rejects_apply_rng_false_as_haiku_does():
    for lib in (nl, haiku):
        with pytest.raises(ValueError, match="apply_rng.*without_apply_rng"):
            lib.transform(lambda x: x, apply_rng=False)
        assert isinstance(lib.transform(lambda x: x, apply_rng=True), lib.Transformed)


def test_without_apply_rng_takes_haikus_keyword():
    for lib in (nl, haiku):
        model = lib.without_apply_rng(f=lib.transform_with_state(lambda x: x + 1))
        out, _ = model.apply({}, {}, np.float32(1.0))
        assert float(out) == 2.0


def test_get_parameter_dtype_none_means_float32_as_in_haiku():
    for lib, key in ((nl, numlir.random.PRNGKey(0)), (haiku, jax.random.PRNGKey(0))):
        seen = []

        def init(shape, dtype):
            seen.append(np.dtype(dtype))
            return np.zeros(shape, dtype)

        def f():
            lib.get_parameter("w", [2], init=init)
            lib.get_parameter("v", [2], None, init=init)

        params = lib.transform(f).init(key)
        assert seen == [np.float32, np.float32]
        assert params["~"]["w"].dtype == params["~"]["v"].dtype == np.float32


INITIALIZERS = {  # name: (make(initializers module), shape)
    "truncated_normal_cut": (lambda i: i.TruncatedNormal(2.0, 1.0, lower=-1.0, upper=0.5),
                             (3, 4, 5)),
    "truncated_normal_one_sided": (lambda i: i.TruncatedNormal(lower=0.0, upper=3.0), (50,)),
    "variance_scaling_fan_in_axes": (
        lambda i: i.VarianceScaling(2.0, "fan_in", "truncated_normal", fan_in_axes=(0,)),
        (3, 4, 5)),
    "variance_scaling_fan_out_axes": (
        lambda i: i.VarianceScaling(1.0, "fan_out", "uniform", fan_in_axes=(2,)), (3, 4, 5)),
    "variance_scaling_fan_avg_axes": (
        lambda i: i.VarianceScaling(0.5, "fan_avg", "Normal", fan_in_axes=(2,)), (3, 4, 6)),
    # rank 2: haiku ignores fan_in_axes (rows are the fan in)
    "variance_scaling_rank_2": (lambda i: i.VarianceScaling(fan_in_axes=(1,)), (6, 2)),
}


@pytest.mark.parametrize("name", list(INITIALIZERS))
def test_initializers_draw_what_haiku_draws_from_the_same_key(name):
    make, shape = INITIALIZERS[name]
    want = haiku.transform(lambda: haiku.get_parameter("w", shape, init=make(haiku.initializers)))
    got = nl.transform(lambda: nl.get_parameter("w", shape, init=make(nl.initializers)))
    want = np.asarray(want.init(jax.random.PRNGKey(7))["~"]["w"])
    np.testing.assert_allclose(np.asarray(got.init(numlir.random.PRNGKey(7))["~"]["w"]), want,
                               rtol=1e-5, atol=1e-6)


def test_embed_precision_reaches_the_one_hot_product(monkeypatch):
    ids = np.array([[0, 3], [2, 1]], np.int32)

    def model(hk, lax):
        def f(ids):
            e = hk.Embed(4, 3, lookup_style="ONE_HOT", precision=lax.Precision.DEFAULT)
            return e(ids) + e(ids, precision=lax.Precision.HIGH) + e(ids, "ARRAY_INDEX")
        return f

    theirs = haiku.transform(model(haiku, jax.lax))
    params = theirs.init(jax.random.PRNGKey(0), ids)
    seen = []
    dot = numlir.lax.dot

    def spy(lhs, rhs, precision=None, preferred_element_type=None):
        seen.append(precision)
        return dot(lhs, rhs, precision, preferred_element_type)

    monkeypatch.setattr(numlir.lax, "dot", spy)
    got = nl.transform(model(nl, numlir.lax)).apply(_host(params), None, ids)
    np.testing.assert_allclose(np.asarray(got), np.asarray(theirs.apply(params, None, ids)),
                               rtol=1e-6)
    assert seen == [numlir.lax.Precision.DEFAULT, numlir.lax.Precision.HIGH]
    default = nl.transform(lambda: nl.Embed(4, 3).precision).apply({}, None)
    assert default is numlir.lax.Precision.HIGHEST  # haiku's default


def test_mlp_dropout_matches_haiku_and_needs_an_rng_exactly_when_used():
    def model(hk):
        return lambda x, key: hk.nets.MLP([8, 8, 3], activate_final=True)(x, dropout_rate=0.4,
                                                                           rng=key)

    theirs = haiku.transform(model(haiku))
    params = theirs.init(jax.random.PRNGKey(0), X, jax.random.PRNGKey(1))
    want = theirs.apply(params, None, X, jax.random.PRNGKey(2))
    got = nl.transform(model(nl)).apply(_host(params), None, X, numlir.random.PRNGKey(2))
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5, atol=1e-6)
    for kwargs, message in (({"dropout_rate": 0.5}, "rng key must be passed"),
                            ({"rng": numlir.random.PRNGKey(0)}, "only be passed when using")):
        with pytest.raises(ValueError, match=message):
            nl.transform(lambda x: nl.nets.MLP([2])(x, **kwargs)).init(numlir.random.PRNGKey(0), X)



LAYER_NORM_AXES = {  # name -> LayerNorm keywords; the input is 3-d
    "list": dict(axis=[1, 2]), "tuple": dict(axis=(1, 2)), "slice": dict(axis=slice(1, None)),
    "unsorted": dict(axis=[2, 1]), "repeated": dict(axis=[1, -2]), "all": dict(axis=[0, 1, 2]),
    "list_with_param_axes": dict(axis=[1, 2], param_axis=[1, 2]),
    "int_with_param_slice": dict(axis=0, param_axis=slice(0, 2)),
    "last_with_param_tuple": dict(axis=-1, param_axis=(0, -1)),
    "scale_only": dict(axis=[0, 2], create_offset=False),
}


@pytest.mark.parametrize("name", list(LAYER_NORM_AXES))
def test_layer_norm_accepts_a_list_of_axes_like_haiku(name):
    # hk.LayerNorm(axis=[1, 2], create_scale=True) normalizes over both axes with parameters
    # of the last axis's size; numlir raised, asking for param_axis. Checked: parameter
    # shapes from init, and outputs with the same (non-trivial) parameters.
    kwargs = {"create_scale": True, "create_offset": True, **LAYER_NORM_AXES[name]}
    x = RNG.normal(size=(2, 3, 4)).astype(np.float32) * 3 + 1
    ours = nl.transform(lambda v: nl.LayerNorm(**kwargs)(v))
    theirs = haiku.transform(lambda v: haiku.LayerNorm(**kwargs)(v))
    params = theirs.init(jax.random.PRNGKey(0), x)
    assert _shapes(ours.init(numlir.random.PRNGKey(0), x)) == _shapes(params)
    params = {m: {n: RNG.normal(size=v.shape).astype(np.float32) for n, v in p.items()}
              for m, p in params.items()}
    np.testing.assert_allclose(np.asarray(ours.apply(params, None, x)),
                               np.asarray(theirs.apply(params, None, x)), rtol=1e-5, atol=1e-5)


def test_layer_norm_rejects_what_haiku_rejects_when_built():
    for axis in (np.int64(1), [1, 2.0], "1"):
        for lib, transform in ((nl, nl.transform), (haiku, haiku.transform)):
            model = transform(lambda v, lib=lib, axis=axis: lib.LayerNorm(axis, True, True)(v))
            with pytest.raises(ValueError, match="should be an int, slice or iterable of ints"):
                model.init(None, np.ones((2, 3), np.float32))
