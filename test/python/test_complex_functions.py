"""The complex elementwise functions beyond the arithmetic and exp/log families, against jax:
sinh, cosh, the inverse trigonometric and hyperbolic functions, atan2, logistic, exp2, log2,
log10, and the lexicographic max/min (elementwise and as reductions).

Values are compared in ulp of each part over grids of every magnitude, the branch cuts with
both signed zeros, and the inf/NaN edges, eagerly, under jit and under vmap; derivatives with
jax.jvp, holomorphic grad and the grads of real functions of them. XLA on the CPU flushes
subnormal inputs, intermediates and results to zero, so the grids hold no part below 16 times
the smallest normal number, and a subnormal result matches jax's zero.
"""

import jax
import jax.numpy as jnp_ref
import numpy as np
import pytest

import numlir
import numlir.numpy as jnp
from numlir import lax
from standard_special_points import departs_from_jax

C64, C128 = np.complex64, np.complex128
INVERSE = ["arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh"]


def _part(dtype):
    return np.float32 if np.dtype(dtype) == np.dtype(C64) else np.float64


def _complex(re, im, dtype):
    z = np.empty(np.broadcast(re, im).shape, dtype)
    z.real, z.imag = re, im
    return z


def _edge_parts(dtype):
    """Signed zeros, the smallest magnitude not flushed, the neighbours of 1, sqrt(max), max,
    inf and NaN."""
    f = np.finfo(_part(dtype))
    magnitudes = [16 * f.tiny, 1e-20, f.eps, 0.5, 1 - f.epsneg, 1.0, 1 + f.eps, 2.0, 3.0, 1e8,
                  np.sqrt(f.max), f.max, np.inf]
    return np.array([0.0, -0.0, np.nan] + magnitudes + [-m for m in magnitudes], _part(dtype))


def _edge_grid(dtype):
    re, im = np.meshgrid(_edge_parts(dtype), _edge_parts(dtype), indexing="ij")
    return _complex(re.ravel(), im.ravel(), dtype)


def _wide_grid(dtype, n=3000, seed=0):
    """Random signs and log-uniform magnitudes over the whole normal range; points within
    1e-15..1e-1 of the branch points +-1 and +-i just off the axes (on either side); points near
    the unit circle."""
    part = _part(dtype)
    f = np.finfo(part)
    rng = np.random.default_rng(seed)
    lo, hi = np.log10(16 * f.tiny), np.log10(f.max) - 1

    def logs(size):
        return rng.choice([-1, 1], size) * 10.0 ** rng.uniform(lo, hi, size)

    k = n // 4
    near = rng.choice([-1, 1], k) * (1 + rng.uniform(-1, 1, k) * 10.0 ** -rng.uniform(1, 15, k))
    off = rng.choice([-1, 1], k) * 10.0 ** -rng.uniform(0, -lo, k)
    angle = rng.uniform(0, 2 * np.pi, k)
    radius = 1 + rng.uniform(-1, 1, k) * 10.0 ** -rng.uniform(1, 15, k)
    re = np.concatenate([logs(n), rng.uniform(-3, 3, n), near, off, radius * np.cos(angle)])
    im = np.concatenate([logs(n), rng.uniform(-3, 3, n), off, near, radius * np.sin(angle)])
    with np.errstate(over="ignore", under="ignore"):
        z = _complex(re.astype(part), im.astype(part), dtype)
    unflushed = lambda v: (v == 0) | (np.abs(v) >= 16 * f.tiny)  # noqa: E731
    return z[unflushed(z.real) & unflushed(z.imag)]


def _ulps(got, want, part):
    """Distance of each element of ``got`` from ``want`` in ulp of ``want``: 0 for equal
    values with equal signs of zero, for two NaNs and for a subnormal against jax's flushed
    zero; inf where one is NaN or infinite and the other is not, or zeros' signs differ."""
    f = np.finfo(part)
    got, want = got.astype(np.float64), want.astype(np.float64)
    with np.errstate(all="ignore"):
        spacing = np.spacing(np.maximum(np.abs(want), f.tiny).astype(part)).astype(np.float64)
        err = np.abs(got - want) / spacing
    err[~np.isfinite(got) | ~np.isfinite(want)] = np.inf
    same = (got == want) & (np.signbit(got) == np.signbit(want))
    err[(got == want) & ~same] = np.inf
    # Within 4 of the smallest normal: flushed in one of XLA's intermediates.
    err[same | (np.isnan(got) & np.isnan(want)) | ((want == 0) & (np.abs(got) < 4 * f.tiny))] = 0
    return err


