"""Complex operands of the ops that order complex numbers lexicographically (real part, then
imaginary, as lax.max/lax.min; clamp compares real parts only, as XLA's), of the convolutions
and of windowed reductions, against jax: lax.clamp, lax.cummax and lax.cummin, reduce_window
(max, min, sum, product), conv_general_dilated and its wrappers, jnp.convolve and
jnp.correlate. Values in complex64 and complex128, eagerly, under jit and under vmap;
derivatives of real losses in complex128. Where jax itself refuses a derivative (clamp's and
reduce_window's rules compare with gt/ge, which refuse complex) the reference is the rule jax
uses for reals: the tangent follows the selected element.
"""

import itertools

import jax
import jax.numpy as jnp_ref
import numpy as np
import pytest

import numlir
import numlir.numpy as jnp
from numlir import lax

C64, C128 = np.complex64, np.complex128


def _tol(dtype):
    return 1e-11 if np.dtype(dtype) == np.dtype(C128) else 2e-5


def _crand(shape, dtype=C128, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.normal(size=shape) + 1j * rng.normal(size=shape)).astype(dtype)


def _close(got, want, dtype=None):
    want = np.asarray(want)
    t = _tol(dtype or want.dtype)
    assert np.asarray(got).dtype == want.dtype
    np.testing.assert_allclose(np.asarray(got), want, rtol=t, atol=t)


def _check_modes(fn, ref_fn, *args, vmap=True):
    """``fn`` equals jax's ``ref_fn`` eagerly, jitted and (``vmap``) vmapped over axis 0."""
    want = ref_fn(*[jnp_ref.asarray(a) for a in args])
    _close(fn(*[jnp.asarray(a) for a in args]), want)
    _close(numlir.jit(fn)(*args), want)
    if vmap:
        _close(numlir.vmap(fn)(*args), jax.jit(jax.vmap(ref_fn))(*args))


@pytest.fixture(params=[C64, C128])
def cdtype(request, x64):
    return request.param


# --- clamp ---------------------------------------------------------------------------------

def test_clamp_of_complex_numbers_is_jaxs_clamp():
    x = np.array([1 + 2j, -1 + .5j, 3 - 1j], C64)
    got = lax.clamp(np.complex64(0), jnp.asarray(x), np.complex64(2 + 1j))
    _close(got, np.array([1 + 2j, 0, 2 + 1j], C64))


def test_clamp_values_with_scalar_and_array_bounds(cdtype):
    x, lo, hi = _crand((4, 5), cdtype, 1), _crand((4, 5), cdtype, 2), _crand((4, 5), cdtype, 3)
    lo, hi = np.where(lo.real < hi.real, lo, hi), np.where(lo.real < hi.real, hi, lo)
    _check_modes(lax.clamp, jax.lax.clamp, lo, x, hi)
    # XLA's clamp compares real parts only (not lexicographically as lax.max): at a tie in the
    # real part with lo it gives lo, with hi it keeps x.
    x = np.array([[1 + 1j, 1 - 1j, 0.5 + 5j, 1.5 - 5j, 2 + 3j, 2 - 1j, 3 + 0j, 0j]], cdtype)
    lo, hi = cdtype(1 + 0j), cdtype(2 + 1j)
    _check_modes(lambda x: lax.clamp(lo, x, hi), lambda x: jax.lax.clamp(lo, x, hi), x)
    # lo above hi gives hi, as jax.
    _check_modes(lambda x: lax.clamp(hi, x, lo), lambda x: jax.lax.clamp(hi, x, lo), x)


def test_clamp_derivative_follows_the_selected_operand(x64):
    x = np.array([1 + 2j, -1 + .5j, 3 - 1j, 0.5 + 0j], C128)
    lo, hi = C128(0), C128(2 + 1j)
    tx, tlo, thi = _crand((4,), C128, 4), C128(1j), C128(5)
    _, got = numlir.jvp(lax.clamp, (lo, x, hi), (tlo, tx, thi))
    # x inside [lo, hi] takes x's tangent, below lo takes lo's, above hi takes hi's.
    np.testing.assert_allclose(np.asarray(got), [tx[0], tlo, thi, tx[3]], rtol=0, atol=0)
    _, got = numlir.vmap(lambda x, t: numlir.jvp(lambda x: lax.clamp(lo, x, hi), (x,), (t,)))(
        x, tx)
    np.testing.assert_allclose(np.asarray(got), [tx[0], 0, 0, tx[3]], rtol=0, atol=0)
    loss = lambda x: jnp.sum(jnp.abs(lax.clamp(lo, x, hi)) ** 2)  # noqa: E731
    ref = lambda x: jnp_ref.sum(jnp_ref.abs(jax.lax.min(jax.lax.max(x, lo), hi)) ** 2)  # noqa: E731
    _close(numlir.grad(loss)(x), jax.jit(jax.grad(ref))(x))
    _close(numlir.jit(numlir.grad(loss))(x), jax.jit(jax.grad(ref))(x))


