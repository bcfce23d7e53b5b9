"""The jax.numpy functions added for API coverage, against jax.numpy: values, dtypes and
shapes, eager and under jit, over dtypes and shapes; then their gradients and errors."""

import jax
import jax.numpy as jjnp
import numpy as np
import pytest

import numlir
from jax_comparison import assert_same as _assert_same
from jax_comparison import leaves as _leaves
import numlir.numpy as jnp

R = np.random.default_rng(17)
F = R.standard_normal((3, 4)).astype(np.float32)
F1 = R.standard_normal(7).astype(np.float32)
I = R.integers(-20, 20, size=(3, 4)).astype(np.int32)
NAN = np.array([[1.0, np.nan, 3.0], [np.nan, np.nan, np.nan], [-2.0, 5.0, np.nan]], np.float32)
SPECIAL = np.array([0.0, -0.0, 1.5, -2.25, np.inf, -np.inf, np.nan, 1e-30, -3e-38, 7e37], np.float32)
SUBNORMAL = np.array([1e-40, -3e-39, 1e-45, 1.1754942e-38], np.float32)

# name -> (function of the numpy module, positional args); jit traces the array arguments.
CASES = {
    "isclose": (lambda np_, a, b: np_.isclose(a, b, rtol=1e-3), (F, F + 1e-4)),
    "isclose_special": (lambda np_, a: np_.isclose(a, a[::-1], equal_nan=True), (SPECIAL,)),
    "isclose_int": (lambda np_, a: np_.isclose(a, 3), (I,)),
    "allclose": (lambda np_, a, b: np_.allclose(a, b, atol=1e-3), (F, F + 1e-4)),
    "array_equal_nan": (lambda np_, a: np_.array_equal(a, a, equal_nan=True), (NAN,)),
    "array_equal": (lambda np_, a: np_.array_equal(a, a), (NAN,)),
    "array_equiv": (lambda np_, a: np_.array_equiv(a, a[0]), (np.ones((3, 4), np.float32),)),
    "isin": (lambda np_, a, b: np_.isin(a, b), (I, I[0])),
    "isin_invert": (lambda np_, a, b: np_.isin(a, b, invert=True), (I, I[1])),
    "signbit": (lambda np_, a: np_.signbit(a), (SPECIAL,)),
    "signbit_int": (lambda np_, a: np_.signbit(a), (I,)),
    "isposinf": (lambda np_, a: np_.isposinf(a), (SPECIAL,)),
    "isneginf": (lambda np_, a: np_.isneginf(a), (SPECIAL,)),
    "isreal": (lambda np_, a: np_.isreal(a), (F,)),
    "iscomplex": (lambda np_, a: np_.iscomplex(a), (F,)),
    "copysign": (lambda np_, a, b: np_.copysign(a, b), (F, F[::-1])),
    "copysign_zero": (lambda np_, a: np_.copysign(1.0, a), (SPECIAL,)),
    "fabs": (lambda np_, a: np_.fabs(a), (I,)),
    "float_power": (lambda np_, a: np_.float_power(np_.abs(a), 1.5), (F,)),
    "frexp": (lambda np_, a: np_.frexp(a), (SPECIAL,)),
    "frexp_range": (lambda np_, a: np_.frexp(a), (F * 1e6,)),
    "ldexp": (lambda np_, a, e: np_.ldexp(a, e), (F, I)),
    "ldexp_extremes": (lambda np_, a: np_.ldexp(a, np.array([1, -200, 200, 5, 0, 3, 1, 100, 20, -150], np.int32)), (SPECIAL,)),
    "modf": (lambda np_, a: np_.modf(a * 3), (F,)),
    "spacing": (lambda np_, a: np_.spacing(a), (SPECIAL[:6],)),
    "sinc": (lambda np_, a: np_.sinc(a), (np.concatenate([F1, [0.0, 1e-3, -0.02]]).astype(np.float32),)),
    "divmod": (lambda np_, a, b: np_.divmod(a, b), (I, np.where(I[::-1] == 0, 3, I[::-1]))),
    "gcd": (lambda np_, a, b: np_.gcd(a, b), (I, I[::-1])),
    "lcm": (lambda np_, a, b: np_.lcm(a, b), (I, I[::-1])),
    "real": (lambda np_, a: np_.real(a), (F,)),
    "imag": (lambda np_, a: np_.imag(a), (F,)),
    "conj": (lambda np_, a: np_.conj(a), (I,)),
    "angle": (lambda np_, a: np_.angle(a), (SPECIAL[:6],)),
    "angle_deg": (lambda np_, a: np_.angle(a, deg=True), (F,)),
    "empty_like": (lambda np_, a: np_.empty_like(a).shape, (F,)),
    "copy": (lambda np_, a: np_.copy(a), (F,)),
    "meshgrid_xy": (lambda np_, a, b: np_.meshgrid(a, b), (F1, F1[:3])),
    "meshgrid_ij_sparse": (lambda np_, a, b, c: np_.meshgrid(a, b, c, indexing="ij", sparse=True), (F1, F1[:3], F1[:2])),
    "diagflat": (lambda np_, a: np_.diagflat(a, 1), (F,)),
    "vander": (lambda np_, a: np_.vander(a, 4), (F1,)),
    "vander_increasing": (lambda np_, a: np_.vander(a, increasing=True), (np.arange(4, dtype=np.int32),)),
    "append": (lambda np_, a, b: np_.append(a, b), (F, F1)),
    "append_axis": (lambda np_, a: np_.append(a, a, axis=1), (F,)),
    "delete": (lambda np_, a: np_.delete(a, np.array([0, 2]), axis=1), (F,)),
    "delete_slice": (lambda np_, a: np_.delete(a, slice(1, None, 2)), (F,)),
    "rollaxis": (lambda np_, a: np_.rollaxis(a, 2, 0), (np.zeros((2, 3, 4), np.float32),)),
    "rollaxis_start": (lambda np_, a: np_.rollaxis(a, 0, 3), (np.zeros((2, 3, 4), np.float32),)),
    "permute_dims": (lambda np_, a: np_.permute_dims(a, (1, 0)), (F,)),
    "matrix_transpose": (lambda np_, a: np_.matrix_transpose(a), (np.zeros((2, 3, 4), np.float32),)),
    "unstack": (lambda np_, a: np_.unstack(a, axis=1), (F,)),
    "concat": (lambda np_, a: np_.concat([a, a], axis=0), (F,)),
    "broadcast_arrays": (lambda np_, a, b: np_.broadcast_arrays(a, b), (F, F[0])),
    "select": (lambda np_, a: np_.select([a < -0.5, a > 0.5], [a * 10, a * 100], -1.0), (F,)),
    "fill_diagonal": (lambda np_, a: np_.fill_diagonal(a, 9.0, inplace=False), (F,)),
    "fill_diagonal_cycled": (lambda np_, a: np_.fill_diagonal(a, np.array([1.0, 2.0], np.float32), inplace=False),
                             (np.zeros((4, 3, 3, 3)[1:], np.float32),)),
    "nanargmax": (lambda np_, a: np_.nanargmax(a, axis=1), (NAN,)),
    "nanargmin": (lambda np_, a: np_.nanargmin(a, axis=1), (NAN,)),
    "nanprod": (lambda np_, a: np_.nanprod(a, axis=0), (NAN,)),
    "nancumsum": (lambda np_, a: np_.nancumsum(a, axis=1), (NAN,)),
    "nancumprod": (lambda np_, a: np_.nancumprod(a), (NAN,)),
    "nanvar": (lambda np_, a: np_.nanvar(a, axis=1), (NAN,)),
    "nanstd_ddof": (lambda np_, a: np_.nanstd(a, axis=0, ddof=1), (NAN,)),
    "cumulative_sum": (lambda np_, a: np_.cumulative_sum(a, axis=1, include_initial=True), (I,)),
    "cumulative_prod": (lambda np_, a: np_.cumulative_prod(a), (F1,)),
    "diff": (lambda np_, a: np_.diff(a, n=2), (F,)),
    "diff_prepend": (lambda np_, a: np_.diff(a, axis=0, prepend=0.0, append=a[:1]), (F,)),
    "diff_bool": (lambda np_, a: np_.diff(a > 0), (F,)),
    "ediff1d": (lambda np_, a: np_.ediff1d(a, to_begin=np.float32(-1), to_end=np.array([7.0, 8.0])), (F,)),
    "trapezoid": (lambda np_, a: np_.trapezoid(a, dx=0.5), (F,)),
    "trapezoid_x": (lambda np_, a, x: np_.trapezoid(a, x), (F, np.cumsum(np.abs(F1[:4])).astype(np.float32))),
    "cov": (lambda np_, a: np_.cov(a), (F,)),
    "cov_cols_bias": (lambda np_, a, b: np_.cov(a, b, rowvar=False, bias=True), (F, F[:, ::-1])),
    "cov_weights": (lambda np_, a: np_.cov(a, fweights=np.array([1, 2, 1, 3]), aweights=np.array([0.5, 1.0, 2.0, 1.0])), (F,)),
    "corrcoef": (lambda np_, a: np_.corrcoef(a), (F,)),
    "digitize": (lambda np_, a: np_.digitize(a, np.array([-1.0, 0.0, 0.5, 2.0], np.float32)), (F,)),
    "digitize_right_decreasing": (lambda np_, a: np_.digitize(a, np.array([2.0, 0.5, 0.0, -1.0], np.float32), right=True), (F,)),
    "interp": (lambda np_, x, xp, fp: np_.interp(x, xp, fp), (F1 * 2, np.linspace(-2, 2, 5).astype(np.float32), F1[:5])),
    "interp_left_right": (lambda np_, x: np_.interp(x, np.array([0.0, 1.0], np.float32), np.array([3.0, 4.0], np.float32), left=-1.0, right=9.0), (F1,)),
    "interp_period": (lambda np_, x: np_.interp(x, np.array([0.0, 1.0, 2.5], np.float32), np.array([3.0, 4.0, 1.0], np.float32), period=3.0), (F1 * 4,)),
    "bincount_length": (lambda np_, a: np_.bincount(a, length=12), (np.abs(I).ravel() % 10,)),
    "bincount_weights": (lambda np_, a, w: np_.bincount(a, w, length=6), (np.array([0, 1, 1, 5, 7, -1], np.int32), F1[:6])),
    "convolve": (lambda np_, a, v: np_.convolve(a, v), (F1, F1[:3])),
    "convolve_same_swapped": (lambda np_, a, v: np_.convolve(a, v, mode="same"), (F1[:3], F1)),
    "convolve_valid_int": (lambda np_, a, v: np_.convolve(a, v, mode="valid"), (I[0], I[1, :2])),
    "correlate": (lambda np_, a, v: np_.correlate(a, v), (F1, F1[:3])),
    "correlate_full": (lambda np_, a, v: np_.correlate(a, v, mode="full"), (F1[:4], F1)),
    "correlate_same": (lambda np_, a, v: np_.correlate(a, v, mode="same"), (F1, F1[:4])),
    "kron": (lambda np_, a, b: np_.kron(a, b), (F[:2, :3], I[:2, :2])),
    "kron_ranks": (lambda np_, a, b: np_.kron(a, b), (F1[:3], F[:2])),
    "cross3": (lambda np_, a, b: np_.cross(a, b), (F[:, :3], F[::-1, 1:])),
    "cross2": (lambda np_, a, b: np_.cross(a, b), (F[:, :2], F[:, 2:])),
    "cross_axis": (lambda np_, a, b: np_.cross(a, b, axis=0), (F[:, :2], F[:, 2:])),
    "vecdot": (lambda np_, a, b: np_.vecdot(a, b), (F, F[0])),
    "matvec": (lambda np_, a, b: np_.matvec(a, b), (np.stack([F, F]), F[0])),
    "vecmat": (lambda np_, a, b: np_.vecmat(a, b), (F[:, 0], F)),
}