def _assert_ulps(got, want, z, max_ulps, what=""):
    part = _part(got.dtype)
    err = np.maximum(_ulps(got.real, want.real, part), _ulps(got.imag, want.imag, part))
    worst = int(np.argmax(err))
    assert err[worst] <= max_ulps, (
        f"{what}: {err[worst]:.3g} ulp at z={z.reshape(z.shape[0], -1)[:, worst] if z.ndim > 1 else z[worst]!r}: "
        f"got {got[worst]!r}, jax {want[worst]!r}")


# --- Values against jax -----------------------------------------------------------------------------


@pytest.mark.parametrize("name", INVERSE)
@pytest.mark.parametrize("dtype", [C64, C128])
def test_inverse_functions_match_jax_to_a_few_ulp_and_on_every_edge(name, dtype, request):
    if dtype == C128:
        request.getfixturevalue("x64")
    z = np.concatenate([_edge_grid(dtype), _wide_grid(dtype)])
    z = z[~departs_from_jax(name, z)]  # the standard's values: test_array_api_special_cases
    got = np.asarray(getattr(jnp, name)(z))
    want = np.asarray(getattr(jnp_ref, name)(z))
    assert got.dtype == want.dtype == dtype
    _assert_ulps(got, want, z, 6, name)


# Points on the cuts with both signed zeros, and the conventions XLA picks: -0 counts as the
# upper (right) side for asin, acos, atanh, asinh, acosh; atan's cut takes its side from -y.
_CUT_POINTS = [(2.0, 0.0), (2.0, -0.0), (-2.0, 0.0), (-2.0, -0.0), (0.5, -0.0), (-0.5, -0.0),
               (0.0, 2.0), (-0.0, 2.0), (0.0, -2.0), (-0.0, -2.0), (1.0, 0.0), (-1.0, -0.0),
               (0.0, 1.0), (-0.0, -1.0), (0.0, 0.0), (-0.0, -0.0), (1e300, -0.0), (-0.0, 1e300)]


@pytest.mark.parametrize("name", INVERSE)
def test_branch_cuts_and_signed_zeros_are_jaxs(name, x64):
    re, im = np.array(_CUT_POINTS).T
    z = _complex(re, im, C128)
    got, want = np.asarray(getattr(jnp, name)(z)), np.asarray(getattr(jnp_ref, name)(z))
    _assert_ulps(got, want, z, 2, name)
    for part in ("real", "imag"):
        g, w = getattr(got, part), getattr(want, part)
        np.testing.assert_array_equal(np.signbit(g[~np.isnan(g)]), np.signbit(w[~np.isnan(w)]))


@pytest.mark.parametrize("name", ["sinh", "cosh"])
@pytest.mark.parametrize("dtype", [C64, C128])
def test_sinh_cosh_are_accurate_with_c99s_special_values(name, dtype, request):
    """jax's sinh and cosh are exp(z - log 2) -+ exp(-z - log 2), which loses the small parts
    (sinh(1e-10 + 1e-10j)) and up to ~200 ulp for large ones; numlir's are sinh x cos y + i
    cosh x sin y, as numpy (C99), so numpy is the reference to an ulp or two, and jax only
    where it is accurate."""
    if dtype == C128:
        request.getfixturevalue("x64")
    part = _part(dtype)
    big = 700.0 if dtype == C128 else 80.0  # where e^|x| / 2 is computed in halves
    rng = np.random.default_rng(3)
    beyond = _complex(rng.choice([-1, 1], 200) * rng.uniform(big - 10, big + 15, 200),
                      rng.uniform(-4, 4, 200), dtype)
    z = np.concatenate([_edge_grid(dtype), _wide_grid(dtype), beyond])
    got = np.asarray(getattr(jnp, name)(z))
    with np.errstate(all="ignore"):
        want = getattr(np, name)(z)
    _assert_ulps(got, want, z, 3, f"{name} against numpy")
    moderate = _complex(rng.uniform(-5, 5, 300).astype(part), rng.uniform(-5, 5, 300).astype(part),
                        dtype)
    tol = 1e-13 if dtype == C128 else 2e-6
    np.testing.assert_allclose(np.asarray(getattr(jnp, name)(moderate)),
                               np.asarray(getattr(jnp_ref, name)(moderate)), rtol=tol, atol=tol)


