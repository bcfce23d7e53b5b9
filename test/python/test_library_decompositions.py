"""QR, eigh, SVD, eig and Schur through LAPACK (lapack.geqrf/orgqr, syevd, gesdd, geev,
gees library calls on the CPU) against numpy, scipy and jax, and against numlir's own
composites (cpu_library_calls off): values, reconstructions, orthogonality, zero-size,
singular and NaN inputs, derivatives and vmap.

Errors are measured relative to the input's largest entry; float64 and complex128 run
with x64 on.
"""

import contextlib

import jax
import jax.numpy as jnp_ref
import jax.scipy.linalg as jsl
import numpy as np
import pytest
from ad_testing import check_grads
from jax_comparison import random_array

import numlir
import numlir.lax.linalg as nl_lax_linalg
import numlir.numpy as jnp
import numlir.scipy.linalg as nsl
from numlir._src.backends import cpu_libraries

ROUTINES = ("lapack.geqrf", "lapack.orgqr", "lapack.syevd", "lapack.gesdd", "lapack.geev",
            "lapack.gees")
pytestmark = pytest.mark.skipif(
    not set(ROUTINES) <= cpu_libraries.available_routines(),
    reason="no LAPACK here: " + str(cpu_libraries.unavailable_reason("lapack.geqrf")))

F32, F64, C64, C128 = np.float32, np.float64, np.complex64, np.complex128
TOL = {F32: 3e-5, F64: 1e-12, C64: 3e-5, C128: 1e-12}
BATCHES = [(), (3,), (2, 3)]


@pytest.fixture(params=[F32, F64, C64, C128], ids=["f32", "f64", "c64", "c128"])
def dtype(request):
    if request.param in (F64, C128):
        request.getfixturevalue("x64")
    return request.param


@contextlib.contextmanager
def library_calls(on: bool):
    previous = numlir.config.flags.cpu_library_calls
    numlir.config.update("cpu_library_calls", on)
    try:
        yield
    finally:
        numlir.config.update("cpu_library_calls", previous)


@pytest.fixture(autouse=True)
def _library_path():
    """The library path whatever NUMLIR_CPU_LIBRARY_CALLS says: these tests are about it."""
    with library_calls(True):
        yield


rand = random_array


def hermitian(n, dtype, batch=(), seed=0):
    a = rand(batch + (n, n), dtype, seed)
    return ((a + adjoint(a)) / 2).astype(dtype)


def adjoint(x):
    return np.conj(np.swapaxes(x, -1, -2))


def run(f, *args):
    """f compiled fresh (no cache shared between the two paths), as numpy arrays."""
    out = numlir.jit(lambda *a: f(*a))(*args)
    return jax.tree_util.tree_map(np.asarray, out)


def assert_small(error, a, dtype, factor=1.0):
    scale = max(1.0, float(np.max(np.abs(a), initial=0.0)))
    assert float(np.max(np.abs(error), initial=0.0)) <= factor * TOL[dtype] * scale * 10


def assert_unitary(q, dtype, *, columns=True):
    g = adjoint(q) @ q if columns else q @ adjoint(q)
    assert_small(g - np.eye(g.shape[-1]), np.ones(1), dtype)


# --- The calls are there, and only with library calls on ----------------------------------------

LOWERED = {
    "qr": (lambda x: jnp.linalg.qr(x), ("lapack.geqrf", "lapack.orgqr"), (5, 3)),
    "qr_complete": (lambda x: jnp.linalg.qr(x, mode="complete"), ("lapack.geqrf",), (5, 3)),
    "eigh": (lambda x: jnp.linalg.eigh(x), ("lapack.syevd",), (4, 4)),
    "svd": (lambda x: jnp.linalg.svd(x), ("lapack.gesdd",), (5, 3)),
    "svdvals": (lambda x: jnp.linalg.svd(x, compute_uv=False), ("lapack.gesdd",), (3, 5)),
    "eig": (lambda x: jnp.linalg.eig(x), ("lapack.geev",), (4, 4)),
    "eigvals": (lambda x: jnp.linalg.eigvals(x), ("lapack.geev",), (4, 4)),
    "schur": (lambda x: nsl.schur(x), ("lapack.gees",), (4, 4)),
    "schur_complex": (lambda x: nsl.schur(x.astype(np.complex64)), ("lapack.gees",), (4, 4)),
}


