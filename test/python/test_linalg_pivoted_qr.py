"""QR with column pivoting, real and complex: numlir.lax.linalg.qr(pivoting=True) and
numlir.scipy.linalg.qr / qr_multiply(pivoting=True), against jax (LAPACK's geqp3) and scipy.

The permutation must be geqp3's exactly and q, r jax's to rounding; on rank-deficient and
graded matrices, where the trailing choices are decided by rounding noise, the
well-determined leading part is compared and the rest checked by what defines the
factorization. Derivatives are jax's rule: the QR derivative of a[..., :, p].
"""

import jax
import jax.scipy.linalg as jsl
import numpy as np
import pytest
import scipy.linalg as sl

import numlir
import numlir.lax.linalg as nl_lax_linalg
import numlir.scipy.linalg as nsl
from jax_comparison import assert_same

F32, F64, C64, C128 = np.float32, np.float64, np.complex64, np.complex128


def rand(shape, dtype=C128, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def check_factorization(a, q, r, p, tol):
    """a[..., :, p] = q r, q unitary, r upper triangular with a real diagonal whose moduli
    do not increase (up to ``tol`` times the largest)."""
    a, q, r, p = (np.asarray(x) for x in (a, q, r, p))
    assert p.dtype == np.int32 and (np.sort(p, axis=-1) == np.arange(a.shape[-1])).all()
    scale = np.abs(a).max()
    np.testing.assert_allclose(q @ r, np.take_along_axis(a, p[..., None, :], axis=-1),
                               atol=tol * scale)
    q_h = np.conj(np.swapaxes(q, -1, -2))
    np.testing.assert_allclose(q_h @ q, np.broadcast_to(np.eye(q.shape[-1]), q_h.shape[:-2]
                                                        + (q.shape[-1],) * 2), atol=tol)
    assert not np.tril(r, -1).any()
    d = np.diagonal(r, axis1=-2, axis2=-1)
    assert not np.imag(d).any()
    assert (np.abs(d)[..., 1:] <= np.abs(d)[..., :-1] + tol * scale).all()


@pytest.mark.parametrize("shape, dtype, full_matrices, jit", [
    ((5, 3), C128, True, False), ((3, 5), C128, False, True), ((4, 4), F64, True, False),
    ((2, 5, 4), C128, True, True), ((5, 4), C64, False, True), ((3, 5), F32, True, False),
])
def test_lax_pivoted_qr_is_lapacks(shape, dtype, full_matrices, jit, request):
    if dtype in (F64, C128):
        request.getfixturevalue("x64")
    tol = 1e-12 if dtype in (F64, C128) else 2e-5
    a = rand(shape, dtype, seed=len(shape) + shape[-1])

    def f(m, x):
        return m.qr(x, pivoting=True, full_matrices=full_matrices)

    ours = lambda x: f(nl_lax_linalg, x)
    if len(shape) == 3:
        ours = numlir.vmap(ours)
    got = (numlir.jit(ours) if jit else ours)(a)
    want = jax.vmap(lambda x: f(jax.lax.linalg, x))(a) if len(shape) == 3 else f(jax.lax.linalg, a)
    assert_same(got, want, tol)
    check_factorization(a, *got, tol)


def test_pivoted_qr_of_rank_deficient_and_graded_matrices(x64):
    # complex of rank 2; its real part of rank 4 (two real rank-2 terms, and column 3 a
    # multiple of column 1); columns scaled from 1 to 1e-12, shuffled
    low_rank = rand((6, 2), seed=1) @ rand((2, 5), seed=2)
    low_rank[:, 3] = 2 * low_rank[:, 1]
    graded = (rand((6, 5), seed=3) * 10.0 ** -np.arange(0, 15, 3))[:, [2, 0, 4, 1, 3]]
    for a, rank in ((low_rank, 2), (low_rank.real.copy(), 4), (graded, 5)):
        q, r, p = nl_lax_linalg.qr(a, pivoting=True)
        check_factorization(a, q, r, p, 1e-13)
        _, jr, jp = jax.lax.linalg.qr(a, pivoting=True)
        p, jp = np.asarray(p), np.asarray(jp)
        np.testing.assert_array_equal(p[:rank], jp[:rank])
        # Past the rank the pivots choose among columns whose remaining norms are
        # rounding noise, so their order differs with the CPU's rounding (AVX-512
        # machines swap two of them): compare those columns of r by the column of
        # `a` each one is.
        columns = np.concatenate([np.arange(rank), rank + np.argsort(p[rank:])])
        jax_columns = np.concatenate([np.arange(rank), rank + np.argsort(jp[rank:])])
        np.testing.assert_allclose(np.asarray(r)[:rank][:, columns],
                                   np.asarray(jr)[:rank][:, jax_columns], rtol=1e-12,
                                   atol=1e-12 * np.abs(a).max())
        # below the rank, what is left is rounding noise
        assert np.abs(np.diagonal(np.asarray(r)))[rank:].max(initial=0) < 1e-13 * np.abs(a).max()


def test_pivoted_qr_derivatives_of_a_batch_are_jaxs(x64):
    # jax's rule fails on a batch (it indexes dx by the batched p): compare with its vmap
    a, t = rand((2, 5, 3), seed=6), rand((2, 5, 3), seed=7)
    got = numlir.jit(lambda x, dx: numlir.jvp(
        lambda y: nl_lax_linalg.qr(y, pivoting=True), (x,), (dx,))[1])(a, t)
    want = jax.jit(jax.vmap(lambda x, dx: jax.jvp(
        lambda y: jax.lax.linalg.qr(y, pivoting=True), (x,), (dx,))[1]))(a, t)
    assert not np.asarray(got[2]).any()
    assert_same(got[:2], want[:2], 1e-10)


def test_pivoted_qr_derivative_of_a_wide_matrix(x64):
    a, t = rand((3, 5), F64, seed=4), rand((3, 5), F64, seed=5)
    (_, _, p), got = numlir.jit(lambda x, dx: numlir.jvp(
        lambda y: nl_lax_linalg.qr(y, pivoting=True), (x,), (dx,)))(a, t)
    # jax's wide rule forms R's right block from the unpermuted columns of a, which
    # disagrees with finite differences; the QR derivative of a[:, p] is the right one
    p = np.asarray(p)
    _, want = jax.jit(lambda x, dx: jax.jvp(jax.lax.linalg.qr, (x,), (dx,)))(a[:, p], t[:, p])
    assert_same(got[:2], want, 1e-10)


def test_pivoted_qr_gradient_is_jaxs(x64):
    def loss(lib, x):
        q, r, _ = lib.qr(x, pivoting=True)
        return (r * r).sum() + q[:, 0].sum()

    a = rand((3, 3), F64, seed=12)
    grad = numlir.jit(numlir.grad(lambda x: loss(nl_lax_linalg, x)))(a)
    assert_same(grad, jax.jit(jax.grad(lambda x: loss(jax.lax.linalg, x)))(a), 1e-10)


@pytest.mark.parametrize("mode", ["full", "economic", "r"])
def test_scipy_pivoted_qr_of_complex_matrices(mode, x64):
    a = rand((6, 4), seed=8)
    got = nsl.qr(a, mode=mode, pivoting=True)
    assert_same(got, jsl.qr(a, mode=mode, pivoting=True), 1e-12)
    for g, w in zip(got, sl.qr(a, mode=mode, pivoting=True)):  # zgeqp3 called directly
        np.testing.assert_allclose(np.asarray(g), w, atol=1e-12)


def test_scipy_pivoted_qr_multiply_of_complex_matrices(x64):
    a = rand((5, 4), seed=9)
    for c, mode in ((rand((4, 2), seed=10), "left"), (rand((2, 5), seed=11), "right")):
        assert_same(nsl.qr_multiply(a, c, mode=mode, pivoting=True),
                    jsl.qr_multiply(a, c, mode=mode, pivoting=True), 1e-12)


def test_pivoted_qr_of_empty_matrices_and_bad_input(x64):
    for shape in ((0, 3), (3, 0)):
        a = np.ones(shape, C128)
        assert_same(nl_lax_linalg.qr(a, pivoting=True), jax.lax.linalg.qr(a, pivoting=True))
    with pytest.raises(ValueError, match=r"qr: input must have dimension >= 2, got shape \(3,\)"):
        nl_lax_linalg.qr(np.ones(3, C128), pivoting=True)
    with pytest.raises(ValueError, match="mode"):
        nsl.qr(np.ones((2, 2), C128), mode="raw", pivoting=True)


@pytest.mark.parametrize("magnitude", [1e200, 1e-200])
def test_pivoted_qr_of_huge_and_tiny_matrices_is_that_of_the_scaled_matrix(x64, magnitude):
    # the pivoting norms are sums of squares: they overflowed (1e200) or vanished (1e-200)
    a = rand((6, 5), seed=21)
    q, r, p = nl_lax_linalg.qr(a * magnitude, pivoting=True)
    q1, r1, p1 = nl_lax_linalg.qr(a, pivoting=True)
    np.testing.assert_array_equal(np.asarray(p), np.asarray(p1))
    np.testing.assert_allclose(np.asarray(q), np.asarray(q1), atol=1e-13)
    np.testing.assert_allclose(np.asarray(r) / magnitude, np.asarray(r1), atol=1e-13)
    check_factorization(a * magnitude, q, r, p, 1e-13)