def test_sinh_keeps_the_small_parts_jax_loses(x64):
    z = np.array([1e-10 + 1e-10j, 1e-300 + 2e-300j], C128)
    np.testing.assert_allclose(np.asarray(jnp.sinh(z)), np.sinh(z), rtol=1e-15)
    np.testing.assert_allclose(np.asarray(jnp.cosh(z)).imag, np.cosh(z).imag, rtol=1e-15)


def test_the_slope_of_abs_after_sinh_at_a_tiny_real_part_is_one():
    # Fuzzer seed 149, program 2490: jax's complex sinh drops a real part below ~1e-19, so
    # abs after it sees a modulus of 0 and jax's gradient is 0; the true one at x, tiny and
    # positive, is d|sinh(x)|/dx = cosh(x) = 1, numlir's (the generator now keeps jax's
    # case out of differentiated programs: JAX_WRONG_AT_TINY_COMPLEX).
    f = lambda x: jnp.abs(jnp.sinh(x * (1 + 0j) * 0.5))  # noqa: E731
    for x in (np.float32(2.3e-31), np.float32(-4.6e-31)):
        assert float(numlir.grad(f)(x)) == np.sign(x) * 0.5
        np.testing.assert_allclose(float(f(x)), abs(x) * 0.5, rtol=1e-6)


@pytest.mark.parametrize("dtype", [C64, C128])
def test_logistic_exp2_log2_log10_match_jax(dtype, request):
    if dtype == C128:
        request.getfixturevalue("x64")
    z = np.concatenate([_edge_grid(dtype), _wide_grid(dtype, n=1000)])
    for name, fn, ref in [("logistic", lax.logistic, jax.lax.logistic),
                          ("exp2", jnp.exp2, jnp_ref.exp2)]:
        got, want = np.asarray(fn(z)), np.asarray(ref(z))
        assert got.dtype == want.dtype == dtype
        # The complex division and exp of the C99 expansion differ from XLA's by a few ulp
        # where 1 + exp(-z) nearly cancels.
        moderate = np.abs(z) < 30
        _assert_ulps(got[moderate], want[moderate], z[moderate], 128, name)
        np.testing.assert_array_equal(np.isnan(got[moderate]), np.isnan(want[moderate]))
    for name in ("log2", "log10"):
        z = z[~departs_from_jax(name, z)]  # the standard's values: test_array_api_special_cases
        got, want = np.asarray(getattr(jnp, name)(z)), np.asarray(getattr(jnp_ref, name)(z))
        # XLA's complex log loses digits of log|z| near |z| = 1 (up to ~120 ulp in f64 at
        # |z| = 0.77) where numlir's keeps them: the real parts compare with an absolute
        # tolerance there.
        far = (np.abs(z) < 0.5) | (np.abs(z) > 2) | ~np.isfinite(z)
        _assert_ulps(got[far], want[far], z[far], 4, name)
        np.testing.assert_allclose(got[~far], want[~far], rtol=8 * np.finfo(_part(dtype)).eps,
                                   atol=8 * np.finfo(_part(dtype)).eps)


