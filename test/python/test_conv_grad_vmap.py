"""Reverse mode and vmap of lax.conv_general_dilated against jax and finite differences.

The transpose rules are checked through vjp (float32, against jax.vjp) and
through the defining identity <ct, J t> = <J^T ct, t> with J t from central
finite differences (float64). The batching rule is checked against jax.vmap
and against a stack of per-example convolutions.
"""

import jax
import numpy as np
import pytest

import numlir
import numlir.lax as lax
from ad_testing import numerical_jvp

HIGHEST = jax.lax.Precision.HIGHEST


def _rand(shape, dtype=np.float32, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


# (id, lhs shape, rhs shape, conv_general_dilated keywords)
CONFIGS = [
    ("1d_stride_not_dividing_input", (2, 3, 10), (4, 3, 3),
     dict(window_strides=(3,), padding=[(1, 2)])),
    ("2d_valid", (2, 3, 7, 6), (4, 3, 3, 2), dict(window_strides=(1, 1), padding="VALID")),
    ("2d_same_stride2_odd_input", (2, 3, 9, 7), (4, 3, 3, 3),
     dict(window_strides=(2, 2), padding="SAME")),
    ("2d_negative_asymmetric_padding", (2, 3, 9, 8), (4, 3, 3, 3),
     dict(window_strides=(1, 2), padding=[(-1, 2), (2, -1)])),
    ("2d_padding_wider_than_window", (1, 2, 5, 5), (3, 2, 2, 2),
     dict(window_strides=(2, 1), padding=[(3, 0), (0, 4)])),
    ("2d_lhs_and_rhs_dilation", (2, 3, 6, 7), (4, 3, 2, 2),
     dict(window_strides=(2, 1), padding=[(1, 0), (0, 1)], lhs_dilation=(2, 1),
          rhs_dilation=(1, 2))),
    ("2d_rhs_dilation_stride3", (1, 2, 11, 9), (3, 2, 3, 2),
     dict(window_strides=(3, 2), padding="SAME", rhs_dilation=(2, 3))),
    ("2d_nhwc_hwio", (2, 9, 8, 3), (3, 3, 3, 4),
     dict(window_strides=(2, 2), padding="SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))),
    ("2d_mixed_layouts", (3, 9, 8, 2), (3, 3, 3, 4),
     dict(window_strides=(2, 1), padding="SAME", dimension_numbers=("CHWN", "HWIO", "NWHC"))),
    ("2d_feature_groups", (2, 4, 9, 8), (6, 2, 3, 3),
     dict(window_strides=(2, 2), padding="SAME", feature_group_count=2)),
    ("2d_depthwise_nhwc", (2, 7, 7, 3), (3, 3, 1, 6),
     dict(window_strides=(2, 1), padding="VALID", dimension_numbers=("NHWC", "HWIO", "NHWC"),
          feature_group_count=3)),
    ("2d_batch_groups", (4, 3, 9, 8), (6, 3, 3, 3),
     dict(window_strides=(2, 1), padding="VALID", batch_group_count=2)),
    ("2d_batch_groups_mixed_layouts", (3, 9, 8, 6), (3, 3, 3, 6),
     dict(window_strides=(3, 1), padding="SAME", dimension_numbers=("CHWN", "HWIO", "NWHC"),
          batch_group_count=3)),
    ("3d_strides_and_dilation", (1, 2, 5, 6, 4), (3, 2, 2, 3, 2),
     dict(window_strides=(2, 1, 3), padding="SAME", rhs_dilation=(1, 2, 1))),
    ("3d_ndhwc_groups", (1, 5, 4, 6, 4), (2, 2, 3, 2, 4),
     dict(window_strides=(2, 2, 2), padding=[(0, 1), (1, 0), (1, 1)],
          dimension_numbers=("NDHWC", "DHWIO", "NDHWC"), feature_group_count=2)),
]
IDS = [c[0] for c in CONFIGS]


def _convs(kw):
    ours = lambda x, w: lax.conv_general_dilated(x, w, **kw)  # noqa: E731
    theirs = lambda x, w: jax.lax.conv_general_dilated(x, w, precision=HIGHEST, **kw)  # noqa: E731
    return ours, theirs


@pytest.mark.parametrize("name,lhs_shape,rhs_shape,kw", CONFIGS, ids=IDS)
def test_vjp_of_lhs_and_rhs_matches_jax(name, lhs_shape, rhs_shape, kw):
    x, w = _rand(lhs_shape, seed=1), _rand(rhs_shape, seed=2)
    ours, theirs = _convs(kw)
    want_out, jax_vjp = jax.vjp(theirs, x, w)
    ct = _rand(want_out.shape, seed=3)
    # Under jit (one compilation); the finite-difference test below runs eagerly.
    out, cts = numlir.jit(lambda x, w, ct: (ours(x, w), numlir.vjp(ours, x, w)[1](ct)))(x, w, ct)
    np.testing.assert_allclose(np.asarray(out), np.asarray(want_out), rtol=1e-4, atol=1e-4)
    for got, want in zip(cts, jax_vjp(ct)):
        assert got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("name,lhs_shape,rhs_shape,kw", CONFIGS, ids=IDS)
def test_vjp_satisfies_adjoint_identity_with_finite_differences(x64, name, lhs_shape,
                                                               rhs_shape, kw):
    x, w = _rand(lhs_shape, np.float64, 4), _rand(rhs_shape, np.float64, 5)
    tx, tw = _rand(lhs_shape, np.float64, 6), _rand(rhs_shape, np.float64, 7)
    ours, _ = _convs(kw)
    out, f_vjp = numlir.vjp(ours, x, w)
    ct = _rand(out.shape, np.float64, 8)
    ct_x, ct_w = (np.asarray(c) for c in f_vjp(ct))
    assert ct_x.dtype == ct_w.dtype == np.float64
    f = lambda *a: np.asarray(ours(*a))  # noqa: E731
    # <ct, d/dx f . tx> = <ct_x, tx>, and the same for w.
    jx = numerical_jvp(f, (x, w), (tx, np.zeros_like(w)))
    jw = numerical_jvp(f, (x, w), (np.zeros_like(x), tw))
    np.testing.assert_allclose(np.vdot(ct_x, tx), np.vdot(ct, jx), rtol=1e-7)
    np.testing.assert_allclose(np.vdot(ct_w, tw), np.vdot(ct, jw), rtol=1e-7)


def test_grad_with_preferred_element_type_keeps_operand_dtypes():
    x, w = _rand((2, 3, 6, 6), np.float16, 1), _rand((4, 3, 3, 3), np.float16, 2)
    kw = dict(window_strides=(2, 1), padding="SAME", preferred_element_type=np.float32)

    def loss(conv):
        return lambda x, w: (conv(x, w, **kw) ** 2).sum()

    got = numlir.jit(numlir.grad(loss(lax.conv_general_dilated), argnums=(0, 1)))(x, w)
    want = jax.jit(jax.grad(loss(jax.lax.conv_general_dilated), argnums=(0, 1)))(x, w)
    for g, e in zip(got, want):
        assert g.dtype == e.dtype == np.float16
        np.testing.assert_allclose(np.asarray(g, np.float32), np.asarray(e, np.float32),
                                   rtol=1e-2, atol=1e-2)


def test_gradient_of_a_gradient_transposes_the_transposed_convolutions():
    # d/dw |d loss/dx|^2 differentiates the lhs-cotangent conv (lhs-dilated by the stride).
    x, w = _rand((2, 3, 7, 6), seed=1), _rand((4, 3, 3, 2), seed=2)
    kw = dict(window_strides=(2, 2), padding=[(1, 0), (0, 2)], rhs_dilation=(1, 2))

    def outer(conv, grad):
        inner = grad(lambda x, w: (conv(x, w, **kw) ** 2).sum())
        return lambda x, w: (inner(x, w) ** 2).sum()

    got = numlir.jit(numlir.grad(outer(lax.conv_general_dilated, numlir.grad),
                                 argnums=(0, 1)))(x, w)
    want = jax.jit(jax.grad(outer(jax.lax.conv_general_dilated, jax.grad), argnums=(0, 1)))(x, w)
    for g, e in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), np.asarray(e), rtol=1e-3, atol=1e-3)


def test_grad_of_empty_batch_is_zero():
    x, w = np.zeros((0, 3, 5, 5), np.float32), _rand((4, 3, 3, 3))
    gx, gw = numlir.grad(lambda x, w: lax.conv(x, w, (1, 1), "SAME").sum(), argnums=(0, 1))(x, w)
    assert gx.shape == x.shape and gw.shape == w.shape
    np.testing.assert_array_equal(np.asarray(gw), np.zeros_like(w))


@pytest.mark.parametrize("strides,padding,transpose_kernel", [
    ((2, 2), "SAME", False),
    ((3, 2), "VALID", False),
    ((2, 1), [(1, 2), (0, 1)], True),
])
def test_conv_transpose_grads_match_jax(strides, padding, transpose_kernel):
    x, w = _rand((2, 5, 4, 3), seed=5), _rand((3, 3, 3, 4), seed=6)
    if transpose_kernel:
        w = _rand((3, 3, 4, 3), seed=6)

    def ours(x, w):
        return (lax.conv_transpose(x, w, strides, padding, transpose_kernel=transpose_kernel)
                ** 2).sum()

    def theirs(x, w):
        return (jax.lax.conv_transpose(x, w, strides, padding, transpose_kernel=transpose_kernel,
                                       precision=HIGHEST) ** 2).sum()

    got = numlir.jit(numlir.grad(ours, argnums=(0, 1)))(x, w)
    want = jax.jit(jax.grad(theirs, argnums=(0, 1)))(x, w)
    for g, e in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), np.asarray(e), rtol=1e-4, atol=1e-3)


