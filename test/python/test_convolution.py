"""lax.conv_general_dilated and its wrappers against jax.lax, eager and under jit.

Each case runs the same call through numlir and jax.lax (with HIGHEST
precision) and compares values, shapes and dtypes: layouts, 1-D/2-D/3-D,
strides, every padding mode, both dilations, feature and batch groups.
"""

import jax
import numpy as np
import pytest

import numlir
import numlir.lax as lax
import numlir.numpy as jnp

HIGHEST = jax.lax.Precision.HIGHEST


def _rand(shape, dtype=np.float32, seed=0):
    rng = np.random.default_rng(seed)
    if np.issubdtype(dtype, np.integer):
        return rng.integers(-4, 5, shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def _check(fn, ref, args, jit=True, rtol=1e-4, atol=1e-4):
    want = np.asarray(ref(*args))
    got = [fn(*[jnp.asarray(a) for a in args])]
    if jit:
        got.append(numlir.jit(fn)(*args))
    for g in got:
        assert g.shape == want.shape and g.dtype == want.dtype, (g.shape, g.dtype, want.shape,
                                                                 want.dtype)
        np.testing.assert_allclose(np.asarray(g), want, rtol=rtol, atol=atol)


def _conv_case(lhs_shape, rhs_shape, **kw):
    lhs, rhs = _rand(lhs_shape, seed=1), _rand(rhs_shape, seed=2)
    args = kw.pop("args")
    _check(lambda x, w: lax.conv_general_dilated(x, w, *args, **kw),
           lambda x, w: jax.lax.conv_general_dilated(x, w, *args, precision=HIGHEST, **kw),
           [lhs, rhs])


CASES = [
    # (lhs shape, rhs shape, positional args (strides, padding, lhs_dil, rhs_dil), keywords)
    ((2, 3, 9, 8), (4, 3, 3, 3), ((1, 1), "VALID"), {}),
    ((2, 3, 9, 8), (4, 3, 3, 3), ((2, 2), "SAME"), {}),
    ((2, 3, 9, 8), (4, 3, 3, 2), ((2, 3), "SAME_LOWER"), {}),
    ((2, 3, 9, 8), (4, 3, 3, 3), ((1, 2), [(1, 2), (0, 1)]), {}),
    ((2, 3, 9, 8), (4, 3, 3, 3), ((1, 1), [(-1, 1), (2, -2)]), {}),
    ((2, 3, 6, 5), (4, 3, 3, 3), ((1, 1), [(2, 2), (2, 2)], (2, 2)), {}),
    ((2, 3, 9, 8), (4, 3, 3, 2), ((1, 1), "SAME", None, (2, 3)), {}),
    ((2, 3, 7, 7), (4, 3, 2, 2), ((2, 1), [(1, 0), (0, 1)], (2, 1), (1, 2)), {}),
    ((2, 9, 8, 3), (3, 3, 3, 4), ((1, 1), "SAME"),
     {"dimension_numbers": ("NHWC", "HWIO", "NHWC")}),
    ((2, 9, 8, 3), (4, 3, 3, 3), ((2, 1), "VALID"),
     {"dimension_numbers": ("NHWC", "OIHW", "NCHW")}),
    ((3, 9, 8, 2), (3, 3, 3, 4), ((1, 1), "SAME"),
     {"dimension_numbers": ("CHWN", "HWIO", "NWHC")}),
    ((2, 6, 7, 7), (8, 3, 3, 3), ((1, 1), "SAME"), {"feature_group_count": 2}),
    ((2, 7, 7, 4), (3, 3, 1, 8), ((2, 2), "SAME"),
     {"dimension_numbers": ("NHWC", "HWIO", "NHWC"), "feature_group_count": 4}),
    ((4, 3, 6, 6), (6, 3, 3, 3), ((1, 1), "VALID"), {"batch_group_count": 2}),
    ((6, 5, 5, 2), (2, 2, 2, 3), ((1, 1), "VALID"),
     {"dimension_numbers": ("NHWC", "HWIO", "NHWC"), "batch_group_count": 3}),
    ((2, 3, 11), (4, 3, 3), ((2,), "SAME"), {}),
    ((2, 11, 3), (3, 3, 4), ((1,), [(2, 0)], None, (2,)),
     {"dimension_numbers": ("NWC", "WIO", "NWC")}),
    ((1, 2, 5, 6, 4), (3, 2, 2, 3, 2), ((1, 2, 1), "SAME"), {}),
    ((1, 5, 6, 4, 2), (2, 2, 2, 2, 3), ((2, 1, 1), "VALID", None, (1, 2, 1)),
     {"dimension_numbers": ("NDHWC", "DHWIO", "NDHWC")}),
    ((0, 3, 5, 5), (4, 3, 3, 3), ((1, 1), "SAME"), {}),
    ((2, 3, 2, 2), (4, 3, 3, 3), ((1, 1), "VALID"), {}),
]


@pytest.mark.parametrize("lhs_shape,rhs_shape,args,kw", CASES)
def test_conv_general_dilated_matches_jax(lhs_shape, rhs_shape, args, kw):
    _conv_case(lhs_shape, rhs_shape, args=args, **kw)


def test_conv_dimension_numbers_object_is_accepted():
    dn = lax.conv_dimension_numbers((2, 9, 8, 3), (3, 3, 3, 4), ("NHWC", "HWIO", "NHWC"))
    jax_dn = jax.lax.conv_dimension_numbers((2, 9, 8, 3), (3, 3, 3, 4), ("NHWC", "HWIO", "NHWC"))
    assert tuple(dn) == tuple(jax_dn)
    x, w = _rand((2, 9, 8, 3), seed=1), _rand((3, 3, 3, 4), seed=2)
    for ours in (dn, jax_dn):
        _check(lambda x, w: lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=ours),
               lambda x, w: jax.lax.conv_general_dilated(x, w, (1, 1), "SAME",
                                                         dimension_numbers=jax_dn,
                                                         precision=HIGHEST), [x, w], jit=False)