def test_log_is_accurate_near_the_unit_circle(x64):
    """log|z| = log1p(|z|^2 - 1) / 2 with |z|^2 - 1 summed exactly: 0.6 + 0.8i rounded is
    1.7e-10 (f32) from the circle, which jax gets and a rounded |z| would lose."""
    z = np.array([0.6177003 + 0.7864136j, -0.6097609 - 0.79258543j], C64)
    np.testing.assert_allclose(np.asarray(jnp.log(z)).real, [1.7157120e-10, -3.9510972e-10],
                               rtol=1e-6)
    z = np.array([0.7619740235297305 - 0.07472667936813959j], C128)
    assert np.asarray(jnp.log2(z)).real[0] == pytest.approx(-0.2670569436480856 / np.log(2),
                                                           rel=4e-16)


@pytest.mark.parametrize("dtype", [C64, C128])
def test_sqrt_tan_tanh_match_jax_on_every_edge(dtype, request):
    """The edges that XLA gives C99's values: tanh(x + i inf) is NaN for finite x, tanh(x + iy)
    of huge finite y is +-1 + 0i once |x| > 20, sqrt near max does not overflow. Where the
    array API standard gives a value and XLA NaN (sqrt(NaN + i inf) is inf + inf i, tanh(0 +
    i inf) is 0 + NaN i), numlir gives the standard's (test_array_api_special_cases). jax's
    tan and tanh are off by up to ~14 ulp themselves."""
    if dtype == C128:
        request.getfixturevalue("x64")
    z = np.concatenate([_edge_grid(dtype), _wide_grid(dtype, n=1000)])
    for name, max_ulps in (("sqrt", 2), ("tan", 16), ("tanh", 16)):
        zs = z[~departs_from_jax(name, z)]
        _assert_ulps(np.asarray(getattr(jnp, name)(zs)), np.asarray(getattr(jnp_ref, name)(zs)),
                     zs, max_ulps, name)


def test_log1p_near_minus_one_and_expm1_near_overflow_keep_their_values(x64):
    """log1p(-1 + 1e-20i) is log(1e-20) (jax's is -inf: its |1 + z|^2 - 1 rounds to -1);
    expm1(88.4884 + 0i) in complex64 is finite (e^x (x / log e^x) once overflowed)."""
    got = np.asarray(jnp.log1p(np.array([-1 + 1e-20j, -1 - 1e-300j], C128)))
    np.testing.assert_allclose(got.real, np.log([1e-20, 1e-300]), rtol=1e-15)
    np.testing.assert_allclose(got.imag, [np.pi / 2, -np.pi / 2], rtol=1e-15)
    got = np.asarray(jnp.expm1(np.array([88.4884 - 2.6983264e-12j], C64)))
    np.testing.assert_allclose(got, [2.6916916e38 - 7.2630624e26j], rtol=1e-6)


@pytest.mark.parametrize("dtype", [C64, C128])
def test_arctan2_of_complex_is_xlas_formula(dtype, request):
    """jax's complex atan2(x, y) is XLA's -i log((y + ix) / sqrt(y^2 + x^2))."""
    if dtype == C128:
        request.getfixturevalue("x64")
    rng = np.random.default_rng(5)
    part = _part(dtype)
    x, y = (_complex(rng.normal(size=200) * 10.0 ** rng.uniform(-3, 3, 200),
                     rng.normal(size=200) * 10.0 ** rng.uniform(-3, 3, 200), dtype) for _ in "xy")
    got, want = np.asarray(jnp.arctan2(x, y)), np.asarray(jnp_ref.arctan2(x, y))
    assert got.dtype == dtype
    scale = np.finfo(part).eps * 64
    np.testing.assert_allclose(got, want, rtol=scale, atol=scale)
    np.testing.assert_allclose(np.asarray(lax.atan2(x, y)), want, rtol=scale, atol=scale)
    # A real and a complex operand promote; 0 / 0 is NaN as in jax.
    np.testing.assert_allclose(np.asarray(jnp.arctan2(np.float32(2), x[:3])),
                               np.asarray(jnp_ref.arctan2(np.float32(2), x[:3])), rtol=scale,
                               atol=scale)
    assert np.isnan(np.asarray(jnp.arctan2(np.zeros(1, dtype), np.zeros(1, dtype)))).all()


