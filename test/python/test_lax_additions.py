"""The jax.lax functions added for the 85% coverage goal, against jax.lax: the special
functions erfc and the scaled Bessel functions, reduce_precision, mulhi, the generic
reduce, image patches and locally connected convolutions, ragged_dot, the shape
tuples and the small helpers. Values over dtypes and shapes, eager and under jit,
gradients (against jax and finite differences, in float64), vmap and errors."""

import jax
import jax.numpy as jjnp
import ml_dtypes
import numpy as np
import pytest
from jax_comparison import assert_same

import numlir
import numlir.numpy as jnp
from numlir import lax

R = np.random.default_rng(2026)


def _both(fn, *args, tol=1e-5):
    """fn(lax-like module, numpy-like module, *args) agrees with jax, eager and under jit."""
    want = fn(jax.lax, jjnp, *args)
    assert_same(fn(lax, jnp, *args), want, tol)
    assert_same(numlir.jit(lambda *a: fn(lax, jnp, *a))(*args), want, tol)


# --- erfc and the scaled Bessel functions -----------------------------------------------------

SPECIAL_POINTS = np.concatenate(
    [
        np.linspace(-40, 40, 801),
        [
            0.0,
            1e-30,
            -1e-30,
            0.999,
            1.0,
            1.001,
            1.999,
            2.0,
            2.001,
            19.999,
            20.0,
            20.001,
            300.0,
            -300.0,
            np.inf,
            -np.inf,
            np.nan,
        ],
    ]
)


@pytest.mark.parametrize("name", ["erfc", "bessel_i0e", "bessel_i1e"])
@pytest.mark.parametrize(
    "dtype, rtol", [(np.float32, 2e-6), (np.float64, 2e-14), (ml_dtypes.bfloat16, 1e-2)]
)
def test_special_functions_match_jax(name, dtype, rtol, x64):
    x = SPECIAL_POINTS.astype(dtype)
    got = np.asarray(getattr(lax, name)(x)).astype(np.float64)
    want = np.asarray(getattr(jax.lax, name)(x)).astype(np.float64)
    assert np.asarray(getattr(lax, name)(x)).dtype == x.dtype
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    tiny = np.finfo(np.float32).tiny if dtype != np.float64 else np.finfo(np.float64).tiny
    np.testing.assert_allclose(got, want, rtol=rtol, atol=tiny)
    jitted = np.asarray(numlir.jit(getattr(lax, name))(x)).astype(np.float64)
    np.testing.assert_array_equal(jitted, got)
    grid = x[:801].reshape(3, 267)  # shapes other than a vector: a matrix and a scalar
    np.testing.assert_array_equal(
        np.asarray(getattr(lax, name)(grid)).astype(np.float64), got[:801].reshape(3, 267)
    )
    assert np.asarray(getattr(lax, name)(x[5])).shape == ()


def test_erfc_is_accurate_where_one_minus_erf_cancels(x64):
    import scipy.special

    x = np.array([1.5, 3.0, 5.0, 10.0, 26.0])
    np.testing.assert_allclose(np.asarray(lax.erfc(x)), scipy.special.erfc(x), rtol=1e-14)
    assert np.asarray(lax.erfc(np.float32(8.0))) > 0  # 1 - erf(8) is exactly 0 in float32


@pytest.mark.parametrize("name", ["erfc", "bessel_i0e", "bessel_i1e"])
def test_special_function_gradients_match_jax_and_finite_differences(name, x64):
    x = np.array([-25.0, -3.2, -0.7, -1e-9, 0.0, 1e-9, 0.4, 1.5, 2.5, 19.5, 21.0, 60.0])
    f, fj = getattr(lax, name), getattr(jax.lax, name)
    got = np.asarray(numlir.vmap(numlir.grad(f))(x))
    np.testing.assert_allclose(got, np.asarray(jax.jit(jax.vmap(jax.grad(fj)))(x)), rtol=1e-12, atol=1e-15)
    h = 1e-6
    smooth = np.abs(x) > h  # i0e and i1e have a kink at 0 (|x|), where differences straddle it
    numeric = (np.asarray(f(x + h)) - np.asarray(f(x - h))) / (2 * h)
    np.testing.assert_allclose(got[smooth], numeric[smooth], rtol=1e-6, atol=1e-9)
    second = np.asarray(numlir.grad(numlir.grad(f))(0.3))
    np.testing.assert_allclose(second, np.asarray(jax.jit(jax.grad(jax.grad(fj)))(0.3)), rtol=1e-12)


