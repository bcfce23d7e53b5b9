"""Derivatives of cumprod/cummax/cummin, reduce_window_prod, scatter set/mul/min/max, sort,
zeta/polygamma and PRNG sampling: forward mode against jax.jvp and float64 finite
differences, reverse mode against jax.grad (or, where jax has no reverse rule, against
jax's forward mode by the dot-product identity <w, J t> = <J^T w, t>)."""

import jax
import jax.numpy as J
import numpy as np
import pytest
import scipy.special
from ad_testing import numerical_jvp

import numlir
import numlir.lax as lax
import numlir.numpy as jnp
import numlir.random as nrandom

R = np.random.default_rng(7)


def arr(*shape, lo=-2.0, hi=2.0):
    return R.uniform(lo, hi, shape).astype(np.float64)


def check_jvp(f, jf, primals, rtol=1e-9, atol=1e-12):
    """numlir.jvp of ``f`` against jax.jvp of ``jf`` and float64 central differences.
    Both sides are jitted: one compilation each instead of one per primitive."""
    tangents = tuple(R.standard_normal(np.shape(p)) for p in primals)
    out, t = numlir.jit(lambda ps, ts: numlir.jvp(f, ps, ts))(primals, tangents)
    j_out, j_t = jax.jit(lambda ps, ts: jax.jvp(jf, ps, ts))(primals, tangents)
    np.testing.assert_allclose(np.asarray(out), j_out, rtol=rtol, atol=atol)
    np.testing.assert_allclose(np.asarray(t), j_t, rtol=rtol, atol=atol)
    num = numerical_jvp(numlir.jit(f), primals, tangents)
    np.testing.assert_allclose(np.asarray(t), num, rtol=1e-6, atol=1e-8)


def check_grad(f, jf, primals, rtol=1e-10, atol=1e-12):
    """Reverse mode of ``f`` (a weighted sum of its output) against jax.grad of ``jf``."""
    w = R.standard_normal(np.shape(jf(*primals)))
    argnums = tuple(range(len(primals)))
    got = numlir.jit(numlir.grad(lambda *xs: jnp.sum(f(*xs) * w), argnums=argnums))(*primals)
    want = jax.jit(jax.grad(lambda *xs: J.sum(jf(*xs) * w), argnums=argnums))(*primals)
    for g, e in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), e, rtol=rtol, atol=atol)


def check_grad_by_jvp(f, jf, primals, rtol=1e-10):
    """numlir's vjp is the transpose of jax's jvp: <w, J t> == <J^T w, t> for random t."""
    w = R.standard_normal(np.shape(jf(*primals)))
    cts = numlir.jit(lambda *ps: numlir.vjp(f, *ps)[1](w))(*primals)
    for _ in range(2):
        ts = tuple(R.standard_normal(np.shape(p)) for p in primals)
        lhs = float(np.sum(np.asarray(jax.jit(lambda *ps: jax.jvp(jf, ps, ts)[1])(*primals)) * w))
        rhs = sum(float(np.sum(np.asarray(c) * t)) for c, t in zip(cts, ts))
        np.testing.assert_allclose(rhs, lhs, rtol=rtol, atol=1e-12)


# --- cumulative reductions ----------------------------------------------------------------

X = arr(3, 5)
X_ZEROS = X.copy()
X_ZEROS[0, 1] = X_ZEROS[2, 0] = X_ZEROS[2, 3] = 0.0  # one and two zeros in a row
CUMULATIVE = [("cumprod", lax.cumprod, jax.lax.cumprod), ("cummax", lax.cummax, jax.lax.cummax),
              ("cummin", lax.cummin, jax.lax.cummin), ("cumsum", lax.cumsum, jax.lax.cumsum)]


@pytest.mark.parametrize("name,f,jf", CUMULATIVE, ids=[c[0] for c in CUMULATIVE])
@pytest.mark.parametrize("axis,reverse", [(1, False), (0, True), (1, True)])
def test_cumulative_jvp_and_grad(x64, name, f, jf, axis, reverse):
    x = X_ZEROS if name == "cumprod" else X
    fn, jfn = (lambda v: f(v, axis, reverse)), (lambda v: jf(v, axis, reverse))
    check_jvp(fn, jfn, (x,))
    check_grad(fn, jfn, (x,))


