"""Forward-mode autodiff: numlir.jvp / linearize / jacfwd against jax and finite differences."""

import jax
import jax.numpy as J
import numpy as np
import pytest
from ad_testing import check_jvp

import numlir
import numlir.lax as lax
import numlir.numpy as jnp
import scipy.special
from ad_testing import numerical_jvp
import numlir.random as nrandom

R = np.random.default_rng(42)


def arr(*shape, lo=-2.0, hi=2.0):
    return R.uniform(lo, hi, shape).astype(np.float64)


POS = arr(2, 3, lo=0.3, hi=2.0)
UNIT = arr(2, 3, lo=-0.8, hi=0.8)
X, Y = arr(2, 3), arr(2, 3)

UNARY = [
    ("neg", lax.neg, jax.lax.neg, X), ("abs", lax.abs, jax.lax.abs, X),
    ("exp", lax.exp, jax.lax.exp, X), ("log", lax.log, jax.lax.log, POS),
    ("tanh", lax.tanh, jax.lax.tanh, X), ("logistic", lax.logistic, jax.lax.logistic, X),
    ("sqrt", lax.sqrt, jax.lax.sqrt, POS), ("rsqrt", lax.rsqrt, jax.lax.rsqrt, POS),
    ("sin", lax.sin, jax.lax.sin, X), ("cos", lax.cos, jax.lax.cos, X),
    ("log1p", lax.log1p, jax.lax.log1p, POS), ("expm1", lax.expm1, jax.lax.expm1, X),
    ("tan", lax.tan, jax.lax.tan, UNIT), ("asin", lax.asin, jax.lax.asin, UNIT),
    ("acos", lax.acos, jax.lax.acos, UNIT), ("atan", lax.atan, jax.lax.atan, X),
    ("sinh", lax.sinh, jax.lax.sinh, X), ("cosh", lax.cosh, jax.lax.cosh, X),
    ("asinh", lax.asinh, jax.lax.asinh, X), ("acosh", lax.acosh, jax.lax.acosh, POS + 1.0),
    ("atanh", lax.atanh, jax.lax.atanh, UNIT), ("erf", lax.erf, jax.lax.erf, X),
    ("erf_inv", lax.erf_inv, jax.lax.erf_inv, UNIT), ("cbrt", lax.cbrt, jax.lax.cbrt, POS),
    ("lgamma", lax.lgamma, jax.lax.lgamma, POS),
    ("cumsum", lambda x: lax.cumsum(x, 1), lambda x: jax.lax.cumsum(x, 1), X),
    ("sum", lambda x: lax.reduce_sum(x, (1,)), lambda x: J.sum(x, 1), X),
    ("prod", lambda x: lax.reduce_prod(x, (0, 1)), lambda x: J.prod(x), X),
    ("max", lambda x: lax.reduce_max(x, (1,)), lambda x: J.max(x, 1), X),
    ("min", lambda x: lax.reduce_min(x, (0,)), lambda x: J.min(x, 0), X),
    ("reshape_T", lambda x: lax.transpose(lax.reshape(x, (3, 2)), (1, 0)),
     lambda x: jax.lax.transpose(jax.lax.reshape(x, (3, 2)), (1, 0)), X),
    ("broadcast", lambda x: lax.broadcast_in_dim(x, (4, 2, 3), (1, 2)),
     lambda x: jax.lax.broadcast_in_dim(x, (4, 2, 3), (1, 2)), X),
    ("slice", lambda x: lax.slice(x, (0, 1), (2, 3)), lambda x: jax.lax.slice(x, (0, 1), (2, 3)), X),
    ("dynamic_slice", lambda x: lax.dynamic_slice(x, (1, 1), (1, 2)),
     lambda x: jax.lax.dynamic_slice(x, (1, 1), (1, 2)), X),
    ("pad", lambda x: lax.pad(x, 0.0, [(1, 0, 1), (0, 2, 0)]),
     lambda x: jax.lax.pad(x, 0.0, [(1, 0, 1), (0, 2, 0)]), X),
    ("rev", lambda x: lax.rev(x, (1,)), lambda x: jax.lax.rev(x, (1,)), X),
    ("gather", lambda x: jnp.asarray(x)[np.array([1, 0, 1])],
     lambda x: x[np.array([1, 0, 1])], X),
    ("sort", lambda x: lax.sort(x, dimension=1), lambda x: jax.lax.sort(x, dimension=1), X),
    ("window_sum", lambda x: lax.reduce_window_sum(x, (2, 2), (1, 1), "VALID"),
     lambda x: jax.lax.reduce_window(x, 0.0, jax.lax.add, (2, 2), (1, 1), "VALID"), X),
    ("window_max", lambda x: lax.reduce_window_max(x, (2, 2), (1, 1), "SAME"),
     lambda x: jax.lax.reduce_window(x, -np.inf, jax.lax.max, (2, 2), (1, 1), "SAME"), X),
    ("window_min", lambda x: lax.reduce_window_min(x, (1, 2), (1, 1), "VALID"),
     lambda x: jax.lax.reduce_window(x, np.inf, jax.lax.min, (1, 2), (1, 1), "VALID"), X),
    ("convert", lambda x: lax.convert_element_type(x, np.float32),
     lambda x: jax.lax.convert_element_type(x, np.float32), X),
    ("floor", lax.floor, jax.lax.floor, X + 0.25), ("sign", lax.sign, jax.lax.sign, X),
]