STATIC = {
    "empty": lambda np_: np_.empty((2, 3)),
    "indices": lambda np_: np_.indices((2, 3)),
    "indices_sparse": lambda np_: np_.indices((2, 3, 2), sparse=True),
    "tril_indices": lambda np_: np_.tril_indices(4, -1, 5),
    "triu_indices": lambda np_: np_.triu_indices(3, 1),
    "tril_indices_from": lambda np_: np_.tril_indices_from(np.zeros((3, 5))),
    "triu_indices_from": lambda np_: np_.triu_indices_from(np.zeros((4, 2)), -1),
    "diag_indices": lambda np_: np_.diag_indices(3, 3),
    "diag_indices_from": lambda np_: np_.diag_indices_from(np.zeros((4, 4))),
    "logspace": lambda np_: np_.logspace(0.0, 2.0, 5),
    "logspace_base": lambda np_: np_.logspace(1.0, -1.0, 4, base=2.0, endpoint=False),
    "geomspace": lambda np_: np_.geomspace(1.0, 1000.0, 4),
    "geomspace_negative": lambda np_: np_.geomspace(-2.0, -32.0, 5),
    "bartlett": lambda np_: np_.bartlett(7),
    "blackman": lambda np_: np_.blackman(6),
    "hamming": lambda np_: np_.hamming(5),
    "hanning": lambda np_: np_.hanning(1),
    "bincount_eager": lambda np_: np_.bincount(np.array([1, 1, 3], np.int32), minlength=6),
    "broadcast_shapes": lambda np_: np_.broadcast_shapes((2, 1), (3,), ()),
    "isscalar": lambda np_: [np_.isscalar(v) for v in (1.0, np.float32(2), np.ones(()), np.ones(2), [1])],
    "iterable": lambda np_: [np_.iterable(v) for v in (1.0, [1], np.ones(2))],
    "realobj": lambda np_: (np_.isrealobj(np.ones(2)), np_.iscomplexobj(np.ones(2))),
}