def test_scipy_bessel_functions_match_jax(x64):
    x = np.linspace(-30, 30, 121)
    for name in ("i0", "i0e", "i1", "i1e"):
        got = getattr(numlir.scipy.special, name)(x)
        np.testing.assert_allclose(
            np.asarray(got),
            np.asarray(getattr(jax.scipy.special, name)(x)),
            rtol=1e-13,
            err_msg=name,
        )
    assert np.asarray(numlir.scipy.special.i0(np.arange(3))).dtype == np.float64


# --- reduce_precision ---------------------------------------------------------------------


def _random_floats(dtype, n):
    width = np.dtype(dtype).itemsize * 8
    words = R.integers(0, 2**width, n, dtype=np.uint64).astype(f"uint{width}")
    special = np.array(
        [0.0, -0.0, np.inf, -np.inf, np.nan, 65504, 65520, 6e-5, 1.0000001, 2.5, 3.5], np.float64
    )
    return np.concatenate([words.view(dtype), special.astype(dtype)])


@pytest.mark.parametrize("dtype", [np.float32, np.float64, ml_dtypes.bfloat16])
def test_reduce_precision_rounds_bit_for_bit_as_jax(dtype, x64):
    x = _random_floats(dtype, 4000)
    width = np.dtype(dtype).itemsize * 8
    src_exponent = {16: 8, 32: 8, 64: 11}[width]
    src_mantissa = {16: 7, 32: 23, 64: 52}[width]
    for e, m in ((8, 7), (5, 10), (4, 3), (5, 2), (8, 0), (1, 1), (src_exponent, src_mantissa)):
        if e > src_exponent or m > src_mantissa:
            continue
        got = np.asarray(lax.reduce_precision(x, e, m))
        want = np.asarray(jax.lax.reduce_precision(x, e, m))
        assert got.dtype == x.dtype
        # NaN stays NaN with its sign; XLA makes bfloat16 NaNs canonical, numlir keeps the payload.
        with np.errstate(invalid="ignore"):  # signaling NaNs among the random words
            nan = np.isnan(want)
            np.testing.assert_array_equal(np.isnan(got), nan)
        np.testing.assert_array_equal(np.signbit(got[nan]), np.signbit(want[nan]))
        np.testing.assert_array_equal(
            got[~nan].view(f"uint{width}"), want[~nan].view(f"uint{width}"), err_msg=f"{e}, {m}"
        )
    jitted = np.asarray(numlir.jit(lambda v: lax.reduce_precision(v, 5, 2))(x))
    np.testing.assert_array_equal(
        jitted.view(f"uint{width}"), np.asarray(lax.reduce_precision(x, 5, 2)).view(f"uint{width}")
    )


def test_reduce_precision_to_bfloat16_is_the_bfloat16_round_trip():
    x = R.standard_normal(1000).astype(np.float32) * 1e3
    np.testing.assert_array_equal(
        np.asarray(lax.reduce_precision(x, 8, 7)), x.astype(ml_dtypes.bfloat16).astype(np.float32)
    )