@pytest.mark.parametrize("name,f,jf,x", UNARY, ids=[u[0] for u in UNARY])
def test_unary_jvp_matches_jax_and_finite_differences(x64, name, f, jf, x):
    numerical = name != "convert"  # float32 output: finite differences are too coarse
    rtol = 1e-5 if numerical else 1e-6
    check_jvp(f, jf, (x,), rtol=rtol, numerical=numerical)


BINARY = [
    ("add", lax.add, jax.lax.add, X, Y), ("sub", lax.sub, jax.lax.sub, X, Y),
    ("mul", lax.mul, jax.lax.mul, X, Y), ("div", lax.div, jax.lax.div, X, POS),
    ("rem", lax.rem, jax.lax.rem, X, POS + 0.5), ("max", lax.max, jax.lax.max, X, Y),
    ("min", lax.min, jax.lax.min, X, Y), ("pow", lax.pow, jax.lax.pow, POS, Y),
    ("atan2", lax.atan2, jax.lax.atan2, X, Y),
    ("scalar_mul", lambda x, y: lax.mul(x, y[0, 0]), lambda x, y: jax.lax.mul(x, y[0, 0]), X, Y),
    ("dot", lambda x, y: lax.dot_general(x, y, (((1,), (1,)), ((), ()))),
     lambda x, y: jax.lax.dot_general(x, y, (((1,), (1,)), ((), ()))), X, Y),
    ("concat", lambda x, y: lax.concatenate([x, y], 0),
     lambda x, y: jax.lax.concatenate([x, y], 0), X, Y),
    ("dus", lambda x, y: lax.dynamic_update_slice(x, y[:1, :2], (1, 1)),
     lambda x, y: jax.lax.dynamic_update_slice(x, y[:1, :2], (1, 1)), X, Y),
    ("select", lambda x, y: lax.select(lax.gt(x, y), x, y),
     lambda x, y: jax.lax.select(jax.lax.gt(x, y), x, y), X, Y),
    ("clamp", lambda x, y: lax.clamp(-0.5, x, y + 1.0), lambda x, y: jax.lax.clamp(-0.5, x, y + 1.0), X, Y),
    ("scatter_add", lambda x, y: jnp.asarray(x).at[np.array([1, 1, 0])].add(y[:, :3][np.array([0, 1, 0])]),
     lambda x, y: x.at[np.array([1, 1, 0])].add(y[:, :3][np.array([0, 1, 0])]), X, Y),
    ("sort_key_val", lambda x, y: lax.sort_key_val(x, y, 1)[1],
     lambda x, y: jax.lax.sort_key_val(x, y, 1)[1], X, Y),
    ("conv", lambda x, w: lax.conv(x, w, (1,), "SAME"), lambda x, w: jax.lax.conv(x, w, (1,), "SAME"),
     arr(2, 3, 5), arr(4, 3, 2)),
]