def test_conv_transpose_grad_matches_finite_differences(x64):
    x, w = _rand((1, 4, 3, 2), np.float64, 1), _rand((3, 2, 2, 3), np.float64, 2)
    tx, tw = _rand(x.shape, np.float64, 3), _rand(w.shape, np.float64, 4)

    def f(x, w):
        return (lax.conv_transpose(x, w, (2, 3), "SAME", rhs_dilation=(1, 2)) ** 2).sum()

    gx, gw = numlir.grad(f, argnums=(0, 1))(x, w)
    num = numerical_jvp(lambda *a: np.asarray(f(*a)), (x, w), (tx, tw))
    np.testing.assert_allclose(np.vdot(gx, tx) + np.vdot(gw, tw), num, rtol=1e-7)


# --- vmap ----------------------------------------------------------------------------

# (id, lhs per-example shape, rhs per-example shape, keywords)
VMAP_CONFIGS = [
    ("nchw_stride2", (2, 3, 7, 6), (4, 3, 3, 2), dict(window_strides=(2, 1), padding="SAME")),
    ("mixed_layouts", (3, 9, 8, 2), (3, 3, 3, 4),
     dict(window_strides=(2, 1), padding="VALID", dimension_numbers=("CHWN", "HWIO", "NWHC"))),
    ("feature_groups_nhwc", (2, 6, 5, 4), (3, 2, 2, 6),
     dict(window_strides=(1, 2), padding="SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"),
          feature_group_count=2)),
    ("batch_groups", (4, 3, 6, 5), (6, 3, 3, 2),
     dict(window_strides=(1, 1), padding="VALID", batch_group_count=2)),
    ("1d_dilated", (2, 3, 9), (4, 3, 3),
     dict(window_strides=(2,), padding=[(2, 1)], lhs_dilation=(2,), rhs_dilation=(2,))),
]
# in_axes (an axis of None leaves that operand unbatched) and out_axes by name.
VMAP_AXES = {
    "lhs_only": ((0, None), 0),
    "lhs_only_axis2": ((2, None), 1),
    "rhs_only_last_axis": ((None, -1), 0),
    "both": ((0, 0), 0),
    "both_axes_1_and_3": ((1, 3), -1),
}
# Every axes variant on the plain conv; on the others, the variants whose rule
# folds the vmapped axis differently (into batch, output or input features,
# inside existing feature or batch groups).
VMAP_CASES = [(c, axes) for c in VMAP_CONFIGS[:1] for axes in VMAP_AXES] + [
    (c, axes) for c in VMAP_CONFIGS[1:4]
    for axes in ("lhs_only_axis2", "rhs_only_last_axis", "both_axes_1_and_3")] + [
    (VMAP_CONFIGS[3], "both"), (VMAP_CONFIGS[4], "both_axes_1_and_3")]