def test_reduce_precision_differentiates_and_batches_as_jax(x64):
    x = R.standard_normal((3, 5))
    f = lambda l: lambda v: (l.reduce_precision(v * 3.0, 5, 10) ** 2).sum()
    np.testing.assert_array_equal(
        np.asarray(numlir.grad(f(lax))(x)), np.asarray(jax.jit(jax.grad(f(jax.lax)))(x))
    )
    assert_same(
        numlir.vmap(lambda v: lax.reduce_precision(v, 8, 7))(x),
        jax.jit(jax.vmap(lambda v: jax.lax.reduce_precision(v, 8, 7)))(x),
    )
    with pytest.raises(TypeError, match="reduce_precision"):
        lax.reduce_precision(np.arange(3), 8, 7)
    with pytest.raises(ValueError, match="exponent_bits >= 1"):
        lax.reduce_precision(x, 0, 3)


# --- mulhi -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "dtype", [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64]
)
def test_mulhi_matches_jax_including_the_extremes(dtype, x64):
    info = np.iinfo(dtype)
    x = R.integers(info.min, info.max, 2000, dtype=dtype, endpoint=True)
    y = R.integers(info.min, info.max, 2000, dtype=dtype, endpoint=True)
    x[:6] = [info.min, info.max, 0, 1, info.min, info.max]
    y[:6] = [info.min, info.max, info.max, info.min, info.max, info.min]
    _both(lambda l, n, a, b: l.mulhi(a, b), x, y)
    _both(lambda l, n, b: l.mulhi(dtype(info.max), b), y[:20])


def test_mulhi_rejects_floats_and_mixed_dtypes():
    with pytest.raises(TypeError, match="mulhi"):
        lax.mulhi(np.ones(2, np.float32), np.ones(2, np.float32))
    with pytest.raises(TypeError, match="mulhi"):
        lax.mulhi(np.ones(2, np.int32), np.ones(2, np.uint32))


# --- reduce ------------------------------------------------------------------------------

X = R.standard_normal((3, 5, 4)).astype(np.float32)
IX = R.integers(-100, 100, (3, 5, 4)).astype(np.int32)


def _argmax_computation(l):
    def comp(a, b):
        (av, ai), (bv, bi) = a, b
        pick = (av > bv) | ((av == bv) & (ai < bi))
        return l.select(pick, av, bv), l.select(pick, ai, bi)

    return comp


REDUCE_CASES = {
    "sum": (lambda l, n, x: l.reduce(x, 0.0, l.add, (1,)), X),
    "sum_with_init": (lambda l, n, x: l.reduce(x, 1.5, l.add, (0, 2)), X),
    "max_numpy_ufunc": (lambda l, n, x: l.reduce(x, -np.inf, n.maximum, (2,)), X),
    "prod_all": (lambda l, n, x: l.reduce(x * 0.5, 1.0, l.mul, (0, 1, 2)), X),
    "bitwise_or_ints": (lambda l, n, x: l.reduce(x, 0, l.bitwise_or, (1,)), IX),
    "and_bools": (lambda l, n, x: l.reduce(x > -90, True, l.bitwise_and, (0,)), IX),
    "min_ints": (lambda l, n, x: l.reduce(x, np.int32(2**31 - 1), l.min, (2, 0)), IX),
    "non_associative_fold": (
        lambda l, n, x: l.reduce(x, np.float32(0), lambda a, b: a + b * b, (1,)),
        X,
    ),
    "generic_in_row_major_order": (
        lambda l, n, x: l.reduce(x, np.float32(0), lambda a, b: a * 0.5 + b, (0, 2)),
        X,
    ),
    "variadic_argmax": (
        lambda l, n, x: l.reduce(
            (x, l.broadcasted_iota(np.int32, x.shape, 1)),
            (np.float32(-np.inf), np.int32(0)),
            _argmax_computation(l),
            (1,),
        ),
        X,
    ),
    "dict_operands": (
        lambda l, n, x: l.reduce(
            {"a": x, "b": x * 2},
            {"a": 0.0, "b": 0.0},
            lambda u, v: {"a": u["a"] + v["a"], "b": l.max(u["b"], v["b"])},
            (2,),
        ),
        X,
    ),
    "no_dimensions": (lambda l, n, x: l.reduce(x, 0.0, l.add, ()), X),
    "empty_dimension": (lambda l, n, x: l.reduce(x[:, :0], 2.0, lambda a, b: a * b, (1,)), X),
}