@pytest.mark.parametrize("name", sorted(LOWERED))
def test_lowering_calls_lapack_only_when_library_calls_are_on(name):
    f, routines, shape = LOWERED[name]
    x = rand(shape, F32)
    text = numlir.jit(lambda x: f(x)).lower(x).as_text()
    for routine in routines:
        assert f'hlo.custom_call "{routine}"' in text
    with library_calls(False):
        assert "hlo.custom_call" not in numlir.jit(lambda x: f(x)).lower(x).as_text()


def test_vmap_keeps_the_library_call():
    x = rand((3, 4, 4), F32)
    text = numlir.jit(numlir.vmap(lambda m: jnp.linalg.eigh(m)[0])).lower(x).as_text()
    assert 'hlo.custom_call "lapack.syevd"' in text


# --- QR -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("batch", BATCHES, ids=str)
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4)], ids=str)
@pytest.mark.parametrize("mode", ["reduced", "complete"])
def test_qr_matches_numpy(dtype, batch, shape, mode):
    a = rand(batch + shape, dtype)
    q, r = run(lambda x: jnp.linalg.qr(x, mode=mode), a)
    q_np, r_np = np.linalg.qr(a, mode=mode)
    assert q.dtype == dtype and r.dtype == dtype
    assert q.shape == q_np.shape and r.shape == r_np.shape
    # LAPACK's signs (numpy's): unique, so the factors match, not only their product
    assert_small(q - q_np, a, dtype)
    assert_small(r - r_np, a, dtype)
    assert_small(q @ r - a, a, dtype)
    assert_unitary(q, dtype)
    assert np.all(np.tril(r, -1) == 0)
    with library_calls(False):
        q_c, r_c = run(lambda x: jnp.linalg.qr(x, mode=mode), a)
    assert_small(q_c - q, a, dtype, 10)
    assert_small(r_c - r, a, dtype, 10)


@pytest.mark.parametrize("shape", [(0, 3), (3, 0), (0, 0)], ids=str)
@pytest.mark.parametrize("mode", ["reduced", "complete"])
def test_qr_of_empty_matrices(shape, mode):
    a = np.zeros(shape, F32)
    q, r = run(lambda x: jnp.linalg.qr(x, mode=mode), a)
    q_ref, r_ref = jnp_ref.linalg.qr(a, mode=mode)
    np.testing.assert_array_equal(q, q_ref)
    np.testing.assert_array_equal(r, r_ref)


def test_qr_of_singular_and_ill_conditioned_matrices(x64):
    u, _ = np.linalg.qr(rand((6, 6), F64, 1))
    v, _ = np.linalg.qr(rand((6, 4), F64, 2))
    for s in ([1, 1e-8, 1e-15, 1e-20], [3, 2, 0, 0]):
        a = u[:, :4] * np.array(s) @ v.T
        q, r = run(jnp.linalg.qr, a)
        assert_small(q @ r - a, a, F64)
        assert_unitary(q, F64)
        np.testing.assert_allclose(np.abs(np.diag(r)), np.abs(np.diag(np.linalg.qr(a)[1])),
                                   atol=1e-13)


def test_qr_propagates_nan():
    a = rand((4, 3), F32)
    a[1, 1] = np.nan
    q, r = run(jnp.linalg.qr, a)
    q_ref, r_ref = jnp_ref.linalg.qr(a)
    # geqrf does not check its input: NaN spreads from the column it sits in on, as in jax
    np.testing.assert_array_equal(np.isnan(r), np.isnan(np.asarray(r_ref)))
    assert np.isnan(q).any()
    assert not np.isnan(r[0, 0])


