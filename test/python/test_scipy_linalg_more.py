"""numlir.scipy.linalg's structured matrices, Hessenberg (real and complex) and Schur forms,
qr_multiply, solve_sylvester and expm_frechet, against jax.scipy.linalg and scipy.linalg.

Values match jax (shape, dtype, value) eagerly and under jit, in float32 and float64;
batch dimensions, vmap and derivatives (against jax where it has them, else against
finite differences) are checked too.
"""

import jax
import jax.scipy.linalg as jsl
import numpy as np
import pytest
import scipy.linalg as sl

import numlir
import numlir.scipy.linalg as nsl
from jax_comparison import assert_same

F32, F64, C64, C128 = np.float32, np.float64, np.complex64, np.complex128


def rand(shape, seed=0, dtype=F64):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def leaves(tree):
    return [np.asarray(x, F64) for x in jax.tree_util.tree_leaves(tree)]


def check_derivatives(f, args, tol=1e-6, jax_f=None, forward=True):
    """numlir.jvp and numlir.vjp of ``f`` (each compiled once) against central finite
    differences (float64) and, with ``jax_f``, against jax's (``forward=False``: the vjp
    against jax's alone)."""
    rng = np.random.default_rng(0)
    tangents = tuple(rng.standard_normal(np.shape(a)) for a in args)
    out = jax.eval_shape(jax_f, *args) if not forward else None
    if forward:
        out, t_out = numlir.jit(lambda a, t: numlir.jvp(f, a, t))(args, tangents)
        f_jit, eps = numlir.jit(f), 1e-6
        plus = f_jit(*[a + eps * t for a, t in zip(args, tangents)])
        minus = f_jit(*[a - eps * t for a, t in zip(args, tangents)])
        for t, p, m in zip(leaves(t_out), leaves(plus), leaves(minus)):
            np.testing.assert_allclose(t, (p - m) / (2 * eps), rtol=tol, atol=tol)
    cts = jax.tree_util.tree_map(lambda o: rng.standard_normal(np.shape(o)), out)
    cts_in = numlir.jit(lambda a, ct: numlir.vjp(f, *a)[1](ct))(args, cts)
    if forward:
        lhs = sum(float(np.vdot(x, y)) for x, y in zip(leaves(cts_in), leaves(tangents)))
        rhs = sum(float(np.vdot(x, y)) for x, y in zip(leaves(cts), leaves(t_out)))
        np.testing.assert_allclose(lhs, rhs, rtol=tol, atol=tol)
    if jax_f is not None:
        want = jax.jit(lambda a, ct: jax.vjp(jax_f, *a)[1](ct))(args, cts)
        for g, w in zip(leaves(cts_in), leaves(want)):
            np.testing.assert_allclose(g, w, rtol=tol, atol=tol)


def one_mode(f, *args):
    """f under jit in float32, eagerly in float64: the public functions compile their work
    whole either way (inlined under jit), so one mode per dtype covers both paths."""
    return numlir.jit(f)(*args) if np.asarray(args[0]).dtype == F32 else f(*args)


def both_modes(f, *args, eager=True):
    """f eagerly (optional) and under jit; returns the jit result after checking the two agree."""
    out = numlir.jit(f)(*args)
    if eager:
        assert_same(f(*args), out, 1e-6 if np.asarray(args[0]).dtype == F32 else 1e-12)
    return out


# --- matrices of a vector, and of their order --------------------------------------------