def test_conv_and_conv_with_general_padding():
    x, w = _rand((2, 3, 8, 7), seed=3), _rand((5, 3, 3, 2), seed=4)
    _check(lambda x, w: lax.conv(x, w, (1, 2), "SAME"),
           lambda x, w: jax.lax.conv(x, w, (1, 2), "SAME", precision=HIGHEST), [x, w])
    _check(lambda x, w: lax.conv_with_general_padding(x, w, (2, 1), [(1, 1), (2, 0)], (1, 2),
                                                      (2, 1)),
           lambda x, w: jax.lax.conv_with_general_padding(x, w, (2, 1), [(1, 1), (2, 0)], (1, 2),
                                                          (2, 1), precision=HIGHEST), [x, w])


@pytest.mark.parametrize("padding", ["SAME", "VALID", [(1, 2), (0, 1)]])
@pytest.mark.parametrize("strides", [(1, 1), (2, 2), (3, 2)])
def test_conv_transpose_2d(padding, strides):
    x, w = _rand((2, 5, 4, 3), seed=5), _rand((3, 3, 3, 4), seed=6)
    _check(lambda x, w: lax.conv_transpose(x, w, strides, padding),
           lambda x, w: jax.lax.conv_transpose(x, w, strides, padding, precision=HIGHEST),
           [x, w], jit=False)


@pytest.mark.parametrize("transpose_kernel", [False, True])
def test_conv_transpose_layouts_and_kernel_flip(transpose_kernel):
    x, w = _rand((2, 3, 6), seed=7), _rand((4, 3, 3), seed=8)
    dn = ("NCH", "OIH", "NCH") if not transpose_kernel else ("NCH", "IOH", "NCH")
    _check(lambda x, w: lax.conv_transpose(x, w, (2,), "SAME", (1,), dn, transpose_kernel),
           lambda x, w: jax.lax.conv_transpose(x, w, (2,), "SAME", (1,), dn, transpose_kernel,
                                               precision=HIGHEST), [x, w])
    x3, w3 = _rand((1, 3, 4, 3, 2), seed=9), _rand((2, 3, 2, 2, 2), seed=10)
    _check(lambda x, w: lax.conv_transpose(x, w, (2, 1, 2), "VALID", (1, 2, 1),
                                           transpose_kernel=transpose_kernel),
           lambda x, w: jax.lax.conv_transpose(x, w, (2, 1, 2), "VALID", (1, 2, 1),
                                               transpose_kernel=transpose_kernel,
                                               precision=HIGHEST), [x3, w3], jit=False)


def test_conv_integer_and_preferred_element_type():
    x, w = _rand((1, 2, 6, 6), np.int32, 11), _rand((3, 2, 3, 3), np.int32, 12)
    _check(lambda x, w: lax.conv(x, w, (1, 1), "SAME"),
           lambda x, w: jax.lax.conv(x, w, (1, 1), "SAME"), [x, w])
    x8, w8 = x.astype(np.int8), w.astype(np.int8)
    _check(lambda x, w: lax.conv(x, w, (1, 1), "VALID", preferred_element_type=np.int32),
           lambda x, w: jax.lax.conv(x, w, (1, 1), "VALID", preferred_element_type=np.int32),
           [x8, w8])