def test_functions_under_jit_and_under_vmap():
    """The grids above run eagerly; here all the functions in one jitted and in one vmapped
    function (over either axis)."""
    names = INVERSE + ["sinh", "cosh", "exp2", "log2", "log10", "arctan2"]
    z = _complex(*np.random.default_rng(1).uniform(-2, 2, (2, 3, 4)), C64)
    w = z[::-1]

    def apply_all(np_):
        return lambda a, b: [np_.arctan2(a, b) if name == "arctan2" else getattr(np_, name)(a)
                             for name in names]

    want = [np.asarray(v) for v in apply_all(jnp_ref)(z, w)]
    for mode, outs in (("jit", numlir.jit(apply_all(jnp))(z, w)),
                       ("vmap", numlir.vmap(apply_all(jnp))(z, w)),
                       ("vmap over axis 1", numlir.vmap(apply_all(jnp), in_axes=1, out_axes=1)(z, w))):
        for name, got, ref in zip(names, outs, want):
            assert got.dtype == C64 and got.shape == (3, 4), (mode, name)
            np.testing.assert_allclose(np.asarray(got), ref, rtol=3e-6, atol=3e-6,
                                       err_msg=f"{name} {mode}")


def test_lax_functions_accept_complex_as_jax():
    z = np.array([0.3 + 0.4j, -2 + 1j], C64)
    names = ("asin", "acos", "atan", "asinh", "acosh", "atanh", "sinh", "cosh", "logistic")

    def apply_all(lx):
        return lambda v: [getattr(lx, name)(v) for name in names]

    for name, got, want in zip(names, numlir.jit(apply_all(lax))(z), jax.jit(apply_all(jax.lax))(z)):
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=3e-6, err_msg=name)


# --- Lexicographic max and min ----------------------------------------------------------------------


def _same_complex(got, want):
    """Equal values, signs of zero and NaN positions (any NaN payload)."""
    got, want = np.asarray(got), np.asarray(want)
    for part in ("real", "imag"):
        g, w = getattr(got, part), getattr(want, part)
        np.testing.assert_array_equal(np.isnan(g), np.isnan(w))
        ok = ~np.isnan(g)
        np.testing.assert_array_equal(g[ok], w[ok])
        np.testing.assert_array_equal(np.signbit(g[ok]), np.signbit(w[ok]))


_NAN = np.nan
_PAIRS = np.array([[1 + 2j, 1 + 3j], [complex(_NAN, 0), 1 + 0j], [complex(1, _NAN), 1 + 0j],
                   [3 + 0j, 2 + 9j], [1 + 1j, 1 + 1j], [complex(_NAN, _NAN), 0j],
                   [complex(1, _NAN), complex(_NAN, 1)], [0j, complex(-0.0, 0)],
                   [complex(-0.0, 0), complex(0, -0.0)], [complex(np.inf, -1), complex(np.inf, 2)],
                   [complex(-np.inf, 0), complex(-np.inf, -0.0)]], C64).T


@pytest.mark.parametrize("name", ["max", "min"])
def test_lax_max_min_compare_real_part_first_with_jaxs_nan_rule(name):
    """x where it compares strictly greater (less), real part first, else y: a NaN in a
    compared part picks y."""
    fn, ref = getattr(lax, name), getattr(jax.lax, name)
    a, b = _PAIRS
    for x, y in ((a, b), (b, a)):
        _same_complex(fn(x, y), ref(x, y))
        _same_complex(numlir.jit(fn)(x, y), ref(x, y))
        _same_complex(numlir.vmap(fn)(x, y), ref(x, y))
    np_name = {"max": "maximum", "min": "minimum"}[name]
    _same_complex(getattr(jnp, np_name)(a, 2 + 0j), getattr(jnp_ref, np_name)(a, 2 + 0j))
    _same_complex(getattr(jnp, np_name)(a.real, b), getattr(jnp_ref, np_name)(a.real, b))