# --- eigh ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("batch", BATCHES, ids=str)
@pytest.mark.parametrize("n", [1, 2, 6])
def test_eigh_matches_numpy(dtype, batch, n):
    a = hermitian(n, dtype, batch)
    w, v = run(jnp.linalg.eigh, a)
    real = np.finfo(dtype).dtype
    assert w.dtype == real and v.dtype == dtype
    assert_small(w - np.linalg.eigvalsh(a), a, dtype)
    assert np.all(np.diff(w, axis=-1) >= 0)
    assert_small((v * w[..., None, :]) @ adjoint(v) - a, a, dtype)
    assert_unitary(v, dtype)
    with library_calls(False):
        w_c, v_c = run(jnp.linalg.eigh, a)
    assert_small(w_c - w, a, dtype, 10)
    assert_small((v_c * w_c[..., None, :]) @ adjoint(v_c) - a, a, dtype, 10)


@pytest.mark.parametrize("uplo", ["L", "U"])
def test_eigh_reads_one_triangle(uplo):
    a = hermitian(5, C64)
    garbage = np.triu(rand((5, 5), C64, 7), 1)
    given = a + (garbage if uplo == "L" else adjoint(garbage))
    w, v = run(lambda x: jnp.linalg.eigh(x, UPLO=uplo, symmetrize_input=False), given)
    assert_small(w - np.linalg.eigvalsh(a), a, C64)
    assert_small((v * w[..., None, :]) @ adjoint(v) - a, a, C64)


def test_eigh_of_singular_and_clustered_matrices(x64):
    x = rand((6, 1), F64)
    rank_one = x @ x.T
    w, v = run(jnp.linalg.eigh, rank_one)
    assert_small(w[:-1], rank_one, F64)
    assert_small(v @ np.diag(w) @ v.T - rank_one, rank_one, F64)
    clustered = np.diag([1.0, 1.0 + 1e-14, 1.0 + 2e-14, 2.0])
    w, v = run(jnp.linalg.eigh, clustered)
    assert_unitary(v, F64)
    assert_small(w - np.diag(clustered), clustered, F64)


# --- SVD ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("batch", BATCHES, ids=str)
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4)], ids=str)
@pytest.mark.parametrize("full_matrices", [True, False])
def test_svd_matches_numpy(dtype, batch, shape, full_matrices):
    a = rand(batch + shape, dtype)
    u, s, vh = run(lambda x: jnp.linalg.svd(x, full_matrices=full_matrices), a)
    u_np, s_np, vh_np = np.linalg.svd(a, full_matrices=full_matrices)
    assert (u.shape, s.shape, vh.shape) == (u_np.shape, s_np.shape, vh_np.shape)
    assert s.dtype == np.finfo(dtype).dtype and u.dtype == dtype and vh.dtype == dtype
    assert_small(s - s_np, a, dtype)
    k = min(shape)
    assert_small((u[..., :, :k] * s[..., None, :].astype(dtype)) @ vh[..., :k, :] - a, a, dtype)
    assert_unitary(u, dtype)
    assert_unitary(vh, dtype, columns=False)
    s_only = run(lambda x: jnp.linalg.svd(x, compute_uv=False), a)
    assert_small(s_only - s_np, a, dtype)
    with library_calls(False):
        s_c = run(lambda x: jnp.linalg.svd(x, compute_uv=False), a)
    assert_small(s_c - s, a, dtype, 10)


@pytest.mark.parametrize("shape", [(0, 3), (3, 0), (2, 0, 0)], ids=str)
@pytest.mark.parametrize("full_matrices", [True, False])
def test_svd_of_empty_matrices_matches_jax(shape, full_matrices):
    a = np.zeros(shape, F32)
    got = run(lambda x: jnp.linalg.svd(x, full_matrices=full_matrices), a)
    want = jnp_ref.linalg.svd(a, full_matrices=full_matrices)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, np.asarray(w))