@pytest.mark.parametrize("name", CASES)
def test_function_matches_jax(name):
    fn, args = CASES[name]
    # jax's reference jitted (op by op, it compiles each primitive on its own), but for
    # empty_like's case, which returns a Python shape
    want = fn(jjnp, *args) if name == "empty_like" else jax.jit(lambda *a: fn(jjnp, *a))(*args)
    tol = 1e-5
    _assert_same(fn(jnp, *[jnp.asarray(a) for a in args]), want, tol)
    if name != "empty_like":
        _assert_same(numlir.jit(lambda *a: fn(jnp, *a))(*args), want, tol)


@pytest.mark.parametrize("name", STATIC)
def test_static_function_matches_jax(name):
    _assert_same(STATIC[name](jnp), STATIC[name](jjnp), 1e-6)


@pytest.mark.parametrize("name", ["isclose", "copysign", "modf", "sinc", "nanvar", "diff", "cov", "corrcoef",
                                  "interp", "convolve", "correlate", "kron", "cross3", "vecdot", "trapezoid_x"])
def test_float64_under_x64(name, x64):
    fn, args = CASES[name]
    args = [a.astype(np.float64) if a.dtype == np.float32 else a for a in args]
    _assert_same(numlir.jit(lambda *a: fn(jnp, *a))(*args), jax.jit(lambda *a: fn(jjnp, *a))(*args), 1e-12)