def test_cumprod_long_axis_with_zeros(x64):
    x = arr(37, lo=0.5, hi=1.5)
    x[[5, 20, 21]] = 0.0
    check_jvp(lambda v: lax.cumprod(v), lambda v: jax.lax.cumprod(v), (x,))
    check_grad(lambda v: lax.cumprod(v, reverse=True), lambda v: jax.lax.cumprod(v, reverse=True),
               (x,))


def test_cummax_ties_share_the_tangent():
    x = np.array([1.0, 3.0, 3.0, 2.0, 5.0, 5.0, 5.0], np.float32)
    t = np.array([1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0], np.float32)
    jvp = numlir.jit(lambda x, t: [numlir.jvp(lax.cummax, (x,), (t,))[1],
                                   numlir.jvp(lambda v: lax.cummin(v, reverse=True), (x,),
                                              (jnp.ones_like(t),))[1]])
    dy, ones = jvp(x, t)
    np.testing.assert_allclose(dy, [1, 2, 3, 3, 16, 24, 112 / 3], rtol=1e-6)
    # A tie of two agrees with jax (whose max splits ties in half).
    np.testing.assert_allclose(dy[:6], jax.jvp(jax.lax.cummax, (x[:6],), (t[:6],))[1])
    # The weights over a row always sum to one: cummin of x + c is cummin(x) + c.
    np.testing.assert_allclose(ones, np.ones_like(x))


def test_cumsum_transpose_is_the_reversed_cumsum():
    ct = np.arange(1.0, 5.0, dtype=np.float32)
    _, pullback = numlir.vjp(lambda v: lax.cumsum(v), np.zeros(4, np.float32))
    np.testing.assert_allclose(pullback(ct)[0], np.cumsum(ct[::-1])[::-1])
    _, pullback = numlir.vjp(lambda v: lax.cumsum(v, reverse=True), np.zeros(4, np.float32))
    np.testing.assert_allclose(pullback(ct)[0], np.cumsum(ct))


# --- reduce_window_prod --------------------------------------------------------------------

WINDOWS = [
    ((2, 2), (1, 1), "VALID", (1, 1), (1, 1)),
    ((3, 2), (2, 1), "SAME", (1, 1), (1, 1)),
    ((2, 3), (1, 2), [(1, 0), (2, 1)], (1, 1), (1, 1)),
    ((2, 2), (1, 2), [(1, 1), (0, 1)], (2, 1), (1, 2)),
]


@pytest.mark.parametrize("window,strides,padding,base,dil", WINDOWS)
def test_reduce_window_prod_jvp_and_vjp(x64, window, strides, padding, base, dil):
    x = arr(4, 5)
    x[1, 2] = 0.0

    def f(v):
        return lax.reduce_window_prod(v, window, strides, padding, base_dilation=base,
                                      window_dilation=dil)

    def jf(v):
        return jax.lax.reduce_window(v, 1.0, jax.lax.mul, window, strides, padding,
                                     base_dilation=base, window_dilation=dil)

    check_jvp(f, jf, (x,))
    check_grad_by_jvp(f, jf, (x,))  # jax has no reverse rule for reduce_window prod


# --- scatter set / mul / min / max -----------------------------------------------------------

DN = dict(update_window_dims=(1,), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,))
IDX_DUP = np.array([[3], [1], [3], [7], [0]])  # a duplicate and an out-of-bounds window
IDX_UNIQUE = np.array([[3], [1], [4], [0]])


def scatter_fns(name, idx, **jax_kwargs):
    dn, jdn = lax.ScatterDimensionNumbers(**DN), jax.lax.ScatterDimensionNumbers(**DN)
    return (lambda x, y: getattr(lax, name)(x, idx, y, dn),
            lambda x, y: getattr(jax.lax, name)(x, idx, y, jdn, mode="drop", **jax_kwargs))


@pytest.mark.parametrize("name", ["scatter", "scatter_min", "scatter_max"])
def test_scatter_jvp_and_grad_with_duplicates(x64, name):
    f, jf = scatter_fns(name, IDX_DUP)
    x, y = arr(5, 3), arr(5, 3)
    check_jvp(f, jf, (x, y))
    check_grad(f, jf, (x, y))