@pytest.mark.parametrize("name,f,jf,x,y", BINARY, ids=[b[0] for b in BINARY])
def test_binary_jvp_matches_jax_and_finite_differences(x64, name, f, jf, x, y):
    check_jvp(f, jf, (x, y))


def test_max_ties_split_the_tangent_like_jax(x64):
    x = np.array([1.0, 3.0, 3.0])
    t = np.array([1.0, 2.0, 4.0])
    _, dy = numlir.jvp(lambda v: lax.reduce_max(v, (0,)), (x,), (t,))
    _, jdy = jax.jvp(lambda v: J.max(v), (x,), (t,))
    np.testing.assert_allclose(dy, jdy)
    _, dy = numlir.jvp(lax.max, (1.0, 1.0), (1.0, 3.0))
    assert float(dy) == float(jax.jvp(jax.lax.max, (1.0, 1.0), (1.0, 3.0))[1]) == 2.0


def test_cond_and_loops_jvp(x64):
    x = arr(3)

    def f(x, np_=jnp, l=lax):
        y = l.cond(np_.sum(x) > 0, lambda v: np_.sin(v) * x, lambda v: v * 2.0, x)
        return l.fori_loop(0, 3, lambda i, c: c * np_.cos(x) + y, y)

    check_jvp(f, lambda x: f(x, J, jax.lax), (x,))
    check_jvp(f, lambda x: f(x, J, jax.lax), (-np.abs(x),))


def test_scan_jvp(x64):
    xs = arr(4, 2)

    def f(xs, l=lax):
        return l.scan(lambda c, x: (c * x + 1.0, c), np.ones(2), xs)

    out, t = numlir.jvp(f, (xs,), (np.ones_like(xs),))
    jout, jt = jax.jvp(lambda xs: f(xs, jax.lax), (xs,), (np.ones_like(xs),))
    for a, b in zip(jax.tree_util.tree_leaves(t), jax.tree_util.tree_leaves(jt)):
        np.testing.assert_allclose(a, b, rtol=1e-6)


def test_stop_gradient_has_zero_tangent():
    _, t = numlir.jvp(lambda x: x * lax.stop_gradient(x), (3.0,), (1.0,))
    assert float(t) == 3.0


def test_second_order_jvp(x64):
    f = lambda x: jnp.sin(x) * x  # noqa: E731
    d2 = numlir.jvp(lambda x: numlir.jvp(f, (x,), (1.0,))[1], (0.7,), (1.0,))[1]
    jf = lambda x: J.sin(x) * x  # noqa: E731
    jd2 = jax.jvp(lambda x: jax.jvp(jf, (x,), (1.0,))[1], (0.7,), (1.0,))[1]
    np.testing.assert_allclose(d2, jd2, rtol=1e-12)


def test_nested_jvp_has_no_perturbation_confusion():
    # d/dx [x * (d/dy (x + y))] = d/dx [x * 1] = 1 (jax docs' classic example).
    inner = lambda x: numlir.jvp(lambda y: x + y, (1.0,), (1.0,))[1]  # noqa: E731
    _, d = numlir.jvp(lambda x: x * inner(x), (2.0,), (1.0,))
    assert float(d) == 1.0


def test_jit_of_jvp_and_jvp_of_jit():
    f = lambda x: jnp.tanh(x) * 2.0  # noqa: E731
    x, t = np.float32(0.3), np.float32(1.0)
    expect = jax.jvp(lambda x: J.tanh(x) * 2.0, (x,), (t,))
    a = numlir.jit(lambda x, t: numlir.jvp(f, (x,), (t,)))(x, t)
    b = numlir.jvp(numlir.jit(f), (x,), (t,))
    for got in (a, b):
        np.testing.assert_allclose(got, expect, rtol=1e-6)


def test_jvp_pytrees_and_has_aux():
    p = {"a": np.float32(1.0), "b": (np.ones(2, np.float32),)}
    t = {"a": np.float32(2.0), "b": (np.full(2, 3.0, np.float32),)}
    out, dout, aux = numlir.jvp(lambda d: ([d["a"] * d["b"][0]], "aux"), (p,), (t,), has_aux=True)
    np.testing.assert_allclose(dout[0], [5.0, 5.0])
    assert aux == "aux"