def test_conv_f64(x64):
    x, w = _rand((2, 3, 7, 6), np.float64, 13), _rand((4, 3, 3, 3), np.float64, 14)
    _check(lambda x, w: lax.conv_general_dilated(x, w, (2, 1), "SAME", None, (1, 2),
                                                 feature_group_count=1),
           lambda x, w: jax.lax.conv_general_dilated(x, w, (2, 1), "SAME", None, (1, 2),
                                                     precision=HIGHEST), [x, w],
           rtol=1e-12, atol=1e-12)


def test_conv_jit_inside_a_larger_function():
    x, w, b = _rand((2, 8, 8, 3), seed=15), _rand((3, 3, 3, 4), seed=16), _rand((4,), seed=17)

    def layer(conv, x, w, b):
        y = conv(x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
        return (y + b).sum(axis=(1, 2))

    got = numlir.jit(lambda x, w, b: layer(lax.conv_general_dilated, x, w, b))(x, w, b)
    want = layer(lambda *a, **k: jax.lax.conv_general_dilated(*a, precision=HIGHEST, **k),
                 x, w, b)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-4, atol=1e-4)


# --- errors name the problem and the user's line -------------------------------------


@pytest.mark.parametrize("call,match", [
    (lambda x, w: lax.conv(x, w[:, :2], (1, 1), "SAME"),
     "feature dimension size divided by feature_group_count must equal the rhs input feature"),
    (lambda x, w: lax.conv_general_dilated(x, w, (1, 1), "SAME", feature_group_count=2),
     "feature dimension size divided by feature_group_count"),
    (lambda x, w: lax.conv_general_dilated(x, w, (1, 1), "SAME", batch_group_count=3),
     "must be a multiple of batch_group_count"),
    (lambda x, w: lax.conv(x, w, (1, 1), "FULL"), "Unrecognized padding type"),
    (lambda x, w: lax.conv(x, w, (1,), "SAME"), "window_strides must have 2 entries"),
    (lambda x, w: lax.conv(x, w, (1, 1), [(1, 1)]), "padding must have 2"),
    (lambda x, w: lax.conv(x, w, (0, 1), "VALID"), "window_strides must be positive"),
    (lambda x, w: lax.conv_general_dilated(x, w, (1, 1), "SAME", (2, 2)),
     "String padding is not implemented for transposed convolution"),
    (lambda x, w: lax.conv_general_dilated(x, w, (1, 1), "SAME",
                                           dimension_numbers=("NHWC", "HWIO", "NHW")),
     "dimension_numbers\\[2\\] must have len equal to the ndim"),
    (lambda x, w: lax.conv_general_dilated(x, w, (1, 1), "SAME",
                                           dimension_numbers=("NHWC", "HWIO", "NHWN")),
     "must contain the characters 'N' and 'C' exactly once"),
    (lambda x, w: lax.conv(x, w.astype(np.int32), (1, 1), "SAME"),
     "requires arguments to have the same dtypes"),
    (lambda x, w: lax.conv(x, w, (1, 1), [(-9, 0), (0, 0)]), "Negative padding is larger"),
])
def test_conv_errors(call, match):
    x, w = _rand((1, 3, 6, 6)), _rand((4, 3, 3, 3))
    with pytest.raises((TypeError, ValueError), match=match) as info:
        call(jnp.asarray(x), w)
    assert "test_convolution.py:" in str(info.value)


# The DCGAN's convolutions (examples/gan, bench W7) at a small batch: the discriminator's
# strided and unstrided 5x5 convolutions and the generator's transposed ones, with the
# input and kernel gradients that the training step runs (kernel gradients are
# convolutions whose taps are the output gradient's positions). cpu-convolution-taps turns
# each into contractions per tap; the big case's output is tiled for the cache first.
DCGAN_CONVS = [
    ((4, 28, 28, 1), (5, 5, 1, 8), (2, 2)),
    ((4, 14, 14, 8), (5, 5, 8, 16), (1, 1)),
    ((4, 14, 14, 16), (5, 5, 16, 32), (2, 2)),
    ((4, 8, 8, 64), (5, 5, 64, 128), (2, 2)),
    ((12, 28, 28, 8), (3, 3, 8, 48), (1, 1)),  # output 1.2 MB: tiled along the batch
]


def _assert_value_and_grad_match_jax(loss, x, k):
    """`loss(lib)` is a function of (x, k) written with `lib`'s lax."""
    got = numlir.jit(numlir.value_and_grad(loss(numlir), argnums=(0, 1)))(x, k)
    want = jax.jit(jax.value_and_grad(loss(jax), argnums=(0, 1)))(x, k)
    for g, w in zip(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)):
        scale = float(np.abs(np.asarray(w)).max())
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=2e-4, atol=2e-4 * scale)


