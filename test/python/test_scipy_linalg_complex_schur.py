"""numlir.scipy.linalg's complex Schur form (schur(output="complex"), and schur of complex
matrices), rsf2csf, sqrtm and funm, against jax.scipy.linalg and scipy.linalg.

Schur forms are not unique, and jax's complex form of a real matrix comes from LAPACK's
zgees on the matrix made complex where numlir's (like scipy's sqrtm) comes from the real
form through rsf2csf. So schur is checked by what defines it (A = Z T Z^H, T upper
triangular, Z unitary, T's diagonal the eigenvalues); rsf2csf, sqrtm and funm, which are
functions of their input, by value. Eagerly and under jit, in float32/float64 and
complex64/complex128.
"""

import jax
import jax.numpy as jnp
import jax.scipy.linalg as jsl
import numpy as np
import pytest
import scipy.linalg as sl

import numlir
import numlir.numpy as nnp
import numlir.scipy.linalg as nsl
from jax_comparison import assert_same

F32, F64, C64, C128 = np.float32, np.float64, np.complex64, np.complex128


def rand(shape, seed=0, dtype=F64):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def real_cases(dtype=F64):
    """(5, 5, 5): complex pairs, symmetric, upper triangular, a cyclic permutation (whose
    eigenvalues share one modulus: exceptional shifts), a nilpotent Jordan block."""
    a = rand((5, 5, 5), 3, dtype)
    a[1] = a[1] + a[1].T
    a[2] = np.triu(a[2])
    a[3] = np.roll(np.eye(5, dtype=dtype), 1, axis=0)
    a[4] = np.diag(np.ones(4, dtype), 1)
    return a


def complex_cases(dtype=C128):
    """(6, 5, 5) complex: general, Hermitian, upper triangular, i times a cyclic
    permutation, a real matrix held complex, and one whose squared entries overflow."""
    a = rand((6, 5, 5), 4, dtype)
    a[1] = a[1] + a[1].conj().T
    a[2] = np.triu(a[2])
    a[3] = 1j * np.roll(np.eye(5), 1, axis=0)
    a[4] = a[4].real
    a[5] = a[5] * (np.finfo(dtype).max / 1e4)
    return a


def check_complex_schur(a, t, z, tol):
    """A = Z T Z^H, T upper triangular (exact zeros below), Z unitary, diag T the
    eigenvalues of A (numpy's, matched one to one); each matrix to ``tol`` times its
    largest entry (or 1)."""
    a, t, z = (np.asarray(x) for x in (a, t, z))
    assert t.dtype.kind == "c" and z.dtype == t.dtype and t.shape == z.shape == a.shape
    n = a.shape[-1]
    assert not np.tril(t, -1).any()
    for ti, zi, ai in zip(t.reshape(-1, n, n), z.reshape(-1, n, n), a.reshape(-1, n, n)):
        scale = max(1.0, np.abs(ai).max())
        np.testing.assert_allclose(zi @ ti @ zi.conj().T, ai, atol=tol * scale)
        np.testing.assert_allclose(zi.conj().T @ zi, np.eye(n), atol=tol)
        ours, want = np.diagonal(ti), np.linalg.eigvals(ai.astype(C128))
        for w in want:  # one to one: each of ours used once
            k = np.argmin(np.abs(ours - w))
            # a nilpotent block's eigenvalues are eps^(1/n)-sensitive
            assert abs(ours[k] - w) <= max(1e3 * tol, 2 * np.finfo(t.dtype).eps ** (1 / n)) * scale
            ours = np.delete(ours, k)


# --- schur(output="complex") and complex input -----------------------------------------------


@pytest.mark.parametrize("dtype", [F32, F64], ids=["f32-jit", "f64-eager"])
def test_complex_schur_of_real_matrices(dtype, request):
    if dtype == F64:
        request.getfixturevalue("x64")
    a = real_cases(dtype)

    def complex_schur(x):
        return nsl.schur(x, output="complex")

    t, z = numlir.jit(complex_schur)(a) if dtype == F32 else complex_schur(a)
    check_complex_schur(a, t, z, 1e-5 if dtype == F32 else 1e-13)
    jax_t, _ = jsl.schur(a, output="complex")
    assert t.dtype == jax_t.dtype and t.shape == jax_t.shape
    # the real form's pairs are split by rsf2csf: the same forms as scipy's route gives
    real_t, real_z = nsl.schur(a)
    assert_same((t, z), nsl.rsf2csf(real_t, real_z), 1e-5 if dtype == F32 else 1e-13)


@pytest.mark.parametrize("dtype", [C64, C128], ids=["c64-jit", "c128-eager"])
def test_schur_of_complex_matrices(dtype, request):
    if dtype == C128:
        request.getfixturevalue("x64")
    a = complex_cases(dtype)
    schur = numlir.jit(nsl.schur) if dtype == C64 else nsl.schur
    t, z = schur(a)  # output="real" too gives the complex form of a complex matrix, as in JAX
    check_complex_schur(a, t, z, 2e-5 if dtype == C64 else 1e-13)
    jax_t, jax_z = jsl.schur(a)
    assert (t.dtype, z.dtype, t.shape) == (jax_t.dtype, jax_z.dtype, jax_t.shape)