VECTOR_CASES = {  # name: (function of the library, argument shapes)
    "fiedler": (lambda m: m.fiedler, [(5,)]),
    "fiedler_batched": (lambda m: m.fiedler, [(2, 3, 4)]),
    "fiedler_companion": (lambda m: m.fiedler_companion, [(6,)]),
    "fiedler_companion_2": (lambda m: m.fiedler_companion, [(2,)]),
    "fiedler_companion_batched": (lambda m: m.fiedler_companion, [(3, 5)]),
    "leslie": (lambda m: m.leslie, [(4,), (3,)]),
    "leslie_broadcast": (lambda m: m.leslie, [(2, 1, 4), (3, 3)]),
    "convolution_matrix_full": (lambda m: lambda a: m.convolution_matrix(a, 4), [(3,)]),
    "convolution_matrix_same": (lambda m: lambda a: m.convolution_matrix(a, 3, "same"), [(2, 5)]),
    "convolution_matrix_same_long": (lambda m: lambda a: m.convolution_matrix(a, 6, "same"), [(4,)]),
    "convolution_matrix_valid": (lambda m: lambda a: m.convolution_matrix(a, 2, "valid"), [(5,)]),
    "convolution_matrix_valid_long": (lambda m: lambda a: m.convolution_matrix(a, 6, "valid"), [(3,)]),
}


@pytest.mark.parametrize("dtype", [F32, F64], ids=["f32", "f64"])
@pytest.mark.parametrize("name", sorted(VECTOR_CASES))
def test_matrices_of_vectors_match_jax(name, dtype, request):
    if dtype == F64:
        request.getfixturevalue("x64")
    make, shapes = VECTOR_CASES[name]
    args = [rand(s, i, dtype) for i, s in enumerate(shapes)]
    assert_same(both_modes(make(nsl), *args), jax.jit(make(jsl))(*args), 1e-6 if dtype == F32 else 1e-12)


@pytest.mark.parametrize("name", ["fiedler", "leslie", "convolution_matrix_same"])
def test_integer_matrices_of_vectors_keep_their_dtype(name):
    make, shapes = VECTOR_CASES[name]
    args = [np.arange(np.prod(s), dtype=np.int32).reshape(s) * (-1) ** i for i, s in enumerate(shapes)]
    assert_same(make(nsl)(*args), jax.jit(make(jsl))(*args))


@pytest.mark.parametrize("name", ["fiedler_companion", "leslie", "convolution_matrix_same"])
def test_matrices_of_vectors_differentiate_as_jax(name, x64):
    make, shapes = VECTOR_CASES[name]
    args = tuple(rand(s, i) for i, s in enumerate(shapes))
    check_derivatives(make(nsl), args, jax_f=make(jsl))


def test_matrices_of_vectors_under_vmap():
    a = rand((3, 5), 1, F32)
    assert_same(numlir.vmap(nsl.fiedler_companion)(a), jax.jit(jax.vmap(jsl.fiedler_companion))(a))
    s = rand((3, 4), 2, F32)
    assert_same(numlir.vmap(nsl.leslie, in_axes=(0, None))(a, s[0]),
                jax.jit(jax.vmap(jsl.leslie, in_axes=(0, None)))(a, s[0]))