def test_linearize_matches_jvp():
    x = np.array([0.3, -1.2, 2.0], np.float32)
    f = lambda x: jnp.sin(x) * jnp.exp(x).sum()  # noqa: E731
    y, f_jvp = numlir.linearize(f, x)
    for t in (np.ones(3, np.float32), np.array([1.0, -2.0, 0.5], np.float32)):
        y2, dy = numlir.jvp(f, (x,), (t,))
        np.testing.assert_allclose(y, y2, rtol=1e-6)
        np.testing.assert_allclose(f_jvp(t), dy, rtol=1e-5)
    # The linear map has no primal sin/exp left: only the tangent computation.
    graph = numlir.make_graph(f_jvp)(np.ones(3, np.float32))
    assert "sin" not in str(graph) and "exp" not in str(graph)


def test_jacfwd_matches_jax():
    x = np.array([0.5, -1.0, 2.0], np.float32)
    w = np.array([[1.0, 2.0, 0.0], [0.0, -1.0, 3.0]], np.float32)
    f = lambda x, w: jnp.tanh(w @ x)  # noqa: E731
    jf = lambda x, w: J.tanh(w @ x)  # noqa: E731
    np.testing.assert_allclose(numlir.jacfwd(f)(x, w), jax.jacfwd(jf)(x, w), rtol=1e-5)
    got = numlir.jacfwd(f, argnums=(0, 1))(x, w)
    want = jax.jacfwd(jf, argnums=(0, 1))(x, w)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-7)
    jac, aux = numlir.jacfwd(lambda x: (x * x, 7), has_aux=True)(x)
    np.testing.assert_allclose(jac, np.diag(2 * x))
    assert aux == 7


def test_jacfwd_rejects_integer_inputs():
    with pytest.raises(TypeError, match="jacfwd requires real-valued inputs"):
        numlir.jacfwd(lambda x: x)(np.arange(3))


def test_tangent_shape_mismatch_names_the_argument_and_shapes():
    with pytest.raises(ValueError, match=r"primals\[1\].*\(3,\).*\(4,\)") as e:
        numlir.jvp(lambda a, b: a * b, (1.0, np.ones(3, np.float32)), (1.0, np.ones(4, np.float32)))
    assert "test_jvp.py" in str(e.value)


def test_tangent_dtype_mismatch_names_the_argument_and_dtypes():
    with pytest.raises(TypeError, match=r"primals\[0\].*float32.*int32"):
        numlir.jvp(jnp.sin, (np.ones(2, np.float32),), (np.ones(2, np.int32),))


def test_jvp_requires_tuples():
    with pytest.raises(TypeError, match="must be tuples or lists"):
        numlir.jvp(jnp.sin, np.float32(1.0), (np.float32(1.0),))


# --- cumulative, window, scatter, sort, zeta/polygamma and sampling derivatives ------------------
# Derivatives of cumprod/cummax/cummin, reduce_window_prod, scatter set/mul/min/max, sort,
# zeta/polygamma and PRNG sampling: forward mode against jax.jvp and float64 finite
# differences, reverse mode against jax.grad (or, where jax has no reverse rule, against
# jax's forward mode by the dot-product identity <w, J t> = <J^T w, t>).


R7 = np.random.default_rng(7)


def arr7(*shape, lo=-2.0, hi=2.0):
    return R7.uniform(lo, hi, shape).astype(np.float64)


def check_jvp_fd(f, jf, primals, rtol=1e-9, atol=1e-12):
    """numlir.jvp of ``f`` against jax.jvp of ``jf`` and float64 central differences.
    Both sides are jitted: one compilation each instead of one per primitive."""
    tangents = tuple(R7.standard_normal(np.shape(p)) for p in primals)
    out, t = numlir.jit(lambda ps, ts: numlir.jvp(f, ps, ts))(primals, tangents)
    j_out, j_t = jax.jit(lambda ps, ts: jax.jvp(jf, ps, ts))(primals, tangents)
    np.testing.assert_allclose(np.asarray(out), j_out, rtol=rtol, atol=atol)
    np.testing.assert_allclose(np.asarray(t), j_t, rtol=rtol, atol=atol)
    num = numerical_jvp(numlir.jit(f), primals, tangents)
    np.testing.assert_allclose(np.asarray(t), num, rtol=1e-6, atol=1e-8)