def test_clamp_refusals_match_jax():
    x = jnp.asarray(np.ones(3, C64))
    with pytest.raises(TypeError, match="same dtypes"):
        lax.clamp(jnp.asarray(np.float32(0)), x, jnp.asarray(np.float32(1)))
    with pytest.raises(ValueError, match="Complex values have no ordering"):
        jnp.clip(x, 0, 1)


# --- cummax / cummin -----------------------------------------------------------------------

@pytest.mark.parametrize("name", ["cummax", "cummin"])
def test_cumulative_extrema_values(cdtype, name):
    x = _crand((2, 3, 7), cdtype, 5)
    x[0, 0, 3] = x[0, 0, 1].real + 1j * (x[0, 0, 1].imag + 1)  # a tie in the real part
    for axis, reverse in [(1, False), (1, True), (0, False)]:
        fn = lambda x: getattr(lax, name)(x, axis=axis, reverse=reverse)  # noqa: E731
        ref = lambda x: getattr(jax.lax, name)(x, axis=axis, reverse=reverse)  # noqa: E731
        _check_modes(fn, ref, x)
    _close(numlir.vmap(lambda x: getattr(lax, name)(x, axis=0), in_axes=1)(x),
           jax.jit(jax.vmap(lambda x: getattr(jax.lax, name)(x, axis=0), in_axes=1))(x))


@pytest.mark.parametrize("name", ["cummax", "cummin"])
def test_cumulative_extrema_gradients_as_jax(x64, name):
    x = _crand((4, 6), C128, 6)
    for reverse in (False, True):
        loss = lambda x: jnp.sum(jnp.abs(getattr(lax, name)(x, 1, reverse)) ** 2)  # noqa: E731
        ref = lambda x: jnp_ref.sum(jnp_ref.abs(getattr(jax.lax, name)(x, 1, reverse)) ** 2)  # noqa: E731
        _close(numlir.grad(loss)(x), jax.jit(jax.grad(ref))(x))
    t = _crand((4, 6), C128, 7)
    fn = lambda x: getattr(lax, name)(x, axis=1)  # noqa: E731
    _, got = numlir.jvp(fn, (x,), (t,))
    _, want = jax.jvp(lambda x: getattr(jax.lax, name)(x, axis=1), (x,), (t,))
    _close(got, want)


# --- max/min reduce_window -----------------------------------------------------------------

_WINDOWS = [  # window, strides, padding, base dilation, window dilation
    ((2, 2), (1, 1), "SAME", None, None),
    ((3, 2), (2, 1), "VALID", None, None),
    ((2, 2), (1, 2), ((1, 0), (2, 1)), (1, 2), (2, 1)),
]


@pytest.mark.parametrize("computation", ["max", "min"])
@pytest.mark.parametrize("window", _WINDOWS)
def test_reduce_window_extrema_values(cdtype, computation, window):
    dims, strides, padding, base, wdil = window
    xs = _crand((2, 5, 6), cdtype, 8)
    init = complex(-np.inf if computation == "max" else np.inf, 0)

    def run(lax_mod, x):
        return lax_mod.reduce_window(x, init, getattr(lax_mod, computation), dims, strides,
                                     padding, base, wdil)

    _check_modes(lambda x: run(lax, x), lambda x: run(jax.lax, x), xs[0], vmap=False)
    _close(numlir.vmap(lambda x: run(lax, x))(xs), jax.jit(jax.vmap(lambda x: run(jax.lax, x)))(xs))


def test_reduce_window_max_with_a_non_identity_init_and_the_named_reducer(x64):
    x = _crand((5, 4), C128, 9)
    got = lax.reduce_window(jnp.asarray(x), 0j, lax.max, (2, 2), (1, 1), "SAME")
    _close(got, jax.lax.reduce_window(x, 0j, jax.lax.max, (2, 2), (1, 1), "SAME"))
    got = lax.reduce_window_min(jnp.asarray(x), (2, 3), (1, 1), ((0, 1), (1, 1)))
    want = jax.lax.reduce_window(x, complex(np.inf, 0), jax.lax.min, (2, 3), (1, 1),
                                 ((0, 1), (1, 1)))
    _close(got, want)