def test_svd_of_rank_deficient_and_ill_conditioned_matrices(x64):
    u, _ = np.linalg.qr(rand((7, 7), F64, 1))
    v, _ = np.linalg.qr(rand((5, 5), F64, 2))
    for s in ([1, 1e-6, 1e-12, 1e-15, 0], [4, 3, 0, 0, 0]):
        a = (u[:, :5] * np.array(s)) @ v.T
        got_u, got_s, got_vh = run(lambda x: jnp.linalg.svd(x, full_matrices=False), a)
        np.testing.assert_allclose(got_s, s, atol=1e-14)
        assert_small((got_u * got_s) @ got_vh - a, a, F64)
        assert_unitary(got_u, F64)


# --- eig ----------------------------------------------------------------------------------------

def _matched_to(w, v, w_ref, v_ref):
    """(w, v) reordered to w_ref's order (nearest eigenvalue)."""
    order = [int(np.argmin(np.abs(w - x))) for x in w_ref]
    return w[order], v[:, order]


@pytest.mark.parametrize("batch", BATCHES, ids=str)
@pytest.mark.parametrize("n", [1, 2, 6])
def test_eig_matches_numpy(dtype, batch, n):
    a = rand(batch + (n, n), dtype, seed=n)
    w, v = run(jnp.linalg.eig, a)
    complex_type = np.result_type(dtype, np.complex64)
    assert w.dtype == complex_type and v.dtype == complex_type
    assert_small(a @ v - v * w[..., None, :], a, dtype, 10)
    np.testing.assert_allclose(np.linalg.norm(v, axis=-2), 1, atol=TOL[dtype] * 10)
    # geev's normalization: the largest component of each vector is real
    flat_v = v.reshape((-1, n, n))
    for vi in flat_v:
        largest = vi[np.argmax(np.abs(vi), axis=0), np.arange(n)]
        assert_small(largest.imag, np.ones(1), dtype)
    w_np, v_np = np.linalg.eig(a)
    flat = lambda x: x.reshape((-1,) + x.shape[len(batch):])  # noqa: E731
    for wi, vi, wr, vr in zip(flat(w), flat(v), flat(w_np), flat(v_np)):
        wi, vi = _matched_to(wi, vi, wr, vr)
        assert_small(wi - wr, a, dtype, 10)
        # the same eigenvectors, up to a phase (numpy runs single precision in double)
        overlaps = np.abs(np.sum(np.conj(vi) * vr, axis=0))
        assert_small(overlaps - 1, np.ones(1), dtype, 100)
        if dtype in (F64, C128):  # numpy's own geev, which normalizes alike: equal
            assert_small(vi - vr, np.ones(1), dtype, 100)
    w_only = run(jnp.linalg.eigvals, a)
    assert_small(w_only - w, a, dtype)
    with library_calls(False):
        w_c, v_c = run(jnp.linalg.eig, a)
    assert_small(a @ v_c - v_c * w_c[..., None, :], a, dtype, 100)


def test_eig_of_real_matrix_pairs_conjugate_vectors(x64):
    a = np.array([[0.0, -2.0, 1.0], [2.0, 0.0, 0.5], [0.0, 0.0, 3.0]])
    w, v = run(jnp.linalg.eig, a)
    w_ref, v_ref = (np.asarray(x) for x in jnp_ref.linalg.eig(a))
    np.testing.assert_allclose(w, w_ref, atol=1e-14)
    np.testing.assert_allclose(v, v_ref, atol=1e-14)
    assert w[0].imag > 0 and w[1] == np.conj(w[0])
    np.testing.assert_array_equal(v[:, 1], np.conj(v[:, 0]))