def check_grad(f, jf, primals, rtol=1e-10, atol=1e-12):
    """Reverse mode of ``f`` (a weighted sum of its output) against jax.grad of ``jf``."""
    w = R7.standard_normal(np.shape(jf(*primals)))
    argnums = tuple(range(len(primals)))
    got = numlir.jit(numlir.grad(lambda *xs: jnp.sum(f(*xs) * w), argnums=argnums))(*primals)
    want = jax.jit(jax.grad(lambda *xs: J.sum(jf(*xs) * w), argnums=argnums))(*primals)
    for g, e in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), e, rtol=rtol, atol=atol)


def check_grad_by_jvp(f, jf, primals, rtol=1e-10):
    """numlir's vjp is the transpose of jax's jvp: <w, J t> == <J^T w, t> for random t."""
    w = R7.standard_normal(np.shape(jf(*primals)))
    cts = numlir.jit(lambda *ps: numlir.vjp(f, *ps)[1](w))(*primals)
    for _ in range(2):
        ts = tuple(R7.standard_normal(np.shape(p)) for p in primals)
        lhs = float(np.sum(np.asarray(jax.jit(lambda *ps: jax.jvp(jf, ps, ts)[1])(*primals)) * w))
        rhs = sum(float(np.sum(np.asarray(c) * t)) for c, t in zip(cts, ts))
        np.testing.assert_allclose(rhs, lhs, rtol=rtol, atol=1e-12)


# --- cumulative reductions ----------------------------------------------------------------

X7 = arr7(3, 5)
X_ZEROS = X7.copy()
X_ZEROS[0, 1] = X_ZEROS[2, 0] = X_ZEROS[2, 3] = 0.0  # one and two zeros in a row
CUMULATIVE = [("cumprod", lax.cumprod, jax.lax.cumprod), ("cummax", lax.cummax, jax.lax.cummax),
              ("cummin", lax.cummin, jax.lax.cummin), ("cumsum", lax.cumsum, jax.lax.cumsum)]


@pytest.mark.parametrize("name,f,jf", CUMULATIVE, ids=[c[0] for c in CUMULATIVE])
@pytest.mark.parametrize("axis,reverse", [(1, False), (0, True), (1, True)])
def test_cumulative_jvp_and_grad(x64, name, f, jf, axis, reverse):
    x = X_ZEROS if name == "cumprod" else X7
    fn, jfn = (lambda v: f(v, axis, reverse)), (lambda v: jf(v, axis, reverse))
    check_jvp_fd(fn, jfn, (x,))
    check_grad(fn, jfn, (x,))


def test_cumprod_long_axis_with_zeros(x64):
    x = arr7(37, lo=0.5, hi=1.5)
    x[[5, 20, 21]] = 0.0
    check_jvp_fd(lambda v: lax.cumprod(v), lambda v: jax.lax.cumprod(v), (x,))
    check_grad(lambda v: lax.cumprod(v, reverse=True), lambda v: jax.lax.cumprod(v, reverse=True),
               (x,))


def test_cumprod_keeps_the_sign_of_a_zero_product():
    # IEEE and NumPy: -0.58 * 0.0 is -0.0, and 1 / that is -inf. jax 0.10.2's cumprod says
    # +0.0 (its associative scan adds the interleaved halves, 0.0 + -0.0 = +0.0; seed 132,
    # program 972), which the fuzzer therefore treats like a sum's zero.
    x = np.array([[-0.5817674, 0.0], [0.0, -2.0], [3.0, -0.0]], np.float32)
    for reverse in (False, True):
        for f in (numlir.jit(lambda v: lax.cumprod(v, axis=1, reverse=reverse)),
                  lambda v: lax.cumprod(v, axis=1, reverse=reverse)):
            got = np.asarray(f(x))
            want = (np.flip(np.cumprod(np.flip(x, 1), axis=1), 1) if reverse
                    else np.cumprod(x, axis=1))
            np.testing.assert_array_equal(got, want)
            np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