def _batched(shape, axis, size, seed):
    if axis is None:
        return _rand(shape, seed=seed)
    full = list(shape)
    full.insert(axis % (len(shape) + 1), size)
    return _rand(tuple(full), seed=seed)


@pytest.mark.parametrize("config,axes", VMAP_CASES,
                         ids=[f"{c[0]}-{axes}" for c, axes in VMAP_CASES])
def test_vmap_matches_jax_vmap_and_stacked_examples(config, axes):
    _, lhs_shape, rhs_shape, kw = config
    (in_axes, out_axes), size = VMAP_AXES[axes], 3
    x = _batched(lhs_shape, in_axes[0], size, 1)
    w = _batched(rhs_shape, in_axes[1], size, 2)
    ours, theirs = _convs(kw)
    got = np.asarray(numlir.jit(numlir.vmap(ours, in_axes, out_axes))(x, w))
    want = np.asarray(jax.jit(jax.vmap(theirs, in_axes, out_axes))(x, w))
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)

    def example(i):
        return [a if axis is None else np.take(a, i, axis=axis) for a, axis in zip((x, w), in_axes)]

    stacked = np.stack([np.asarray(ours(*example(i))) for i in range(size)], axis=out_axes)
    np.testing.assert_allclose(got, stacked, rtol=1e-5, atol=1e-5)