def test_scatter_set_tangent_follows_the_winning_update():
    f, _ = scatter_fns("scatter", IDX_DUP)
    x = np.zeros((5, 3), np.float32)
    y = np.arange(15, dtype=np.float32).reshape(5, 3)
    out, t = numlir.jvp(f, (x, y), (np.zeros_like(x), y + 100))
    np.testing.assert_array_equal(np.asarray(t)[3], np.asarray(out)[3] + 100)  # update 2 won
    gy = numlir.grad(lambda v: jnp.sum(f(x, v)))(y)
    np.testing.assert_array_equal(np.asarray(gy)[:, 0], [0, 1, 1, 0, 1])  # lost, won, won, dropped


def test_scatter_min_max_ties_split_like_jax(x64):
    x = np.array([[1.0], [2.0], [5.0]])
    y = np.array([[1.0], [1.0], [5.0], [0.5]])
    idx = np.array([[0], [0], [2], [1]])
    tx, ty = np.array([[1.0], [2.0], [4.0]]), np.array([[8.0], [16.0], [32.0], [64.0]])
    dn, jdn = lax.ScatterDimensionNumbers(**DN), jax.lax.ScatterDimensionNumbers(**DN)
    for name in ("scatter_min", "scatter_max"):
        jvp = numlir.jit(lambda *a: numlir.jvp(
            lambda a, b: getattr(lax, name)(a, idx, b, dn), a[:2], a[2:])[1])
        got = jvp(x, y, tx, ty)
        want = jax.jvp(lambda a, b: getattr(jax.lax, name)(a, idx, b, jdn), (x, y), (tx, ty))[1]
        np.testing.assert_allclose(got, want)
    # Row 0: the operand and both updates attain the max (1): each gets a third.
    np.testing.assert_allclose(np.asarray(got)[0, 0], (1.0 + 8.0 + 16.0) / 3)


def test_scatter_mul_matches_jax_for_unique_indices(x64):
    f, jf = scatter_fns("scatter_mul", IDX_UNIQUE, unique_indices=True)
    x, y = arr(5, 3), arr(4, 3)
    y[1, 1] = 0.0
    check_jvp(f, jf, (x, y))
    check_grad(f, jf, (x, y))


def test_scatter_mul_with_duplicates_and_zeros(x64):
    # jax has no rule here; finite differences and the jvp/vjp transpose identity decide.
    f, _ = scatter_fns("scatter_mul", IDX_DUP)
    x, y = arr(5, 3), arr(5, 3)
    y[0, 0] = 0.0  # one zero among the two updates of row 3: the other's tangent vanishes
    y[2, 1] = y[0, 1] = 0.0  # two zeros: no tangent at all from the updates
    tx, ty = R.standard_normal(x.shape), R.standard_normal(y.shape)
    _, t = numlir.jvp(f, (x, y), (tx, ty))
    np.testing.assert_allclose(t, numerical_jvp(lambda a, b: np.asarray(f(a, b)), (x, y), (tx, ty)),
                               rtol=1e-7, atol=1e-9)
    w = R.standard_normal(x.shape)
    gx, gy = numlir.grad(lambda a, b: jnp.sum(f(a, b) * w), argnums=(0, 1))(x, y)
    gx, gy = np.asarray(gx), np.asarray(gy)
    np.testing.assert_allclose(np.sum(gx * tx) + np.sum(gy * ty), np.sum(np.asarray(t) * w),
                               rtol=1e-10)
    # Column 0: y[2]'s partner y[0] is 0, y[0]'s is not; column 1: both are 0.
    assert gy[0, 0] != 0 and gy[2, 0] == 0 and gy[0, 1] == 0 and gy[2, 1] == 0


def test_at_set_and_max_grad_through_numpy_indexing(x64):
    x, y = arr(6), arr(3)
    idx = np.array([4, 1, 4])
    check_grad(lambda a, b: jnp.asarray(a).at[idx].set(b) ** 2,
               lambda a, b: J.asarray(a).at[idx].set(b) ** 2, (x, y))
    check_grad(lambda a, b: jnp.asarray(a).at[idx].max(b),
               lambda a, b: J.asarray(a).at[idx].max(b), (x, y))


# --- sort / sort_key_val / top_k -------------------------------------------------------------