def test_eig_of_defective_and_singular_matrices(x64):
    jordan = np.array([[2.0, 1.0, 0.0], [0.0, 2.0, 1.0], [0.0, 0.0, 2.0]])
    w, v = run(jnp.linalg.eig, jordan)
    np.testing.assert_allclose(w, 2, atol=1e-4)  # a triple eigenvalue: to eps^(1/3)
    assert np.all(np.isfinite(v))
    singular = np.outer(np.arange(1.0, 5.0), np.arange(2.0, 6.0))
    w, v = run(jnp.linalg.eig, singular)
    assert_small(singular @ v - v * w, singular, F64, 10)
    assert np.sum(np.abs(w) < 1e-12) == 3


def test_eig_of_empty_matrices():
    w, v = run(jnp.linalg.eig, np.zeros((2, 0, 0), F32))
    assert w.shape == (2, 0) and v.shape == (2, 0, 0) and w.dtype == np.complex64


# --- Schur --------------------------------------------------------------------------------------

@pytest.mark.parametrize("batch", BATCHES, ids=str)
@pytest.mark.parametrize("n", [1, 2, 6])
@pytest.mark.parametrize("output", ["real", "complex"])
def test_schur_reconstructs(dtype, batch, n, output):
    a = rand(batch + (n, n), dtype, seed=n)
    t, z = run(lambda x: nsl.schur(x, output=output), a)
    real = output == "real" and np.dtype(dtype).kind == "f"
    assert t.dtype == (dtype if real else np.result_type(dtype, np.complex64))
    assert_small(z @ t @ adjoint(z) - a, a, dtype, 10)
    assert_unitary(z, dtype)
    assert np.all(np.tril(t, -2 if real else -1) == 0)
    if real:  # 2 x 2 blocks for complex pairs only, in LAPACK's standard form
        sub = np.diagonal(t, -1, -2, -1)
        assert np.all((sub[..., 1:] == 0) | (sub[..., :-1] == 0))
    eigenvalues = np.sort_complex(np.linalg.eigvals(t).reshape(-1))
    want = np.sort_complex(np.linalg.eigvals(a).reshape(-1))
    assert_small(eigenvalues - want, a, dtype, 100)


def test_schur_matches_scipy_for_a_real_matrix(x64):
    import scipy.linalg

    a = rand((5, 5), F64, 3)
    t, z = run(nsl.schur, a)
    t_ref, z_ref = scipy.linalg.schur(a)
    # same algorithm, no sorting: the same form up to the signs of z's columns
    signs = np.sign(np.sum(z * z_ref, axis=0))
    np.testing.assert_allclose(z * signs, z_ref, atol=1e-10)
    np.testing.assert_allclose(t * np.outer(signs, signs), t_ref, atol=1e-10)


# --- Non-finite input: NaN results, as jax's -----------------------------------------------------

NAN_CASES = {
    "eigh": (lambda m: jnp.linalg.eigh(m), lambda m: jnp_ref.linalg.eigh(m)),
    "svd": (lambda m: jnp.linalg.svd(m), lambda m: jnp_ref.linalg.svd(m)),
    "svdvals": (lambda m: jnp.linalg.svd(m, compute_uv=False),
                lambda m: jnp_ref.linalg.svd(m, compute_uv=False)),
    "eig": (lambda m: jnp.linalg.eig(m), lambda m: jnp_ref.linalg.eig(m)),
    "eigvals": (lambda m: jnp.linalg.eigvals(m), lambda m: jnp_ref.linalg.eigvals(m)),
    "schur": (lambda m: nsl.schur(m), lambda m: jsl.schur(m)),
}


@pytest.mark.parametrize("name", sorted(NAN_CASES))
@pytest.mark.parametrize("dtype_", [F32, C64], ids=["f32", "c64"])
def test_nan_input_gives_nan_as_jax(name, dtype_):
    f, f_ref = NAN_CASES[name]
    a = hermitian(3, dtype_, (2,))
    a[1, 1, 2] = a[1, 2, 1] = np.nan
    got = jax.tree_util.tree_leaves(run(f, a))
    want = [np.asarray(x) for x in jax.tree_util.tree_leaves(f_ref(a))]
    for g, w in zip(got, want):
        assert g.dtype == w.dtype
        np.testing.assert_array_equal(np.isnan(g), np.isnan(w))
        if np.iscomplexobj(w):  # NaN + NaN i, jax's
            np.testing.assert_array_equal(np.isnan(g.imag), np.isnan(w.imag))
        assert np.all(np.isnan(g[1])) and np.all(np.isfinite(g[0]))


