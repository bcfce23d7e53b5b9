"""Forward-mode autodiff: numlir.jvp / linearize / jacfwd against jax and finite differences."""

import jax
import jax.numpy as J
import numpy as np
import pytest
from ad_testing import check_jvp

import numlir
import numlir.lax as lax
import numlir.numpy as jnp

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