@pytest.mark.parametrize("computation, init", [("add", 0j), ("add", 1j), ("mul", 1 + 0j)])
def test_reduce_window_sums_and_products(cdtype, computation, init):
    xs, init = _crand((2, 5, 6), cdtype, 27), cdtype(init)  # jax wants the operand's dtype

    def run(lax_mod, x):
        return lax_mod.reduce_window(x, init, getattr(lax_mod, computation), (2, 3), (1, 2),
                                     "SAME")

    _check_modes(lambda x: run(lax, x), lambda x: run(jax.lax, x), xs[0], vmap=False)
    _close(numlir.vmap(lambda x: run(lax, x))(xs), jax.jit(jax.vmap(lambda x: run(jax.lax, x)))(xs))


def test_reduce_window_sum_gradient_as_jax(x64):
    x = _crand((5, 6), C128, 28)

    def loss(lax_mod, np_mod, x):
        out = lax_mod.reduce_window(x, 0j, lax_mod.add, (2, 2), (2, 1), ((1, 0), (0, 1)))
        return np_mod.sum(np_mod.abs(out) ** 2)

    _close(numlir.grad(lambda x: loss(lax, jnp, x))(x),
           jax.jit(jax.grad(lambda x: loss(jax.lax, jnp_ref, x)))(x))


def _window_selection_counts(x, dims, padding):
    """How many stride-1 windows pick each element of 2-D ``x`` as their lexicographic max."""
    (l0, h0), (l1, h1) = padding
    counts = np.zeros(x.shape)
    for i in range(-l0, x.shape[0] + h0 - dims[0] + 1):
        for j in range(-l1, x.shape[1] + h1 - dims[1] + 1):
            cells = [(a, b) for a, b in itertools.product(range(i, i + dims[0]),
                                                          range(j, j + dims[1]))
                     if 0 <= a < x.shape[0] and 0 <= b < x.shape[1]]
            counts[max(cells, key=lambda c: (x[c].real, x[c].imag))] += 1
    return counts


def test_reduce_window_max_gradient_flows_to_the_selected_element(x64):
    # jax's reduce_window derivative refuses complex (its rule compares with ge); the
    # reference is its rule for reals, the loss |out|^2 having gradient 2 conj(out) per window.
    x = _crand((4, 5), C128, 10)
    padding = ((0, 1), (1, 1))
    loss = lambda x: jnp.sum(jnp.abs(  # noqa: E731
        lax.reduce_window(x, -jnp.inf, lax.max, (2, 2), (1, 1), padding)) ** 2)
    want = 2 * _window_selection_counts(x, (2, 2), padding) * np.conj(x)
    _close(numlir.grad(loss)(x), want)
    _close(numlir.jit(numlir.grad(loss))(x), want)


# --- convolutions --------------------------------------------------------------------------

_CONVS = [  # lhs shape, rhs shape, kwargs of conv_general_dilated
    ((2, 3, 9), (4, 3, 3), dict(window_strides=(1,), padding="SAME")),
    ((2, 4, 7, 6), (6, 2, 3, 2), dict(window_strides=(2, 1), padding=((1, 2), (0, 1)),
                                      lhs_dilation=(1, 2), rhs_dilation=(2, 1),
                                      feature_group_count=2)),
    ((4, 5, 6, 3), (3, 2, 3, 6), dict(window_strides=(1, 1), padding="VALID",
                                      dimension_numbers=("NHWC", "HWIO", "NHWC"),
                                      batch_group_count=2)),
]


def _conv_pair(kwargs):
    return (lambda x, w: lax.conv_general_dilated(x, w, **kwargs),
            lambda x, w: jax.lax.conv_general_dilated(x, w, **kwargs))


@pytest.mark.parametrize("case", _CONVS)
def test_conv_general_dilated_of_complex_operands(cdtype, case):
    lhs_shape, rhs_shape, kwargs = case
    x, w = _crand(lhs_shape, cdtype, 11), _crand(rhs_shape, cdtype, 12)
    fn, ref = _conv_pair(kwargs)
    _check_modes(fn, ref, x, w, vmap=False)
    # vmap over a new leading axis of the lhs only (the kernel shared).
    xs = _crand((2, *lhs_shape), cdtype, 13)
    _close(numlir.vmap(fn, in_axes=(0, None))(xs, w), jax.jit(jax.vmap(ref, in_axes=(0, None)))(xs, w))