def test_sort_jvp_and_grad(x64):
    x, v = arr(3, 6), arr(3, 6)
    check_jvp(lambda a: lax.sort(a, 0), lambda a: jax.lax.sort(a, dimension=0), (x,))
    check_grad(lambda a: lax.sort(a, 0), lambda a: jax.lax.sort(a, dimension=0), (x,))
    check_grad(lambda a, b: lax.sort_key_val(a, b, 1)[1],
               lambda a, b: jax.lax.sort_key_val(a, b, 1)[1], (x, v))
    keys = np.array([2.0, 1.0, 2.0, 0.0])  # two keys sort the rest (ties in the first)
    check_grad(lambda a, b, c: lax.sort((a, b, c), num_keys=2)[2],
               lambda a, b, c: jax.lax.sort((a, b, c), num_keys=2)[2], (keys, arr(4), arr(4)))


def test_top_k_grad(x64):
    x = arr(4, 7)
    check_jvp(lambda a: lax.top_k(a, 3)[0], lambda a: jax.lax.top_k(a, 3)[0], (x,))
    check_grad(lambda a: lax.top_k(a, 3)[0], lambda a: jax.lax.top_k(a, 3)[0], (x,))


def test_sort_linear_map_permutes_by_gather_not_sort():
    x = np.array([3.0, 1.0, 2.0], np.float32)
    _, f_jvp = numlir.linearize(lambda a: lax.sort(a), x)
    graph = str(numlir.make_graph(f_jvp)(np.ones(3, np.float32)))
    assert "gather" in graph and "sort" not in graph
    np.testing.assert_array_equal(f_jvp(np.array([10.0, 20.0, 30.0], np.float32)), [20, 30, 10])


# --- zeta / polygamma -----------------------------------------------------------------------

ZETA_X = np.array([1.5, 2.0, 3.0, 4.5, 7.0, 12.0, 30.0, 2.0, 3.0, 2.0, 2.0, 1.0, 0.5, 2.0, 3.0])
ZETA_Q = np.array([1.0, 0.5, 2.5, 0.01, 100.0, 3.0, 1.5, 1e-3, 1e5, -2.5, -4.5, 1.0, 1.0, 0.0,
                   -2.0])
PG_M = np.array([0.0, 1.0, 2.0, 3.0, 5.0, 1.0, 2.0, 1.0, 1.0, 2.0, 1.5, -1.0, 4.0])
PG_X = np.array([1.0, 0.25, 3.7, 20.0, 0.3, 0.0, 0.0, -1.0, -2.5, 60.0, 1.0, 1.0, 1e-3])


@pytest.mark.parametrize("dtype,rtol", [(np.float32, 2e-5), (np.float64, 1e-12)])
def test_zeta_and_polygamma_match_jax(x64, dtype, rtol):
    x, q, m, v = (a.astype(dtype) for a in (ZETA_X, ZETA_Q, PG_M, PG_X))
    got, want = np.asarray(lax.zeta(x, q)), np.asarray(jax.lax.zeta(x, q))
    assert got.dtype == dtype
    np.testing.assert_allclose(got, want, rtol=rtol)  # includes the inf/NaN special values
    np.testing.assert_allclose(got[:11], scipy.special.zeta(ZETA_X, ZETA_Q)[:11], rtol=rtol)
    got, want = np.asarray(lax.polygamma(m, v)), np.asarray(jax.lax.polygamma(m, v))
    np.testing.assert_allclose(got, want, rtol=rtol)
    finite = np.isfinite(want)
    assert np.isnan(got[~finite]).tolist() == np.isnan(want[~finite]).tolist()


def test_zeta_polygamma_half_precision_jit_and_vmap():
    m, v = PG_M[:5].astype(np.float16), PG_X[:5].astype(np.float16)
    got = lax.polygamma(m, v)
    assert got.dtype == np.float16
    np.testing.assert_allclose(got, jax.lax.polygamma(m, v), rtol=2e-3)
    x, q = ZETA_X[:6].astype(np.float32), ZETA_Q[:6].astype(np.float32)
    np.testing.assert_allclose(numlir.jit(lax.zeta)(x, q), jax.lax.zeta(x, q), rtol=2e-5)
    np.testing.assert_allclose(numlir.vmap(lambda a: lax.zeta(a, q))(np.stack([x, x + 1])),
                               jax.vmap(lambda a: jax.lax.zeta(a, q))(np.stack([x, x + 1])),
                               rtol=2e-5)
    np.testing.assert_allclose(lax.polygamma(1.0, 1.0), np.pi ** 2 / 6, rtol=1e-6)