@pytest.mark.parametrize("name", ["sinc", "copysign", "nanvar", "cov", "corrcoef", "interp", "convolve",
                                  "cross3", "kron", "trapezoid_x", "float_power", "ldexp"])
def test_gradients_match_jax(name, x64):
    fn, args = CASES[name]
    args = [a.astype(np.float64) if a.dtype == np.float32 else a for a in args]
    weights = [np.cos(np.arange(np.asarray(w).size)).reshape(np.shape(w)) for w in _leaves(fn(jjnp, *args))]

    def loss(np_):
        return lambda x: sum((o * w).sum() for o, w in zip(jax.tree_util.tree_leaves(fn(np_, x, *args[1:])),
                                                            weights))

    got = np.asarray(numlir.grad(loss(jnp))(args[0]))
    want = np.asarray(jax.grad(loss(jjnp))(args[0]))
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-10)


def test_sinc_derivatives_at_zero_match_jax(x64):
    for order_fn, jorder_fn in ((numlir.grad(jnp.sinc), jax.grad(jjnp.sinc)),
                                (numlir.grad(numlir.grad(jnp.sinc)), jax.grad(jax.grad(jjnp.sinc))),
                                (numlir.grad(numlir.grad(numlir.grad(numlir.grad(jnp.sinc)))),
                                 jax.grad(jax.grad(jax.grad(jax.grad(jjnp.sinc)))))):
        np.testing.assert_allclose(float(order_fn(0.0)), float(jorder_fn(0.0)), rtol=1e-6, atol=1e-12)