def _fold_cases():
    nan, inf = np.nan, np.inf
    yield [1 + 1j, complex(nan, 0), 2 + 0j]
    yield [complex(nan, 0), 1 + 1j, 2 + 0j]
    yield [1 + 1j, 2 + 0j, complex(nan, 0)]
    yield [1 + 2j, complex(1, nan), 1 + 1j]
    yield [1 + 1j, complex(1, nan), 1 + 2j]
    yield [2 + 1j, 2 + 5j, 2 - 1j]
    yield [complex(-inf, -1), complex(-inf, -2)]  # the start value (-inf, 0) wins
    yield [complex(inf, 1)] * 3
    yield [complex(0.0, 0.0), complex(-0.0, 0.0)]
    yield [complex(0.0, -0.0), complex(0.0, 0.0)]
    yield [complex(-inf, nan), complex(-inf, -3)]
    yield [complex(nan, 1), complex(nan, 2)]
    rng = np.random.default_rng(0)
    for n in (2, 5, 17, 32):
        for _ in range(3):
            x = (rng.integers(0, 4, n) + 1j * rng.integers(-2, 2, n)).astype(C64)
            k = rng.integers(0, n, 3)
            x[k[0]], x[k[1]] = complex(nan, 0), complex(1, nan)
            x[k[2]] = complex(rng.choice([-inf, inf]), rng.choice([-1, 0, 1]))
            yield list(x)


@pytest.mark.parametrize("name", ["max", "min"])
def test_max_min_reductions_fold_as_jax(name):
    """jax's complex reduce_max/min folds acc = max(acc, x_i) from (-+inf, 0), so NaNs decide
    by position (XLA folds up to 32 elements in order; longer reductions only differ between
    NaNs). Each case is a row, padded in front with copies of its first element (which changes
    no fold's result), reduced along either axis."""
    fn, ref = getattr(jnp, name), getattr(jnp_ref, name)
    cases = list(_fold_cases())
    width = max(len(c) for c in cases)
    rows = np.array([[c[0]] * (width - len(c)) + list(c) for c in cases], C64)
    _same_complex(numlir.jit(lambda v: fn(v, axis=1))(rows), ref(rows, axis=1))
    _same_complex(fn(rows.T, axis=0), ref(rows.T, axis=0))
    _same_complex(fn(rows[:2, -3:]), ref(rows[:2, -3:]))


@pytest.mark.parametrize("name", ["max", "min"])
def test_max_min_reductions_over_axes_with_initial_where_and_vmap(name):
    fn, ref = getattr(jnp, name), getattr(jnp_ref, name)
    rng = np.random.default_rng(2)
    x = _complex(rng.integers(-2, 3, (3, 4, 5)), rng.normal(size=(3, 4, 5)), C64)
    for axis in (None, 1, (0, 2)):
        _same_complex(fn(x, axis=axis), ref(x, axis=axis))
    _same_complex(fn(x, axis=0, keepdims=True), ref(x, axis=0, keepdims=True))
    _same_complex(fn(x, axis=1, initial=1 + 0.5j), ref(x, axis=1, initial=1 + 0.5j))
    mask = rng.random((3, 4, 5)) < 0.5
    _same_complex(fn(x, axis=2, initial=-1j, where=mask), ref(x, axis=2, initial=-1j, where=mask))
    _same_complex(numlir.vmap(fn)(x), jax.vmap(ref)(x))
    _same_complex(getattr(lax, f"reduce_{name}")(x, (0, 2)),
                  getattr(jax.lax, f"reduce_{name}")(x, (0, 2)))
    # A reduction over one element per output is that element, without the start value.
    lonely = np.array([[complex(-np.inf, -1)], [complex(np.inf, 1)]], C64)
    _same_complex(fn(lonely, axis=1), ref(lonely, axis=1))


def test_numpy_comparisons_fmax_fmin_and_nan_extrema_order_complex_numbers_as_jax():
    a, b = _PAIRS
    for name in ("less", "less_equal", "greater", "greater_equal"):
        np.testing.assert_array_equal(getattr(jnp, name)(a, b), getattr(jnp_ref, name)(a, b),
                                      err_msg=name)
    np.testing.assert_array_equal(jnp.asarray(a) < b, jnp_ref.asarray(a) < b)
    for name in ("fmax", "fmin"):
        for x, y in ((a, b), (b, a)):
            _same_complex(getattr(jnp, name)(x, y), getattr(jnp_ref, name)(x, y))
    z = np.array([[1 + 2j, complex(np.nan, 0), 3 - 1j], [0j, 2 + 1j, complex(1, np.nan)]], C64)
    for name in ("nanmax", "nanmin", "ptp", "amax"):
        _same_complex(getattr(jnp, name)(z, axis=1), getattr(jnp_ref, name)(z, axis=1))