# --- Derivatives: the library path differentiates as the composite ------------------------------

def _both_paths(f, *args):
    """f's gradient through LAPACK and through the composite."""
    library = numlir.grad(f)(*args)
    with library_calls(False):
        composite = numlir.grad(lambda *a: f(*a))(*args)
    return np.asarray(library), np.asarray(composite)


def _weights(shape, seed=5):
    return rand(shape, F64, seed)


GRADIENTS = {
    "qr_tall": ((5, 3), lambda m: jnp.sum(_weights((5, 3)) * jnp.linalg.qr(m)[0])
                + jnp.sum(_weights((3, 3), 6) * jnp.linalg.qr(m)[1])),
    "qr_wide": ((3, 5), lambda m: jnp.sum(_weights((3, 3)) * jnp.linalg.qr(m)[0])
                + jnp.sum(_weights((3, 5), 6) * jnp.linalg.qr(m)[1])),
    "qr_r": ((5, 3), lambda m: jnp.sum(_weights((3, 3)) * jnp.linalg.qr(m, mode="r"))),
    "eigh": ((4, 4), lambda m: jnp.sum(_weights((4,)) * jnp.linalg.eigh(m + m.T)[0])
             + jnp.sum(_weights((4, 4), 6) * jnp.linalg.eigh(m + m.T)[1] ** 2)),
    "svd": ((5, 3), lambda m: jnp.sum(_weights((3,)) * jnp.linalg.svd(m)[1])
            + jnp.sum(_weights((5, 3), 6) * jnp.linalg.svd(m, full_matrices=False)[0] ** 2)),
    "svd_wide": ((3, 5), lambda m: jnp.sum(_weights((3, 5)) * jnp.linalg.svd(
        m, full_matrices=False)[2] ** 2)),
    "svdvals": ((4, 6), lambda m: jnp.sum(_weights((4,)) * jnp.linalg.svd(m, compute_uv=False))),
    "eigvals": ((4, 4), lambda m: jnp.sum(jnp.real(jnp.linalg.eigvals(m)) * _weights((4,)))),
}


@pytest.mark.parametrize("name", sorted(GRADIENTS))
def test_gradients_match_composite_and_finite_differences(x64, name):
    shape, f = GRADIENTS[name]
    a = rand(shape, F64, 11)
    library, composite = _both_paths(f, a)
    np.testing.assert_allclose(library, composite, rtol=1e-8, atol=1e-8)
    check_grads(f, (a,), order=1)


def test_gradients_match_jax(x64):
    a = rand((5, 3), F64, 2)

    def loss(lib, m):
        q, r = lib.linalg.qr(m)
        u, s, vh = lib.linalg.svd(m, full_matrices=False)
        w, v = lib.linalg.eigh(m.T @ m)
        return (lib.sum(q * _weights((5, 3))) + lib.sum(r * _weights((3, 3), 6))
                + lib.sum(s * _weights((3,), 7)) + lib.sum((u * _weights((5, 3), 8)) ** 2)
                + lib.sum(w * _weights((3,), 9)) + lib.sum((v * _weights((3, 3), 10)) ** 2))

    got = numlir.grad(lambda m: loss(jnp, m))(a)
    want = jax.grad(lambda m: loss(jnp_ref, m))(a)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-8, atol=1e-8)