def test_digamma_polygamma_zeta_derivatives(x64):
    x = arr(5, lo=0.2, hi=6.0)
    check_jvp(lax.digamma, jax.lax.digamma, (x,), rtol=1e-8)
    check_jvp(lambda v: lax.polygamma(2.0, v), lambda v: jax.lax.polygamma(2.0, v), (x,),
              rtol=1e-8)
    check_grad(lax.digamma, jax.lax.digamma, (x,))
    # jax cannot differentiate zeta; d/dq zeta(s, q) = -s zeta(s + 1, q).
    _, dq = numlir.jvp(lambda q: lax.zeta(3.0, q), (x,), (np.ones_like(x),))
    np.testing.assert_allclose(dq, -3 * scipy.special.zeta(4.0, x), rtol=1e-12)
    np.testing.assert_allclose(dq, numerical_jvp(lambda q: np.asarray(lax.zeta(3.0, q)), (x,),
                                                 (np.ones_like(x),)), rtol=1e-7)
    with pytest.raises(NotImplementedError, match="polygamma with respect to m"):
        numlir.jvp(lambda m: lax.polygamma(m, 1.5), (1.0,), (1.0,))


def test_higher_derivatives_of_lgamma_and_digamma(x64):
    x = np.array([0.3, 1.2, 2.5, 7.0])

    def nested(grad, f, n):
        for _ in range(n):
            f = (lambda g: lambda v: grad(lambda u: g(u).sum())(v))(f)
        return f

    for f, jf in ((lax.lgamma, jax.lax.lgamma), (lax.digamma, jax.lax.digamma)):
        for n in (2, 3):
            got, want = nested(numlir.grad, f, n)(x), nested(jax.grad, jf, n)(x)
            np.testing.assert_allclose(got, want, rtol=1e-10)
    # lgamma'' = polygamma(1), also by finite differences of digamma.
    d2 = nested(numlir.grad, lax.lgamma, 2)(x)
    np.testing.assert_allclose(d2, scipy.special.polygamma(1, x), rtol=1e-12)
    fd = numerical_jvp(lambda v: np.asarray(lax.digamma(v)), (x,), (np.ones_like(x),))
    np.testing.assert_allclose(d2, fd, rtol=1e-7)
    fwd = numlir.jvp(lambda v: numlir.jvp(lax.digamma, (v,), (jnp.ones_like(v),))[1], (x,),
                     (np.ones_like(x),))[1]
    np.testing.assert_allclose(fwd, scipy.special.polygamma(2, x), rtol=1e-12)


# --- PRNG ---------------------------------------------------------------------------------


def test_grad_through_random_sampling_matches_jax():
    x = np.array([0.5, -1.0, 2.0], np.float32)

    def f(v, key, rnd):
        k1, k2 = rnd.split(key)
        return (v * rnd.normal(k1, (3,)) + v ** 2 * rnd.uniform(k2, (3,))).sum()

    key, jkey = nrandom.PRNGKey(3), jax.random.PRNGKey(3)
    want = jax.jit(jax.grad(f), static_argnums=2)(x, jkey, jax.random)
    np.testing.assert_allclose(numlir.jit(numlir.grad(f), static_argnums=2)(x, key, nrandom),
                               want, rtol=1e-6)
    keys, jkeys = nrandom.split(key, 3), jax.random.split(jkey, 3)
    np.testing.assert_allclose(
        numlir.jit(numlir.vmap(lambda k: numlir.grad(f)(x, k, nrandom)))(keys),
        jax.jit(jax.vmap(lambda k: jax.grad(f)(x, k, jax.random)))(jkeys), rtol=1e-6)


def test_threefry_has_a_zero_jvp_rule():
    from numlir._src import ad, core
    from numlir._src.random import prng

    u = np.arange(3, dtype=np.uint32)
    args = [np.uint32(1), np.uint32(2), u, u]
    outs, tangents = ad.jvp_rules[prng.threefry2x32_p](args, [ad.Zero(core.get_aval(a))
                                                                 for a in args])
    assert all(isinstance(t, ad.Zero) for t in tangents)
    np.testing.assert_array_equal(outs[0], prng.threefry2x32(*args)[0])