ORDER_CASES = {
    "pascal": lambda m, n: [m.pascal(n), m.pascal(n, "lower"), m.pascal(n, "upper")],
    "invpascal": lambda m, n: [m.invpascal(n), m.invpascal(n, "lower"), m.invpascal(n, "upper")],
    "invhilbert": lambda m, n: [m.invhilbert(n)],
    "helmert": lambda m, n: [m.helmert(n), m.helmert(n, full=True)],
    "hadamard": lambda m, n: [m.hadamard(2 ** (n // 2)), m.hadamard(4, np.float32)],
}


@pytest.mark.parametrize("x64_on", [False, True], ids=["x32", "x64"])
@pytest.mark.parametrize("name", sorted(ORDER_CASES))
def test_matrices_of_their_order_match_jax_and_scipy(name, x64_on, request):
    if x64_on:
        request.getfixturevalue("x64")
    for n in (1, 6):
        got, want = ORDER_CASES[name](nsl, n), ORDER_CASES[name](jsl, n)
        # ours are exact integers rounded once; jax's go through lgamma, off by a few ulps
        assert_same(got, want, 1e-5 if name != "invhilbert" else 1e-3)
        scipy_name = {"hadamard": None}.get(name, name)
        if scipy_name and x64_on:
            exact = ORDER_CASES[name](sl, n)
            for g, e in zip(got, exact):
                np.testing.assert_allclose(np.asarray(g, F64), e, rtol=1e-14 if name != "pascal" else 1e-7)


def test_matrices_of_their_order_under_jit():
    assert_same(numlir.jit(lambda: nsl.invpascal(4))(), jsl.invpascal(4))


@pytest.mark.parametrize("call, message", [
    (lambda m: m.hadamard(6), "power of 2"),
    (lambda m: m.helmert(0), "positive integer"),
    (lambda m: m.pascal(3, "diagonal"), "kind"),
    (lambda m: m.convolution_matrix(np.ones(3), 0), "positive integer"),
    (lambda m: m.convolution_matrix(np.ones(3), 2, "wide"), "mode"),
    (lambda m: m.convolution_matrix(np.float32(1.0), 2), "1-dimensional"),
    (lambda m: m.leslie(np.ones(3), np.ones(3)), "one less"),
    (lambda m: m.fiedler_companion(np.ones(0)), "nonzero"),
])
def test_bad_arguments_raise_as_jax(call, message):
    with pytest.raises(ValueError, match=message):
        call(jsl)
    with pytest.raises(ValueError, match=message):
        call(nsl)


# --- Hessenberg and Schur forms --------------------------------------------------------------


def crand(shape, seed=0, dtype=C128):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)


@pytest.mark.parametrize("dtype", [F32, F64, C64, C128], ids=["f32", "f64", "c64", "c128"])
def test_hessenberg_is_lapacks(dtype, request):
    # Complex: zgehrd's reflectors (zlarfg) map each column onto a real multiple of e_k, so
    # h has a real subdiagonal and h and q are jax's and scipy's, not just some Hessenberg form
    if dtype in (F64, C128):
        request.getfixturevalue("x64")
    complex_input = np.dtype(dtype).kind == "c"
    tol = {F32: 2e-5, C64: 2e-5, F64: 1e-12, C128: 1e-13}[dtype]
    wide = C128 if complex_input else F64
    a = crand((2, 5, 5), 3, dtype) if complex_input else rand((2, 5, 5), 3, dtype)
    h, q = one_mode(lambda x: nsl.hessenberg(x, calc_q=True), a)
    for i in range(2):
        assert_same((h[i], q[i]), jsl.hessenberg(a[i], calc_q=True), tol)
        for got, want in zip((h[i], q[i]), sl.hessenberg(a[i].astype(wide), calc_q=True)):
            np.testing.assert_allclose(np.asarray(got), want, atol=10 * tol)
    h, q = np.asarray(h, wide), np.asarray(q, wide)
    assert not np.tril(h, -2).any() and not np.diagonal(h, -1, -2, -1).imag.any()
    q_h = np.conj(np.swapaxes(q, -1, -2))
    np.testing.assert_allclose(q @ h @ q_h, a, atol=10 * tol)
    np.testing.assert_allclose(q_h @ q, np.broadcast_to(np.eye(5), q.shape), atol=10 * tol)
    assert_same(nsl.hessenberg(a[0]), jsl.hessenberg(a[0]), tol)
    # a 2 x 2 matrix still gets its one reflection, which turns a complex h[1, 0] real
    assert_same(nsl.hessenberg(a[0, :2, :2]), jsl.hessenberg(a[0, :2, :2]), tol)
    assert_same(nsl.hessenberg(np.ones((0, 0), dtype), calc_q=True),
                jsl.hessenberg(np.ones((0, 0), dtype), calc_q=True))


def test_hessenberg_under_vmap_and_differentiates(x64):
    a = rand((3, 4, 4), 4)
    h, q = numlir.jit(numlir.vmap(lambda x: nsl.hessenberg(x, calc_q=True)))(a)
    np.testing.assert_allclose(np.asarray(q @ h @ np.swapaxes(q, -1, -2)), a, atol=1e-12)
    check_derivatives(lambda x: nsl.hessenberg(x, calc_q=True), (a[0],))


def crand(shape, seed=0, dtype=C128):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)


def test_complex_hessenberg_under_vmap_and_differentiates(x64):
    # jax has no derivative for hessenberg; numlir differentiates through the reflections,
    # for complex as for real input (checked against central differences)
    a, t = crand((2, 4, 4), 4), crand((4, 4), 5)
    f = lambda x: nsl.hessenberg(x, calc_q=True)
    got = numlir.jit(numlir.vmap(f))(a)
    for i in range(2):
        assert_same((got[0][i], got[1][i]), jsl.hessenberg(a[i], calc_q=True), 1e-13)
    _, tangents = numlir.jit(lambda x, dx: numlir.jvp(f, (x,), (dx,)))(a[0], t)
    f_jit, eps = numlir.jit(f), 1e-6
    for dt, p, m in zip(tangents, f_jit(a[0] + eps * t), f_jit(a[0] - eps * t)):
        np.testing.assert_allclose(np.asarray(dt), (np.asarray(p) - np.asarray(m)) / (2 * eps),
                                   atol=1e-7)


def _check_schur(a, t, z, tol):
    a, t, z = (np.asarray(x, F64) for x in (a, t, z))
    n = a.shape[-1]
    np.testing.assert_allclose(z @ t @ np.swapaxes(z, -1, -2), a, atol=tol * max(1, np.abs(a).max()))
    np.testing.assert_allclose(np.swapaxes(z, -1, -2) @ z, np.broadcast_to(np.eye(n), z.shape), atol=tol)
    assert not np.tril(t, -2).any()
    sub = np.diagonal(t, -1, -2, -1)
    assert not (sub[..., 1:] * sub[..., :-1]).any()  # blocks of size at most 2
    for i in zip(*np.nonzero(sub)):  # LAPACK's standard 2 x 2 blocks: [[m, b], [c, m]], bc < 0
        *batch, k = i
        block = t[tuple(batch)][k:k + 2, k:k + 2]
        assert abs(block[0, 0] - block[1, 1]) <= tol * np.abs(block).max() and block[0, 1] * block[1, 0] < 0
    for ti, ai in zip(t.reshape(-1, n, n), a.reshape(-1, n, n)):  # the same eigenvalues
        ours, want = np.linalg.eigvals(ti), np.linalg.eigvals(ai)
        assert np.abs(ours[:, None] - want[None, :]).min(axis=1).max() <= 100 * tol * max(1, np.abs(ai).max())


@pytest.mark.parametrize("dtype", [F32, F64], ids=["f32", "f64"])
def test_schur_is_the_real_schur_form(dtype, request):
    if dtype == F64:
        request.getfixturevalue("x64")
    tol = 1e-5 if dtype == F32 else 1e-13
    a = rand((4, 6, 6), 5, dtype)
    a[1] = a[1] + a[1].T  # real eigenvalues: triangular
    a[2] = np.roll(np.eye(6, dtype=dtype), 1, axis=0)  # a cyclic permutation: exceptional shifts
    a[3] = np.diag(np.ones(5, dtype), 1)  # nilpotent
    t, z = numlir.jit(nsl.schur)(a) if dtype == F32 else nsl.schur(a)
    _check_schur(a, t, z, tol)
    assert not np.tril(np.asarray(t[1]), -1).any()


def test_schur_matches_lapack_where_it_orders_alike(x64):
    # dlahqr's shifts and deflation tests, so on these matrices the very same form
    a = rand((3, 5, 5), 1)
    t, z = nsl.schur(a)
    assert_same((t, z), jsl.schur(a), 1e-10)
    for i in range(3):
        np.testing.assert_allclose(np.asarray(t[i]), sl.schur(a[i])[0], atol=1e-10)


def test_schur_small_matrices(x64):
    twos = np.array([[[1.0, 2.0], [-3.0, 1.5]], [[1.0, 2.0], [3.0, 4.0]], [[0.0, 1.0], [0.0, 0.0]]])
    for a in [twos, np.array([[2.0]])]:
        t, z = nsl.schur(a)
        _check_schur(a, t, z, 1e-13)
        for i in range(a.shape[0] if a.ndim == 3 else 0):
            np.testing.assert_allclose(np.asarray(t[i]), sl.schur(a[i])[0], atol=1e-13)
    assert nsl.schur(np.zeros((0, 0)))[0].shape == (0, 0)


@pytest.mark.parametrize("library", [False, True], ids=["composite", "lapack"])
def test_real_schur_of_a_matrix_near_the_overflow_or_underflow_threshold_is_finite_and_exact(
        library, x64):
    # Francis steps square entries: near 1e200 they overflowed to NaN, near 1e-200 they
    # underflowed. The composite divides the matrix by a power of two first, exactly, so T
    # is the unscaled matrix's T times that power, bit for bit, and Z is the same. LAPACK's
    # gees scales by a factor that is not one (dlascl): the same to rounding.
    a = rand((5, 5), 8)
    huge, tiny = 2.0 ** 664, 2.0 ** -664  # about 1e200 and 1e-200
    previous = numlir.config.flags.cpu_library_calls
    numlir.config.update("cpu_library_calls", library)
    try:
        t, z = (np.asarray(r) for r in nsl.schur(np.stack([a, a * huge, a * tiny])))
    finally:
        numlir.config.update("cpu_library_calls", previous)
    assert np.isfinite(t).all()
    tol = 0 if not library else 1e-13
    np.testing.assert_allclose(t[1] / huge, t[0], rtol=0, atol=tol * np.abs(t[0]).max())
    np.testing.assert_allclose(t[2] / tiny, t[0], rtol=0, atol=tol * np.abs(t[0]).max())
    np.testing.assert_allclose(z[1], z[0], rtol=0, atol=tol)
    np.testing.assert_allclose(z[2], z[0], rtol=0, atol=tol)
    _check_schur(a, t[0], z[0], 1e-13)
    for ti, zi, s in zip(t[1:], z[1:], (huge, tiny)):
        np.testing.assert_allclose(zi @ ti @ zi.T / s, a, atol=1e-13 * np.abs(a).max())
        ours, want = np.linalg.eigvals(ti), np.linalg.eigvals(a * s)
        assert (np.abs(ours[:, None] - want[None, :]) / np.abs(want)).min(axis=1).max() < 1e-13
    h, q = (np.asarray(r) for r in nsl.hessenberg(a * huge, calc_q=True))  # its first step
    np.testing.assert_allclose(q @ h @ q.T / huge, a, atol=1e-13)


def test_schur_under_vmap_is_not_differentiable_and_checks_output(x64):
    # (output="complex" and complex input: test_scipy_linalg_complex_schur.py)
    a = rand((2, 4, 4), 6)
    t, z = numlir.jit(numlir.vmap(nsl.schur))(a)
    _check_schur(a, t, z, 1e-13)
    with pytest.raises(NotImplementedError, match="schur"):
        numlir.jvp(nsl.schur, (a[0],), (a[0],))
    with pytest.raises(ValueError, match="output"):
        nsl.schur(a[0], output="imaginary")


# --- qr_multiply and pivoted QR ---------------------------------------------------------------

QR_CASES = [  # (a shape, c shape, mode)
    ((5, 3), (3, 2), "left"), ((5, 3), (2, 5), "right"), ((3, 5), (3,), "left"),
    ((3, 5), (3,), "right"), ((2, 4, 4), (4, 3), "left"), ((4, 4), (2, 3, 4), "right"),
]


@pytest.mark.parametrize("dtype", [F32, F64], ids=["f32", "f64"])
@pytest.mark.parametrize("pivoting", [False, True], ids=["plain", "pivoting"])
def test_qr_multiply_matches_jax(pivoting, dtype, request):
    if dtype == F64:
        request.getfixturevalue("x64")
    tol = 2e-5 if dtype == F32 else 1e-12
    for i, (a_shape, c_shape, mode) in enumerate(QR_CASES if dtype == F32 else QR_CASES[::3]):
        a, c = rand(a_shape, i, dtype), rand(c_shape, 10 + i, dtype)
        def f(a, c, m, mode=mode):
            return m.qr_multiply(a, c, mode=mode, pivoting=pivoting)

        want = jax.jit(lambda a, c, f=f: f(a, c, jsl))(a, c) if not pivoting or len(a_shape) == 2 else None
        got = both_modes(lambda a, c, f=f: f(a, c, nsl), a, c, eager=i == 0)
        if want is not None:
            assert_same(got, want, tol)


@pytest.mark.parametrize("mode", ["full", "economic", "r"])
def test_pivoted_qr_matches_jax_and_scipy(mode, x64):
    a = rand((6, 4), 7)
    a[:, 2] *= 10
    got = nsl.qr(a, mode=mode, pivoting=True)
    assert_same(got, jsl.qr(a, mode=mode, pivoting=True), 1e-12)
    for g, w in zip(got, sl.qr(a, mode=mode, pivoting=True)):
        np.testing.assert_allclose(np.asarray(g), w, atol=1e-12)


def test_qr_multiply_vmap_and_derivatives(x64):
    a, c = rand((3, 5, 3), 8), rand((3, 2, 5), 9)
    assert_same(numlir.jit(numlir.vmap(nsl.qr_multiply))(a, c), nsl.qr_multiply(a, c), 1e-12)
    # jax has no derivative for geqrf; ours is the derivative of Householder QR
    check_derivatives(nsl.qr_multiply, (a[0], c[0]))
    with pytest.raises(ValueError, match="not compatible"):
        nsl.qr_multiply(a[0], c[0], mode="left")


# --- solve_sylvester ------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [F32, F64], ids=["f32", "f64"])
def test_solve_sylvester_matches_jax_and_scipy(dtype, request):
    if dtype == F64:
        request.getfixturevalue("x64")
    tol = 1e-4 if dtype == F32 else 1e-10
    a, b, c = rand((4, 4), 1, dtype), rand((3, 3), 2, dtype), rand((4, 3), 3, dtype)
    got = one_mode(nsl.solve_sylvester, a, b, c)
    assert_same(got, jsl.solve_sylvester(a, b, c), tol)
    np.testing.assert_allclose(np.asarray(got, F64), sl.solve_sylvester(a, b, c), atol=tol)
    assert_same(nsl.solve_sylvester(a, b, c, method="eigen"), jsl.solve_sylvester(a, b, c, method="eigen"),
                tol)


def test_solve_sylvester_batched_and_under_vmap(x64):
    a, b, c = rand((2, 3, 3), 4), rand((3, 3), 5), rand((2, 1, 3, 3), 6)
    want = np.stack([np.stack([sl.solve_sylvester(a[i], b, c[j, 0]) for i in range(2)]) for j in range(2)])
    np.testing.assert_allclose(np.asarray(nsl.solve_sylvester(a, b, c)), want, atol=1e-12)
    got = numlir.jit(numlir.vmap(nsl.solve_sylvester, in_axes=(0, None, 0)))(a, b, c[:, 0])
    np.testing.assert_allclose(np.asarray(got), want[[0, 1], [0, 1]], atol=1e-12)


def test_solve_sylvester_ill_conditioned_and_singular(x64):
    # eigenvalues of a and -b a distance 1e-6 apart: the solution is large, but accurate
    rng = np.random.default_rng(7)
    q = np.linalg.qr(rng.standard_normal((3, 3)))[0]
    a = q @ np.diag([1.0, 2.0, 3.0]) @ q.T
    b = np.diag([-1.0 + 1e-6, 5.0])
    c = rng.standard_normal((3, 2))
    got = np.asarray(nsl.solve_sylvester(a, b, c))
    ref = sl.solve_sylvester(a, b, c)
    np.testing.assert_allclose(got, ref, rtol=1e-7, atol=1e-7 * np.abs(ref).max())
    np.testing.assert_allclose(a @ got + got @ b, c, atol=1e-8)
    # closer than tol: NaN, as jax
    singular = np.diag([-1.0 + 1e-9, 5.0])
    assert np.isnan(np.asarray(nsl.solve_sylvester(a, singular, c))).all()
    assert np.isnan(np.asarray(jsl.solve_sylvester(a, singular, c))).all()
    # a complex pair of a meeting a complex pair of -b
    rot = np.array([[0.0, 1.0], [-1.0, 0.0]])
    assert np.isnan(np.asarray(nsl.solve_sylvester(rot, rot, np.ones((2, 2))))).all()


def test_solve_sylvester_differentiates(x64):
    # jax cannot (its Schur form has no derivative); ours is the derivative of the solution
    a, b, c = rand((3, 3), 8), rand((2, 2), 9) + 3 * np.eye(2), rand((3, 2), 10)
    check_derivatives(nsl.solve_sylvester, (a, b, c))


def test_solve_sylvester_rejects_bad_shapes_and_methods():
    with pytest.raises(ValueError, match="Incompatible shapes"):
        nsl.solve_sylvester(np.eye(2), np.eye(3), np.ones((3, 3)))
    with pytest.raises(ValueError, match="Unrecognized method"):
        nsl.solve_sylvester(np.eye(2), np.eye(2), np.ones((2, 2)), method="bartels")


# --- expm_frechet -----------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [F32, F64], ids=["f32", "f64"])
def test_expm_frechet_matches_jax_and_scipy(dtype, request):
    if dtype == F64:
        request.getfixturevalue("x64")
    tol = 2e-4 if dtype == F32 else 1e-10
    a, e = rand((2, 4, 4), 11, dtype), rand((2, 4, 4), 12, dtype)
    got = one_mode(nsl.expm_frechet, a, e)
    assert_same(got, jsl.expm_frechet(a, e), tol)
    for i in range(2):
        for g, w in zip(got, sl.expm_frechet(a[i].astype(F64), e[i].astype(F64))):
            np.testing.assert_allclose(np.asarray(g[i], F64), w, rtol=tol, atol=tol)
    if dtype == F64:
        assert_same(nsl.expm_frechet(a[0], e[0], compute_expm=False),
                    jsl.expm_frechet(a[0], e[0], compute_expm=False), tol)


def test_expm_frechet_gradient_and_vmap(x64):
    a, e = rand((4, 4), 13) * 0.5, rand((4, 4), 14)
    # a second derivative of expm: against jax's
    check_derivatives(lambda a, e: nsl.expm_frechet(a, e)[1], (a, e),
                      jax_f=lambda a, e: jsl.expm_frechet(a, e)[1], forward=False)
    batch = np.stack([a, 2 * a])
    assert_same(numlir.jit(numlir.vmap(nsl.expm_frechet, in_axes=(0, None)))(batch, e),
                jsl.expm_frechet(batch, np.stack([e, e])), 1e-10)
    with pytest.raises(ValueError, match="same shape"):
        nsl.expm_frechet(a, e[:3, :3])


@pytest.mark.parametrize("n", [0, 1, 4, 7])
@pytest.mark.parametrize("scale", [None, "n", "sqrtn"])
def test_dft_matrix_matches_jax(n, scale):
    from numlir.scipy import linalg as nl

    got, want = nl.dft(n, scale), jax.scipy.linalg.dft(n, scale)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), atol=1e-5)  # jax's: ~1e-6 off
    exact = sl.dft(n, scale) if n else np.zeros((0, 0))
    np.testing.assert_allclose(np.asarray(got), exact, atol=1e-7)  # rounded once from exact phases
    x = np.arange(n, dtype=np.float32)
    if n and scale is None:  # the matrix applies the FFT
        np.testing.assert_allclose(np.asarray(got @ x), np.fft.fft(x), atol=1e-4)
    with pytest.raises(ValueError, match="scale must be None"):
        nl.dft(3, "bad")
    with pytest.raises(ValueError, match="complex floating-point"):
        nl.dft(3, dtype=np.float32)