@pytest.mark.parametrize("lhs_shape,rhs_shape,strides", DCGAN_CONVS)
def test_convolutions_as_contractions_per_tap_match_jax_with_gradients(lhs_shape, rhs_shape,
                                                                      strides):
    x, k = _rand(lhs_shape, seed=1), _rand(rhs_shape, seed=2) * 0.1
    dn = ("NHWC", "HWIO", "NHWC")

    def loss(lib):
        def f(x, k):
            y = lib.lax.conv_general_dilated(x, k, strides, "SAME", dimension_numbers=dn)
            t = lib.lax.conv_transpose(y, k, strides, "SAME", dimension_numbers=dn,
                                       transpose_kernel=True)
            return (y * y).sum() + (t * x).sum()
        return f

    _assert_value_and_grad_match_jax(loss, x, k)


# numlir.layers' Conv2DTranspose keeps its kernel as HWOI (Haiku's layout): the forward
# convolution and the input gradient read an HWIO copy (hlo-assign-layouts), and the
# kernel gradient writes an output whose contiguous dimension is the input feature,
# which cpu-vectorize-contractions vectorizes with its two inputs swapped.
@pytest.mark.parametrize("kernel_layout", ["HWIO", "HWOI", "OIHW"])
@pytest.mark.parametrize("strides", [(1, 1), (2, 2)])
def test_transposed_convolution_gradients_match_jax_in_every_kernel_layout(kernel_layout,
                                                                         strides):
    x = _rand((2, 7, 7, 64), seed=3)
    hwio = _rand((5, 5, 64, 32), seed=4) * 0.05
    k = np.ascontiguousarray(np.transpose(hwio, ["HWIO".index(c) for c in kernel_layout]))
    dn = ("NHWC", kernel_layout, "NHWC")

    def loss(lib):
        def f(x, k):
            y = lib.lax.conv_transpose(x, k, strides, "SAME", dimension_numbers=dn)
            return (y * y).sum()
        return f

    _assert_value_and_grad_match_jax(loss, x, k)


# hlo-split-transposed-convolutions runs an lhs-dilated convolution as one convolution per
# output phase: paddings that pad or crop, strides up to 4, kernels shorter than the stride
# (phases without taps) and output sizes that are not a multiple of the stride, in values
# and both gradients (the kernel gradient of a transposed convolution is lhs-dilated too).
PHASE_CASES = [
    ("SAME", (2, 2), (5, 5)),
    ("VALID", (3, 2), (5, 5)),
    ([(2, 1), (0, 3)], (1, 2), (4, 3)),
    ([(-1, 2), (1, -1)], (4, 1), (5, 5)),
    ("SAME", (2, 3), (1, 3)),
    ("VALID", (4, 4), (1, 2)),
    ([(0, 0), (3, 3)], (2, 2), (2, 5)),
]


@pytest.mark.parametrize("padding,strides,window", PHASE_CASES)
def test_transposed_convolutions_split_into_phases_match_jax(padding, strides, window):
    x = _rand((2, 5, 6, 3), seed=15)
    k = _rand(window + (3, 4), seed=16) * 0.3
    dn = ("NHWC", "HWIO", "NHWC")

    def loss(lib):
        def f(x, k):
            y = lib.lax.conv_transpose(x, k, strides, padding, dimension_numbers=dn)
            return (y * y).sum() + y.sum()
        return f

    _assert_value_and_grad_match_jax(loss, x, k)


def test_transposed_convolution_phases_match_jax_in_f64_and_int32(x64):
    dn = ("NCHW", "OIHW", "NCHW")
    for dtype, tol in [(np.float64, 1e-12), (np.int32, 0)]:
        x, k = _rand((2, 4, 5, 3), dtype, 17), _rand((3, 4, 3, 2), dtype, 18)
        _check(lambda x, k: lax.conv_transpose(x, k, (3, 2), "SAME", dimension_numbers=dn),
               lambda x, k: jax.lax.conv_transpose(x, k, (3, 2), "SAME", dimension_numbers=dn,
                                                   precision=HIGHEST), [x, k], rtol=tol, atol=tol)


def test_transposed_convolution_never_multiplies_a_kernel_tap_by_an_inserted_zero():
    # XLA skips the zeros lhs_dilation inserts, so an infinite tap makes infinities only
    # where it meets a real input; multiplying the zeros would make NaNs between them.
    x = np.ones((1, 3, 1), np.float32)
    k = np.array([1.0, np.inf, 2.0], np.float32).reshape(3, 1, 1)

    def f(lib):
        return lambda x, k: lib.lax.conv_general_dilated(
            x, k, (1,), [(2, 2)], lhs_dilation=(2,), dimension_numbers=("NWC", "WIO", "NWC"))

    got = np.asarray(numlir.jit(f(numlir))(x, k)).ravel()
    want = np.asarray(f(jax)(x, k)).ravel()
    np.testing.assert_array_equal(got, want)
    assert not np.isnan(got).any()