@pytest.mark.parametrize("name", REDUCE_CASES)
def test_reduce_matches_jax(name):
    fn, x = REDUCE_CASES[name]
    _both(fn, x)


def test_reduce_gradients_and_vmap_match_jax(x64):
    # Identity initial values only: jax's derivative of a reduction from another init
    # combines the init in more than once (XLA allows it any number of times).
    x = R.standard_normal((3, 5, 4))
    for comp, init in (
        (lambda l: l.add, 0.0),
        (lambda l: lambda a, b: a * b, 1.0),
        (lambda l: l.max, -np.inf),
    ):

        def loss(l, comp=comp, init=init):
            return lambda v: (l.reduce(v, init, comp(l), (1,)) ** 2).sum()

        np.testing.assert_allclose(
            np.asarray(numlir.grad(loss(lax))(x)),
            np.asarray(jax.jit(jax.grad(loss(jax.lax)))(x)),
            rtol=1e-12,
        )
    assert_same(
        numlir.vmap(lambda v: lax.reduce(v, 0.0, lambda a, b: a + b, (1,)))(x),
        jax.jit(jax.vmap(lambda v: jax.lax.reduce(v, 0.0, lambda a, b: a + b, (1,))))(x),
        1e-12,
    )


def test_reduce_errors_name_the_problem():
    with pytest.raises(TypeError, match="init_value dtype int32 must match"):
        lax.reduce(X, np.int32(0), lax.add, (0,))
    with pytest.raises(ValueError, match="same structure"):
        lax.reduce((X, X), 0.0, lax.add, (0,))
    with pytest.raises(TypeError, match="one shape"):
        lax.reduce((X, X[0]), (0.0, 0.0), lambda a, b: a, (0,))
    with pytest.raises(TypeError, match="one value per operand"):
        lax.reduce((X, X), (0.0, 0.0), lambda a, b: a[0], (0,))


# --- patches, locally connected convolutions and ragged_dot ------------------------------------

NHWC = R.standard_normal((2, 7, 6, 3)).astype(np.float32)
NCHW = R.standard_normal((2, 3, 7, 6)).astype(np.float32)

PATCH_CASES = {
    "nhwc_same": (NHWC, (3, 2), (1, 1), "SAME", dict(dimension_numbers=("NHWC", "HWIO", "NHWC"))),
    "default_layout_strided": (NCHW, (2, 3), (2, 1), "VALID", {}),
    "dilated_to_nchw": (
        NHWC,
        (3, 3),
        (2, 2),
        ((1, 0), (2, 1)),
        dict(dimension_numbers=("NHWC", "OIHW", "NCHW"), rhs_dilation=(1, 2)),
    ),
    "lhs_dilation": (
        NHWC,
        (2, 2),
        (1, 1),
        ((0, 0), (1, 1)),
        dict(dimension_numbers=("NHWC", "HWIO", "NHWC"), lhs_dilation=(2, 1)),
    ),
}


@pytest.mark.parametrize("name", PATCH_CASES)
def test_conv_general_dilated_patches_match_jax(name):
    x, filt, strides, padding, kw = PATCH_CASES[name]
    _both(lambda l, n, v: l.conv_general_dilated_patches(v, filt, strides, padding, **kw), x, tol=0)