def test_extrema_of_complex_that_jax_refuses_are_refused():
    z = jnp.asarray(np.array([1 + 1j, 2 + 0j], C64))
    for fn in (jnp.argmax, jnp.argmin):
        with pytest.raises(TypeError, match="complex64"):
            fn(z)
    with pytest.raises(ValueError, match="zero-size"):
        jnp.max(jnp.zeros((0,), C64))
    with pytest.raises(ValueError, match="Complex values have no ordering"):
        jnp.clip(z, 0, 1)
    with pytest.raises(ValueError, match="Complex values have no ordering"):
        jnp.clip(np.float32([1, 2]), 0.5j)


# --- Derivatives ------------------------------------------------------------------------------------

_Z = np.array([0.3 + 0.4j, -1.5 + 0.2j, 2 - 1j, -0.7 - 2.5j, 0.1 - 0.05j, -2 + 1e-3j], C128)
_T = np.array([1 + 0.5j, -0.3 + 1j, 0.2 - 0.7j, 1j, 1, -1 - 1j], C128)


@pytest.mark.parametrize("name", INVERSE + ["sinh", "cosh", "exp2", "log2", "log10"])
def test_derivatives_match_jax(name, x64):
    """jvp with a complex tangent, the holomorphic grad f'(z), and the (conjugate) grads of
    the real functions |f(z)| and re f(z) im f(z)."""
    fn, ref = getattr(jnp, name), getattr(jnp_ref, name)

    def derivatives(f, np_, ad):
        def all_of(z, t):
            tangent = ad.jvp(f, (z,), (t,))[1]
            holomorphic = ad.vmap(ad.grad(f, holomorphic=True))(z)
            real = ad.grad(lambda v: np_.sum(np_.abs(f(v)) + np_.real(f(v)) * np_.imag(f(v))))(z)
            return tangent, holomorphic, real
        return ad.jit(all_of)

    for got, want in zip(derivatives(fn, jnp, numlir)(_Z, _T), derivatives(ref, jnp_ref, jax)(_Z, _T)):
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-13, atol=1e-15)


def test_derivatives_of_atan2_logistic_and_extrema_match_jax(x64):
    """Ties of max and min share the tangent evenly, as jax."""
    w, t2 = np.roll(_Z, 1), np.roll(_T, 2)
    u = np.array([1 + 1j, 2 + 0j, 1 + 1j, 3 + 1j], C128)
    v = np.array([1 + 2j, 1 + 5j, 1 + 1j, 3 + 1j], C128)
    x = np.array([[1 + 1j, 2 + 0j, 2 + 0j, 1 + 3j], [0j, -1j, 1j, 0.5j]], C128)

    def derivatives(np_, lx, ad):
        def all_of(z, t):
            return [ad.jvp(np_.arctan2, (z, w), (t, t2))[1],
                    ad.jvp(lx.logistic, (z,), (t,))[1],
                    ad.grad(lambda a: np_.abs(np_.arctan2(a, w)).sum())(z),
                    ad.jvp(np_.maximum, (u, v), (t[:4], t[1:5]))[1],
                    ad.jvp(np_.minimum, (u, v), (t[:4], t[1:5]))[1],
                    ad.grad(lambda a: np_.abs(np_.max(a, axis=1)).sum())(x),
                    ad.grad(lambda a: np_.abs(np_.min(a, axis=1)).sum())(x)]
        return ad.jit(all_of)

    got = derivatives(jnp, lax, numlir)(_Z, _T)
    want = derivatives(jnp_ref, jax.lax, jax)(_Z, _T)
    for g, r in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), np.asarray(r), rtol=1e-13, atol=1e-15)