def test_cummax_ties_share_the_tangent():
    x = np.array([1.0, 3.0, 3.0, 2.0, 5.0, 5.0, 5.0], np.float32)
    t = np.array([1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0], np.float32)
    jvp = numlir.jit(lambda x, t: [numlir.jvp(lax.cummax, (x,), (t,))[1],
                                   numlir.jvp(lambda v: lax.cummin(v, reverse=True), (x,),
                                              (jnp.ones_like(t),))[1]])
    dy, ones = jvp(x, t)
    # Ties split as jax's do: its derivative is the JVP of an associative scan of
    # lax.max, which halves the tangent at each tie in the scan's tree of pairs.
    np.testing.assert_allclose(dy, [1, 2, 3, 3, 16, 24, 44], rtol=1e-6)
    np.testing.assert_allclose(dy, jax.jvp(jax.lax.cummax, (x,), (t,))[1], rtol=1e-6)
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
    x = arr7(4, 5)
    x[1, 2] = 0.0

    def f(v):
        return lax.reduce_window_prod(v, window, strides, padding, base_dilation=base,
                                      window_dilation=dil)

    def jf(v):
        return jax.lax.reduce_window(v, 1.0, jax.lax.mul, window, strides, padding,
                                     base_dilation=base, window_dilation=dil)

    check_jvp_fd(f, jf, (x,))
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
    x, y = arr7(5, 3), arr7(5, 3)
    check_jvp_fd(f, jf, (x, y))
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


@pytest.mark.parametrize("method", ["max", "min"])
@pytest.mark.parametrize("transform", ["eager", "jit", "vmap"])
def test_at_max_min_gradient_passes_through_untouched_nan_like_jax(method, transform):
    # An element no update lands on passes its cotangent through, NaN included (it was 0:
    # NaN equals no result); where the update lands on a NaN (or is NaN) the result is NaN
    # and neither side gets a gradient, as jax; ties split, ±inf ties too.
    nan, inf = np.nan, np.inf
    rows = np.array([[1.0, nan, 3.0, 0.0], [nan, nan, 3.0, nan], [2.0, 2.0, nan, 2.0],
                     [inf, -inf, nan, inf], [-inf, inf, 0.0, -inf], [1.0, 5.0, nan, nan]],
                    np.float32)
    w = np.arange(1.0, 4.0, dtype=np.float32)

    def grads(L):
        def f(a, u):
            return L.numpy.sum(getattr(a.at[0], method)(u) * w)

        g = L.grad(f, argnums=(0, 1))
        row = lambda r: g(r[:3], r[3])  # noqa: E731
        if transform == "vmap":
            return [np.asarray(v) for v in L.vmap(row)(L.numpy.asarray(rows))]
        row = L.jit(row) if transform == "jit" else row
        by_row = [row(L.numpy.asarray(r)) for r in rows]
        return [np.stack([np.asarray(r[i]) for r in by_row]) for i in (0, 1)]

    for got, want in zip(grads(numlir), grads(jax)):
        np.testing.assert_array_equal(got, want)
    ga = np.asarray(numlir.grad(lambda a: jnp.sum(getattr(a.at[0], method)(2.0) * w))(rows[0, :3]))
    assert list(ga) == [float(method == "min"), 2.0, 3.0]


def test_scatter_mul_matches_jax_for_unique_indices(x64):
    f, jf = scatter_fns("scatter_mul", IDX_UNIQUE, unique_indices=True)
    x, y = arr7(5, 3), arr7(4, 3)
    y[1, 1] = 0.0
    check_jvp_fd(f, jf, (x, y))
    check_grad(f, jf, (x, y))