@pytest.mark.parametrize(
    "dimension_numbers", [("NHWC", "HWIO", "NHWC"), None, ("NCHW", "OIHW", "NHWC")]
)
def test_conv_general_dilated_local_matches_jax_with_gradients(dimension_numbers, x64):
    lhs = (NHWC if dimension_numbers and dimension_numbers[0] == "NHWC" else NCHW).astype(
        np.float64
    )
    filt = (3, 2)
    patches = jax.lax.conv_general_dilated_patches(
        lhs, filt, (2, 1), "SAME", dimension_numbers=dimension_numbers
    )
    dn = jax.lax.conv_dimension_numbers(lhs.shape, (1, 1) + filt, dimension_numbers)
    canonical = (4, 3 * 6) + tuple(patches.shape[d] for d in dn.out_spec[2:])
    rhs = R.standard_normal(canonical).transpose(np.argsort(dn.rhs_spec))

    def f(l):
        return lambda a, b: l.conv_general_dilated_local(
            a, b, (2, 1), "SAME", filt, dimension_numbers=dimension_numbers
        )

    _both(lambda l, n, a, b: f(l)(a, b), lhs, rhs, tol=1e-12)
    loss = lambda l: lambda a, b: (f(l)(a, b) ** 2).sum()
    assert_same(
        numlir.grad(loss(lax), argnums=(0, 1))(lhs, rhs),
        jax.jit(jax.grad(loss(jax.lax), argnums=(0, 1)))(lhs, rhs),
        1e-10,
    )


def test_conv_general_dilated_local_rejects_a_kernel_of_the_wrong_size():
    with pytest.raises(TypeError, match="output's spatial sizes"):
        lax.conv_general_dilated_local(
            NCHW, np.ones((4, 18, 3, 3), np.float32), (1, 1), "SAME", (3, 2)
        )


@pytest.mark.parametrize("group_sizes", [[2, 3, 2], [0, 7, 0], [1, 1, 1], [4, 0, 1]])
def test_ragged_dot_matches_jax_with_gradients(group_sizes, x64):
    lhs, rhs = R.standard_normal((7, 4)), R.standard_normal((3, 4, 5))
    sizes = np.array(group_sizes, np.int32)
    _both(lambda l, n, a, b: l.ragged_dot(a, b, sizes), lhs, rhs, tol=1e-12)
    loss = lambda l: lambda a, b: (l.ragged_dot(a, b, sizes) ** 2).sum()
    assert_same(
        numlir.grad(loss(lax), argnums=(0, 1))(lhs, rhs),
        jax.jit(jax.grad(loss(jax.lax), argnums=(0, 1)))(lhs, rhs),
        1e-10,
    )
    # jax cannot vmap ragged_dot over lhs; each row of the batch is one call
    batched = numlir.vmap(lambda a, b: lax.ragged_dot(a, b, sizes))(
        np.stack([lhs, 2 * lhs]), np.stack([rhs, -rhs])
    )
    assert_same(
        batched,
        np.stack([jax.lax.ragged_dot(lhs, rhs, sizes), jax.lax.ragged_dot(2 * lhs, -rhs, sizes)]),
        1e-12,
    )


def test_ragged_dot_errors():
    with pytest.raises(TypeError, match=r"lhs \(m, k\), rhs \(g, k, n\)"):
        lax.ragged_dot(np.ones((2, 3, 4)), np.ones((2, 4, 5)), np.array([1, 1]))
    with pytest.raises(TypeError, match="disagree"):
        lax.ragged_dot(np.ones((2, 3)), np.ones((2, 4, 5)), np.array([1, 1]))
    with pytest.raises(NotImplementedError, match="group_offset"):
        lax.ragged_dot(
            np.ones((2, 4)), np.ones((2, 4, 5)), np.array([1, 1]), group_offset=np.array([0])
        )


# --- shape tuples, helpers and types --------------------------------------------------------