def test_complex_schur_of_small_matrices(x64):
    pair = np.array([[1.0, 2.0], [-3.0, 1.5]])
    for a in [pair, pair + 1j * pair.T, np.array([[2.0 - 1j]]), np.array([[-3.0]])]:
        t, z = nsl.schur(a, output="complex")
        check_complex_schur(a, t, z, 1e-14)
    t, z = nsl.schur(np.zeros((0, 0)), output="complex")
    assert t.shape == z.shape == (0, 0) and t.dtype == C128
    for x in [np.eye(2, dtype=np.int32), np.eye(2, dtype=np.float16)]:  # JAX's result dtypes
        assert nsl.schur(x, output="complex")[0].dtype == jsl.schur(x, output="complex")[0].dtype


# --- rsf2csf -----------------------------------------------------------------------------------


def test_rsf2csf_matches_jax_and_scipy(x64):
    for n, seed in [(1, 0), (2, 1), (5, 2)]:  # 2 and 5: with complex pairs
        t, z = (np.asarray(x) for x in jsl.schur(rand((n, n), seed)))
        ours = nsl.rsf2csf(t, z)
        assert_same(ours, jsl.rsf2csf(t, z), 1e-13)
        for got, want in zip(ours, sl.rsf2csf(t, z)):
            np.testing.assert_allclose(np.asarray(got), want, atol=1e-13)
    # batch dimensions broadcast between T and Z; a triangular T stays (made complex)
    t = np.stack([np.asarray(jsl.schur(rand((5, 5), s))[0]) for s in (5, 6)] + [np.triu(rand((5, 5)))])
    z = np.asarray(jsl.schur(rand((5, 5), 7))[1])
    assert_same(numlir.jit(nsl.rsf2csf)(t, z), jsl.rsf2csf(t, z), 1e-13)


def test_rsf2csf_in_float32_and_its_derivatives_are_jaxs(x64):
    t, z = (np.asarray(x, F32) for x in jsl.schur(rand((5, 5), 2)))
    assert_same(numlir.jit(nsl.rsf2csf)(t, z), jsl.rsf2csf(t, z), 1e-5)
    t, z = (np.asarray(x) for x in jsl.schur(rand((5, 5), 2)))
    dt, dz = rand((5, 5), 8), rand((5, 5), 9)
    assert_same(numlir.jvp(nsl.rsf2csf, (t, z), (dt, dz)), jax.jvp(jsl.rsf2csf, (t, z), (dt, dz)),
                1e-12)

    # reverse mode agrees with forward mode (a subdiagonal left alone must not make NaN)
    def loss(t):
        return (nnp.abs(nsl.rsf2csf(t, z)[0]) ** 2).sum()

    directional = numlir.jvp(loss, (t,), (dt,))[1]
    np.testing.assert_allclose(np.sum(np.asarray(numlir.grad(loss)(t)) * dt), np.asarray(directional),
                               rtol=1e-12)


def test_rsf2csf_refuses_what_jax_refuses():
    square = np.eye(3)
    with pytest.raises(ValueError, match="'T' must be square"):
        nsl.rsf2csf(square[:2], square)
    with pytest.raises(ValueError, match="'T' must be square"):
        nsl.rsf2csf(square[0], square)
    with pytest.raises(ValueError, match="'Z' must be square"):
        nsl.rsf2csf(square, square[:2])
    with pytest.raises(ValueError, match="shapes must match"):
        nsl.rsf2csf(square, np.eye(2))


# --- sqrtm -------------------------------------------------------------------------------------

def positive_definite(n, seed):
    m = rand((n, n), seed)
    return m @ m.T + np.eye(n)


SQRTM_CASES = {  # name: (matrix, whether jax's zgees route gives the same root)
    "complex pairs": (rand((5, 5), 1) + 3 * np.eye(5), True),
    "symmetric positive definite": (positive_definite(5, 2), True),
    "upper triangular": (np.triu(rand((5, 5), 3)) + np.diag([1.0, 2, 3, 4, 5]), True),
    # a negative real eigenvalue: zgees leaves it a -0j imaginary part, so jax takes the
    # other root of it; numlir keeps it real, as scipy does
    "negative eigenvalue": (rand((5, 5), 4), False),
    "one pair": (np.array([[1.0, 2.0], [-3.0, 1.5]]), True),
    "defective (Jordan block)": (np.array([[1.0, 1.0], [0.0, 1.0]]), True),
    "ill-conditioned": (np.array([[1.0, 1e4], [0.0, 1.0 + 1e-8]]), True),
    "singular": (np.array([[4.0, 0.0], [0.0, 0.0]]), True),
    "negative scalar": (np.array([[-4.0]]), True),
}