@pytest.mark.parametrize("case", _CONVS[:2])
def test_conv_gradients_of_a_real_loss_as_jax(x64, case):
    lhs_shape, rhs_shape, kwargs = case
    x, w = _crand(lhs_shape, C128, 14), _crand(rhs_shape, C128, 15)
    fn, ref = _conv_pair(kwargs)
    loss = lambda x, w: jnp.sum(jnp.abs(fn(x, w)) ** 2)  # noqa: E731
    ref_loss = lambda x, w: jnp_ref.sum(jnp_ref.abs(ref(x, w)) ** 2)  # noqa: E731
    got = numlir.grad(loss, argnums=(0, 1))(x, w)
    want = jax.jit(jax.grad(ref_loss, argnums=(0, 1)))(x, w)
    for g, r in zip(got, want):
        _close(g, r)
    tx, tw = _crand(lhs_shape, C128, 16), _crand(rhs_shape, C128, 17)
    _, got_t = numlir.jvp(fn, (x, w), (tx, tw))
    _, want_t = jax.jvp(ref, (x, w), (tx, tw))
    _close(got_t, want_t)


def test_conv_wrappers_on_complex_operands(x64):
    x, w = _crand((1, 2, 6, 5), C128, 18), _crand((3, 2, 2, 2), C128, 19)
    _close(lax.conv(jnp.asarray(x), jnp.asarray(w), (1, 2), "SAME"),
           jax.lax.conv(x, w, (1, 2), "SAME"))
    _close(lax.conv_with_general_padding(jnp.asarray(x), jnp.asarray(w), (2, 1),
                                         ((1, 0), (0, 1)), (1, 1), (1, 2)),
           jax.lax.conv_with_general_padding(x, w, (2, 1), ((1, 0), (0, 1)), (1, 1), (1, 2)))
    x, w = _crand((2, 5, 4, 3), C128, 20), _crand((3, 2, 3, 3), C128, 21)
    for transpose_kernel in (False, True):
        got = lax.conv_transpose(jnp.asarray(x), jnp.asarray(w), (2, 1), "SAME",
                                 transpose_kernel=transpose_kernel)
        want = jax.lax.conv_transpose(x, w, (2, 1), "SAME", transpose_kernel=transpose_kernel)
        _close(got, want)


def test_conv_refuses_mixed_dtypes_and_real_preferred_types_as_jax(x64):
    x = jnp.asarray(_crand((1, 1, 4), C128))
    for other in (np.ones((1, 1, 2)), np.ones((1, 1, 2), C64)):
        with pytest.raises(TypeError, match="conv_general_dilated requires arguments to have "
                                            "the same dtypes"):
            lax.conv(x, jnp.asarray(other), (1,), "VALID")
    with pytest.raises(TypeError, match="Input type is incompatible with `preferred_element_type`"):
        lax.conv(x, x[:, :, :2], (1,), "VALID", preferred_element_type=np.float64)
    got = lax.conv(x, x[:, :, :2], (1,), "VALID", preferred_element_type=C128)
    want = jax.lax.conv(np.asarray(x), np.asarray(x)[:, :, :2], (1,), "VALID",
                        preferred_element_type=C128)
    _close(got, want)


@pytest.mark.parametrize("name", ["convolve", "correlate"])
@pytest.mark.parametrize("mode", ["full", "same", "valid"])
def test_numpy_convolve_and_correlate_of_complex_arrays(x64, name, mode):
    a, v = _crand((7,), C128, 22), _crand((3,), C128, 23)
    real = np.random.default_rng(24).normal(size=4)
    pairs = [(a, v), (v, a)] + ([(a, real), (real, v)] if mode == "full" else [])
    for x, y in pairs:  # both length orders; real and complex operands promote
        got = getattr(jnp, name)(jnp.asarray(x), jnp.asarray(y), mode=mode)
        want = getattr(jnp_ref, name)(x, y, mode=mode)
        _close(got, want)
        np.testing.assert_allclose(np.asarray(got), getattr(np, name)(x, y, mode=mode),
                                   rtol=1e-12, atol=1e-12)


def test_correlate_gradient_as_jax(x64):
    a, v = _crand((6,), C128, 25), _crand((3,), C128, 26)
    loss = lambda a, v: jnp.sum(jnp.abs(jnp.correlate(a, v, mode="full")) ** 2)  # noqa: E731
    ref = lambda a, v: jnp_ref.sum(jnp_ref.abs(jnp_ref.correlate(a, v, mode="full")) ** 2)  # noqa: E731
    for g, r in zip(numlir.grad(loss, argnums=(0, 1))(a, v), jax.jit(jax.grad(ref, argnums=(0, 1)))(a, v)):
        _close(g, r)