def test_scatter_mul_update_gradient_at_an_infinite_or_nan_update_is_the_operand(x64):
    # An update alone at its spot scales it by y, so d out/d y is the operand there, whatever
    # y is; dividing the product by y gave inf/inf = NaN (fuzz seed 113, program 1551).
    for y in (np.inf, -np.inf, np.nan, 0.0, -0.0, 1e300):
        got = [lib.grad(lambda a, b: lib.numpy.sum(a.at[0].multiply(b, unique_indices=True) * 3.0),
                        argnums=(0, 1))(np.array([2.0, 5.0]), y) for lib in (numlir, jax)]
        np.testing.assert_array_equal(np.asarray(got[0][1]), np.asarray(got[1][1]))
        np.testing.assert_array_equal(np.asarray(got[0][0]), np.asarray(got[1][0]))
    # Several updates at one spot: an infinite one's partners still see their own coefficient.
    gy = numlir.grad(lambda a, b: jnp.sum(jnp.asarray(a).at[np.array([0, 0, 1])].multiply(b)),
                     argnums=1)(
        np.array([2.0, 3.0]), np.array([5.0, 0.0, np.inf]))
    assert list(np.asarray(gy)) == [0.0, 10.0, 3.0]


def test_scatter_mul_with_duplicates_and_zeros(x64):
    # jax has no rule here; finite differences and the jvp/vjp transpose identity decide.
    f, _ = scatter_fns("scatter_mul", IDX_DUP)
    x, y = arr7(5, 3), arr7(5, 3)
    y[0, 0] = 0.0  # one zero among the two updates of row 3: the other's tangent vanishes
    y[2, 1] = y[0, 1] = 0.0  # two zeros: no tangent at all from the updates
    tx, ty = R7.standard_normal(x.shape), R7.standard_normal(y.shape)
    _, t = numlir.jvp(f, (x, y), (tx, ty))
    np.testing.assert_allclose(t, numerical_jvp(lambda a, b: np.asarray(f(a, b)), (x, y), (tx, ty)),
                               rtol=1e-7, atol=1e-9)
    w = R7.standard_normal(x.shape)
    gx, gy = numlir.grad(lambda a, b: jnp.sum(f(a, b) * w), argnums=(0, 1))(x, y)
    gx, gy = np.asarray(gx), np.asarray(gy)
    np.testing.assert_allclose(np.sum(gx * tx) + np.sum(gy * ty), np.sum(np.asarray(t) * w),
                               rtol=1e-10)
    # Column 0: y[2]'s partner y[0] is 0, y[0]'s is not; column 1: both are 0.
    assert gy[0, 0] != 0 and gy[2, 0] == 0 and gy[0, 1] == 0 and gy[2, 1] == 0


def test_at_set_and_max_grad_through_numpy_indexing(x64):
    x, y = arr7(6), arr7(3)
    idx = np.array([4, 1, 4])
    check_grad(lambda a, b: jnp.asarray(a).at[idx].set(b) ** 2,
               lambda a, b: J.asarray(a).at[idx].set(b) ** 2, (x, y))
    check_grad(lambda a, b: jnp.asarray(a).at[idx].max(b),
               lambda a, b: J.asarray(a).at[idx].max(b), (x, y))


# --- sort / sort_key_val / top_k -------------------------------------------------------------


def test_sort_jvp_and_grad(x64):
    x, v = arr7(3, 6), arr7(3, 6)
    check_jvp_fd(lambda a: lax.sort(a, 0), lambda a: jax.lax.sort(a, dimension=0), (x,))
    check_grad(lambda a: lax.sort(a, 0), lambda a: jax.lax.sort(a, dimension=0), (x,))
    check_grad(lambda a, b: lax.sort_key_val(a, b, 1)[1],
               lambda a, b: jax.lax.sort_key_val(a, b, 1)[1], (x, v))
    keys = np.array([2.0, 1.0, 2.0, 0.0])  # two keys sort the rest (ties in the first)
    check_grad(lambda a, b, c: lax.sort((a, b, c), num_keys=2)[2],
               lambda a, b, c: jax.lax.sort((a, b, c), num_keys=2)[2], (keys, arr7(4), arr7(4)))


def test_top_k_grad(x64):
    x = arr7(4, 7)
    check_jvp_fd(lambda a: lax.top_k(a, 3)[0], lambda a: jax.lax.top_k(a, 3)[0], (x,))
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
    x = arr7(5, lo=0.2, hi=6.0)
    check_jvp_fd(lax.digamma, jax.lax.digamma, (x,), rtol=1e-8)
    check_jvp_fd(lambda v: lax.polygamma(2.0, v), lambda v: jax.lax.polygamma(2.0, v), (x,),
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