def test_frexp_and_ldexp_of_subnormals_match_numpy():
    # NumPy, not jax: XLA:CPU flushes subnormal inputs to zero in frexp.
    m, e = jnp.frexp(SUBNORMAL)
    want_m, want_e = np.frexp(SUBNORMAL)
    np.testing.assert_array_equal(np.asarray(m), want_m)
    np.testing.assert_array_equal(np.asarray(e), want_e)
    np.testing.assert_array_equal(np.asarray(jnp.ldexp(want_m, want_e)), SUBNORMAL)


def test_fill_diagonal_wraps_tall_matrices_as_numpy():
    # jax does not implement wrap=True; NumPy's flat-stride semantics are the reference.
    for shape in ((7, 3), (5, 2), (3, 3)):
        want = np.zeros(shape, np.float32)
        np.fill_diagonal(want, [1.0, 2.0], wrap=True)
        got = jnp.fill_diagonal(np.zeros(shape, np.float32), np.array([1.0, 2.0], np.float32), wrap=True,
                                inplace=False)
        np.testing.assert_array_equal(np.asarray(got), want)


def test_gcd_and_lcm_of_zeros_and_negatives():
    a = np.array([0, 0, -12, 7, 2**20, -9], np.int32)
    b = np.array([0, 5, 18, -21, 2**12, 0], np.int32)
    np.testing.assert_array_equal(np.asarray(jnp.gcd(a, b)), np.gcd(a, b))
    np.testing.assert_array_equal(np.asarray(jnp.lcm(a, b)), np.lcm(a, b))


def test_errors_name_the_problem():
    with pytest.raises(NotImplementedError, match="inplace=False"):
        jnp.fill_diagonal(np.zeros((2, 2)), 1.0)
    with pytest.raises(ValueError, match="condlist must have length equal to choicelist"):
        jnp.select([np.ones(2, bool)], [])
    with pytest.raises(ValueError, match="Incompatible shapes for broadcasting"):
        jnp.broadcast_shapes((2,), (3,))
    with pytest.raises(IndexError, match="out of bounds"):
        jnp.delete(np.arange(3), 5)
    with pytest.raises(numlir.ConcretizationTypeError, match="pass length="):
        numlir.jit(jnp.bincount)(np.array([1, 2], np.int32))
    with pytest.raises(ValueError, match="ldexp not supported"):
        jnp.ldexp(np.ones(2, np.float32), np.ones(2, np.float32))
    with pytest.raises(ValueError, match="matrix_transpose"):
        jnp.matrix_transpose(np.ones(3))


def test_clip_accepts_jax_min_max_keywords():
    # JAX 0.10 names clip's bounds min/max (numlir had numpy's a_min/a_max, so
    # jnp.clip(x, min=..., max=...) raised TypeError). JAX has removed a_min/a_max: they are
    # a TypeError there, and numlir follows.
    import inspect

    def params(f):
        return [(p.name, p.kind, p.default) for p in inspect.signature(f).parameters.values()]

    assert params(jnp.clip) == params(jjnp.clip)
    lo, hi = F[0] - 0.5, np.float32(0.7)
    calls = [
        lambda np_, x: np_.clip(x, min=-0.5, max=0.5), lambda np_, x: np_.clip(x, min=lo),
        lambda np_, x: np_.clip(x, max=hi), lambda np_, x: np_.clip(x, lo, hi),
        lambda np_, x: np_.clip(x, None, 0.25), lambda np_, x: np_.clip(x.astype(np_.int32), min=-1, max=2),
        lambda np_, x: np_.asarray(x).clip(min=-0.5, max=0.5), lambda np_, x: np_.asarray(x).clip(max=hi),
        lambda np_, x: np_.asarray(x).clip(-0.5),
    ]
    for call in calls:
        want = call(jjnp, F)
        _assert_same(call(jnp, F), want)
        _assert_same(numlir.jit(lambda x, call=call: call(jnp, x))(F), want)
    for lib in (jnp, jjnp):
        with pytest.raises(TypeError, match="a_min"):
            lib.clip(F, a_min=0.0)
        with pytest.raises(TypeError, match="a_max"):
            lib.clip(F, a_max=0.0)
        with pytest.raises(TypeError, match="a_min"):
            lib.asarray(F).clip(a_min=0.0)
        with pytest.raises(ValueError, match="No input was provided"):
            lib.clip()
        with pytest.raises(ValueError, match="No input was provided"):
            lib.clip(None, 0.0)