@pytest.mark.filterwarnings("ignore::scipy.linalg.LinAlgWarning")  # scipy's, on the singular case
@pytest.mark.parametrize("name", list(SQRTM_CASES))
def test_sqrtm_matches_scipy_and_jax(name, x64):
    a, like_jax = SQRTM_CASES[name]
    root = nsl.sqrtm(a)
    assert root.dtype == C128
    scale = max(1.0, np.abs(a).max())
    np.testing.assert_allclose(np.asarray(root), sl.sqrtm(a), atol=1e-12 * scale, rtol=1e-12)
    np.testing.assert_allclose(np.asarray(root @ root), a, atol=1e-12 * scale)
    if like_jax:
        assert_same(root, jsl.sqrtm(a), 1e-12)


def test_sqrtm_in_float32_under_jit_of_complex_input_and_under_vmap(x64):
    a, _ = SQRTM_CASES["complex pairs"]
    assert_same(numlir.jit(nsl.sqrtm)(a.astype(F32)), jsl.sqrtm(a.astype(F32)), 1e-4)
    c = a + 1j * rand((5, 5), 5)
    assert_same(nsl.sqrtm(c), jsl.sqrtm(c), 1e-12)
    np.testing.assert_allclose(np.asarray(nsl.sqrtm(c)), sl.sqrtm(c), atol=1e-12)
    batch = np.stack([a, SQRTM_CASES["symmetric positive definite"][0]])
    assert_same(numlir.jit(numlir.vmap(nsl.sqrtm))(batch), jax.vmap(jsl.sqrtm)(batch), 1e-12)
    nilpotent = np.array([[0.0, 1.0], [0.0, 0.0]])  # has no square root: NaN, as jax
    assert_same(nsl.sqrtm(nilpotent), jsl.sqrtm(nilpotent))


def test_sqrtm_refuses_what_jax_refuses(x64):
    with pytest.raises(ValueError, match="square 2-D"):
        nsl.sqrtm(np.ones((2, 3, 3)))  # as jax, one matrix: vmap for a batch
    with pytest.raises(ValueError, match="square 2-D"):
        nsl.sqrtm(np.ones((2, 3)))
    with pytest.raises(ValueError, match="square 2-D"):
        nsl.sqrtm(np.ones(3))
    with pytest.raises(NotImplementedError, match="Blocked"):
        nsl.sqrtm(np.eye(2), blocksize=2)
    for f in [nsl.sqrtm, lambda x: nsl.funm(x, nnp.exp), lambda x: nsl.schur(x, output="complex"),
              lambda x: nsl.schur(x + 1j * x)]:
        with pytest.raises(NotImplementedError, match="'schur'"):
            numlir.jvp(f, (np.eye(2),), (np.eye(2),))


# --- funm --------------------------------------------------------------------------------------


def test_funm_matches_jax_and_scipy(x64):
    a = rand((5, 5), 6)

    def sin_2cos(x, np_=nnp):
        return np_.sin(x) + 2 * np_.cos(x)

    got = nsl.funm(a, nnp.exp)
    assert_same(got, jsl.funm(a, jnp.exp), 1e-12)
    np.testing.assert_allclose(np.asarray(got), sl.expm(a), rtol=1e-12, atol=1e-12)
    got = nsl.funm(a, sin_2cos)
    assert_same(got, jsl.funm(a, lambda x: sin_2cos(x, jnp)), 1e-12)
    np.testing.assert_allclose(np.asarray(got), sl.funm(a, lambda x: sin_2cos(x, np)), atol=1e-12)
    # disp=False: the result and jax's error estimate
    assert_same(nsl.funm(a, nnp.exp, disp=False), jsl.funm(a, jnp.exp, disp=False), 1e-12)
    c = a + 1j * rand((5, 5), 7)
    assert_same(nsl.funm(c, nnp.exp), jsl.funm(c, jnp.exp), 1e-12)
    # a real-valued func gives a complex result too, as jax
    assert_same(nsl.funm(np.diag([1.0, -2.0]), nnp.abs), jsl.funm(np.diag([1.0, -2.0]), jnp.abs))


def test_funm_in_float32_under_jit_and_its_errors():
    a = rand((5, 5), 6, F32)
    f, error = numlir.jit(lambda x: nsl.funm(x, nnp.exp, disp=False))(a)
    assert (f.dtype, error.dtype, error.shape) == (C64, F32, ())
    np.testing.assert_allclose(np.asarray(f), sl.expm(a.astype(F64)), rtol=2e-5, atol=2e-5)
    assert np.finfo(F32).eps <= float(error) <= 1
    for bad in [np.ones((2, 3, 3)), np.ones((2, 3)), np.ones(3)]:
        with pytest.raises(ValueError, match="square 2-D"):
            nsl.funm(bad, nnp.exp)