SHAPE_TUPLE_CASES = [
    ("conv_shape_tuple", ((2, 3, 9, 10), (5, 3, 3, 2), (2, 1), "SAME")),
    ("conv_shape_tuple", ((2, 3, 9, 10), (5, 3, 3, 2), (2, 3), "VALID")),
    ("conv_shape_tuple", ((4, 3, 9, 10), (5, 3, 3, 2), (1, 1), ((1, 2), (0, 0)), 2)),
    ("conv_shape_tuple", ((2, 3, 2, 2), (5, 3, 5, 5), (1, 1), "VALID")),
    (
        "conv_general_shape_tuple",
        ((2, 9, 10, 3), (3, 2, 3, 5), (2, 1), "SAME", ("NHWC", "HWIO", "NHWC")),
    ),
    (
        "conv_general_shape_tuple",
        ((2, 9, 10, 3), (3, 2, 3, 5), (1, 2), ((1, 1), (2, 0)), ("NHWC", "HWIO", "NCHW")),
    ),
    (
        "conv_transpose_shape_tuple",
        ((2, 9, 10, 3), (3, 2, 3, 5), (2, 2), "SAME", ("NHWC", "HWIO", "NHWC")),
    ),
    (
        "conv_transpose_shape_tuple",
        ((2, 9, 10, 3), (3, 2, 3, 5), (2, 3), "VALID", ("NHWC", "HWIO", "NHWC")),
    ),
    (
        "conv_transpose_shape_tuple",
        ((2, 3, 9, 10), (5, 3, 4, 2), (3, 1), ((1, 2), (0, 1)), ("NCHW", "OIHW", "NCHW")),
    ),
    ("reduce_window_shape_tuple", ((4, 9, 10), (1, 3, 3), (1, 2, 2), ((0, 0), (1, 1), (1, 1)))),
    (
        "reduce_window_shape_tuple",
        ((4, 9, 10), (2, 3, 3), (1, 2, 2), ((0, 1), (1, 1), (2, 0)), (1, 2, 1), (1, 1, 2)),
    ),
]


@pytest.mark.parametrize("name, args", SHAPE_TUPLE_CASES)
def test_shape_tuples_match_jax(name, args):
    got = getattr(lax, name)(*args)
    assert tuple(got) == tuple(int(d) for d in getattr(jax.lax, name)(*args))
    assert all(type(d) is int for d in got)


def test_stack_broadcast_like_stage_and_shape_as_value_match_jax():
    a, b = (
        R.standard_normal((2, 3)).astype(np.float32),
        R.standard_normal((2, 3)).astype(np.float32),
    )
    _both(lambda l, n, u, v: l.stack([u, v, u], axis=1), a, b)
    _both(lambda l, n, u, v: l.stack([u, v], axis=-1), a, b)
    _both(lambda l, n, u: l.broadcast_like(u[0], np.zeros((4, 2, 3))), a)
    _both(lambda l, n, u: l.stage(u) * 2, a)
    assert_same(lax.stage(1.0), jax.lax.stage(1.0))
    for shape in ((2, 3), (), (2**40,)):
        got, want = lax.shape_as_value(shape), np.asarray(jax.lax.shape_as_value(shape))
        assert got.dtype == want.dtype and np.array_equal(got, want), shape
    with pytest.raises(TypeError, match="broadcast_like"):
        lax.broadcast_like(np.ones((2, 3)), np.ones(3))
    with pytest.raises(ValueError, match="at least one operand"):
        lax.stack([])


def test_dot_algorithms_and_presets_are_accepted_and_compute_at_full_precision():
    a, b = (
        R.standard_normal((4, 5)).astype(np.float32),
        R.standard_normal((5, 3)).astype(np.float32),
    )
    exact = np.asarray(lax.dot(a, b))
    for precision in (
        lax.DotAlgorithmPreset.DEFAULT,
        lax.DotAlgorithmPreset.BF16_BF16_F32,
        lax.DotAlgorithm(np.float32, np.float32, np.float32),
        (lax.Precision.HIGH, "highest"),
    ):
        np.testing.assert_array_equal(np.asarray(lax.dot(a, b, precision=precision)), exact)
    assert set(lax.DotAlgorithmPreset.__members__) == set(jax.lax.DotAlgorithmPreset.__members__)
    assert str(lax.DotAlgorithmPreset.F32_F32_F32) == str(jax.lax.DotAlgorithmPreset.F32_F32_F32)
    import inspect

    assert list(inspect.signature(lax.DotAlgorithm).parameters) == list(
        inspect.signature(jax.lax.DotAlgorithm).parameters
    )