def test_complete_qr_and_full_svd_tangents_keep_the_factors_unitary(x64):
    a, da = rand((5, 3), F64, 1), rand((5, 3), F64, 2)
    (q, _), (dq, _) = numlir.jvp(lambda m: jnp.linalg.qr(m, mode="complete"), (a,), (da,))
    q, dq = np.asarray(q), np.asarray(dq)
    np.testing.assert_allclose(dq.T @ q + q.T @ dq, 0, atol=1e-12)
    (u, _, vh), (du, _, dvh) = numlir.jvp(lambda m: jnp.linalg.svd(m.T), (a,), (da,))
    u, du, vh, dvh = (np.asarray(x) for x in (u, du, vh, dvh))
    np.testing.assert_allclose(du.T @ u + u.T @ du, 0, atol=1e-12)
    np.testing.assert_allclose(dvh @ vh.T + vh @ dvh.T, 0, atol=1e-12)


def test_eigenvector_derivatives_through_geev(x64):
    a = rand((4, 4), F64, 4)
    f = lambda m: jnp.sum(jnp.abs(nl_lax_linalg.eig(  # noqa: E731
        m, compute_left_eigenvectors=False, enable_eigvec_derivs=True)[1]) ** 2 * _weights((4, 4)))
    library, composite = _both_paths(f, a)
    np.testing.assert_allclose(library, composite, rtol=1e-7, atol=1e-7)


# --- vmap --------------------------------------------------------------------------------------

VMAPPED = {
    "qr": lambda m: jnp.linalg.qr(m),
    "eigh": lambda m: jnp.linalg.eigh(m + m.T),
    "svd": lambda m: jnp.linalg.svd(m, full_matrices=False),
    "eig": lambda m: jnp.linalg.eig(m),
    "schur": lambda m: nsl.schur(m),
    "complex_schur": lambda m: nsl.schur(m, output="complex"),
}


@pytest.mark.parametrize("name", sorted(VMAPPED))
def test_vmap_matches_a_loop(name):
    f = VMAPPED[name]
    x = rand((4, 3, 3), F32, 8)
    batched = jax.tree_util.tree_leaves(run(numlir.vmap(f, in_axes=1), x.swapaxes(0, 1)))
    looped = [jax.tree_util.tree_leaves(run(f, m)) for m in x]
    for i, leaf in enumerate(batched):
        np.testing.assert_allclose(leaf, np.stack([l[i] for l in looped]), atol=1e-5)


# --- A batch spread over threads: each matrix as it is alone --------------------------------------

THREADED = {
    "qr": lambda m: jnp.linalg.qr(m),
    "eigh": lambda m: jnp.linalg.eigh(m),
    "svd": lambda m: jnp.linalg.svd(m, full_matrices=False),
    "svd_full": lambda m: jnp.linalg.svd(m),
    "eig": lambda m: jnp.linalg.eig(m),
    "schur": lambda m: nsl.schur(m),
}


@pytest.mark.parametrize("name", sorted(THREADED))
@pytest.mark.parametrize("dtype_", [F32, C64], ids=["f32", "c64"])
def test_a_threaded_batch_gives_each_matrix_its_own_result(monkeypatch, name, dtype_):
    # 64 matrices of 32 x 32 hold enough work to start threads; NUMLIR_NUM_THREADS makes
    # several on a one-core machine too. Each thread has its own workspace: a matrix's
    # result may not depend on its neighbours, and a NaN matrix spoils only itself (QR
    # propagates NaN as arithmetic does, the others give NaN everywhere, as jax).
    monkeypatch.setenv("NUMLIR_NUM_THREADS", "4")
    f = THREADED[name]
    a = hermitian(32, dtype_, (64,), seed=3) if name == "eigh" else rand((64, 32, 32), dtype_, 3)
    a[5, 0, 0] = np.nan
    batched = jax.tree_util.tree_leaves(run(f, a))
    for i in (0, 5, 6, 33, 63):
        alone = jax.tree_util.tree_leaves(run(f, a[i]))
        for leaf, want in zip(batched, alone):
            np.testing.assert_allclose(leaf[i], want, rtol=1e-6, atol=1e-6)
    if name != "qr":
        assert all(np.all(np.isnan(leaf[5])) for leaf in batched)
    assert all(np.all(np.isfinite(np.delete(leaf, 5, axis=0))) for leaf in batched)