def test_vmap_eagerly():
    x, w = _rand((3, 2, 3, 6, 6), seed=1), _rand((3, 4, 3, 3, 3), seed=2)
    ours, theirs = _convs(dict(window_strides=(2, 2), padding="SAME"))
    got = numlir.vmap(ours)(x, w)
    np.testing.assert_allclose(np.asarray(got), np.asarray(jax.jit(jax.vmap(theirs))(x, w)),
                               rtol=1e-4, atol=1e-4)


def test_nested_vmap_over_examples_and_kernels():
    x, w = _rand((2, 5, 3, 6, 5), seed=1), _rand((4, 2, 3, 3, 2), seed=2)
    ours, theirs = _convs(dict(window_strides=(1, 2), padding="VALID"))
    inner = (None, 0)  # kernels
    got = numlir.jit(numlir.vmap(numlir.vmap(ours, inner), (1, None)))(x, w)
    want = jax.jit(jax.vmap(jax.vmap(theirs, inner), (1, None)))(x, w)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("config", [VMAP_CONFIGS[i] for i in (0, 2, 3)],
                         ids=[VMAP_CONFIGS[i][0] for i in (0, 2, 3)])
def test_per_example_gradients_match_jax(config):
    """vmap(grad) over a batch of single examples sharing one kernel: per-example weight grads."""
    _, lhs_shape, rhs_shape, kw = config
    size = 3
    x, w = _rand((size,) + lhs_shape, seed=1), _rand(rhs_shape, seed=2)

    def loss(conv):
        return lambda w, x: (conv(x, w) ** 2).sum()

    ours, theirs = _convs(kw)
    got = numlir.jit(numlir.vmap(numlir.grad(loss(ours)), (None, 0)))(w, x)
    want = jax.jit(jax.vmap(jax.grad(loss(theirs)), (None, 0)))(w, x)
    assert got.shape == (size,) + rhs_shape
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-4, atol=1e-3)


def test_vmap_of_grad_with_respect_to_input_and_kernel_both_batched():
    x, w = _rand((3, 2, 4, 6, 6), seed=1), _rand((3, 6, 2, 3, 3), seed=2)
    kw = dict(window_strides=(2, 1), padding="SAME", feature_group_count=2)

    def loss(conv):
        return lambda x, w: (conv(x, w, **kw) ** 2).sum()

    got = numlir.jit(numlir.vmap(numlir.grad(loss(lax.conv_general_dilated),
                                             argnums=(0, 1))))(x, w)
    want = jax.jit(jax.vmap(jax.grad(loss(jax.lax.conv_general_dilated), argnums=(0, 1))))(x, w)
    for g, e in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), np.asarray(e), rtol=1e-4, atol=1e-3)
