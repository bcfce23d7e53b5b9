"""Library calls on the CPU (docs/runtime.md "Library calls"): Cholesky, LU and triangular
solves through LAPACK, and lax.fft through the runtime's FFT library.

Each routed primitive is checked on its library path (the CPU default) against jax and
NumPy, and against its portable numlir program (``cpu_library_calls`` off), over dtypes,
batch shapes and the edges: matrices that are not positive definite, singular ones, ties
between pivots, NaN and infinities. Derivatives go through the primitives' own rules, so
they are compared between the paths and against numerical differences in float64.
"""

import contextlib
import os
import subprocess
import sys
import textwrap

import jax
import jax.lax.linalg as jax_linalg
import jax.numpy as jnp_ref
import numpy as np
import pytest

import numlir
import numlir.lax.linalg as nl_linalg
import numlir.numpy as jnp
from numlir._src import config
from numlir._src.backends import cpu_libraries

REAL = [np.float32, np.float64]
COMPLEX = [np.complex64, np.complex128]
TOL = {np.float32: 2e-5, np.float64: 1e-12, np.complex64: 2e-5, np.complex128: 1e-12}

pytestmark = pytest.mark.skipif(
    cpu_libraries.unavailable_reason("lapack.potrf") is not None,
    reason=f"no LAPACK: {cpu_libraries.unavailable_reason('lapack.potrf')}")


@pytest.fixture(params=REAL + COMPLEX, ids=["f32", "f64", "c64", "c128"])
def dtype(request):
    if request.param in (np.float64, np.complex128):
        request.getfixturevalue("x64")
    return request.param


@contextlib.contextmanager
def composite_path():
    """Primitives lower to their numlir programs, as for backends without libraries."""
    previous = config.flags.cpu_library_calls
    config.update("cpu_library_calls", False)
    try:
        yield
    finally:
        config.update("cpu_library_calls", previous)


def both_paths(fn, *args):
    """(library result, composite result) of ``numlir.jit(fn)(*args)``, each compiled anew."""
    library = numlir.jit(fn)(*args)
    with composite_path():
        composite = numlir.jit(lambda *a: fn(*a))(*args)
    return library, composite


def rand(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    if np.issubdtype(dtype, np.complexfloating):
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def hermitian_positive(n, dtype, batch=(), seed=0):
    a = rand(batch + (n, n), dtype, seed)
    return (a @ np.conj(np.swapaxes(a, -1, -2)) + n * np.eye(n)).astype(dtype)


def assert_close(got, want, dtype, factor=1.0):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    scale = max(1.0, float(np.max(np.abs(want), initial=0.0)))
    np.testing.assert_allclose(got, want, rtol=0, atol=TOL[dtype] * factor * scale)


def lowered(fn, *args) -> str:
    return numlir.jit(fn).lower(*args).as_text()


# --- Which path runs --------------------------------------------------------------------------


def test_the_cpu_lowers_factorizations_and_ffts_to_library_calls():
    a = hermitian_positive(4, np.float32)
    b = rand((4, 2), np.float32)
    assert 'hlo.custom_call "lapack.potrf"' in lowered(jnp.linalg.cholesky, a)
    solve = lowered(jnp.linalg.solve, a, b)
    assert 'hlo.custom_call "lapack.getrf"' in solve
    assert 'hlo.custom_call "lapack.trsm"' in solve
    assert 'hlo.custom_call "numlir.fft"' in lowered(jnp.fft.fft, rand((8,), np.complex64))
    with composite_path():
        assert "hlo.custom_call" not in lowered(jnp.linalg.solve, a, b)
        assert "hlo.custom_call" not in lowered(jnp.fft.fft, rand((8,), np.complex64))


def test_stablehlo_and_export_carry_the_portable_program():
    a = hermitian_positive(3, np.float32)
    low = numlir.jit(jnp.linalg.cholesky).lower(a)
    assert "hlo.custom_call" in low.as_text()
    assert "custom_call" not in low.as_text(dialect="stablehlo")
    exported = numlir.export.export(numlir.jit(jnp.linalg.cholesky))(
        numlir.ShapeDtypeStruct(a.shape, a.dtype))
    assert "hlo.custom_call" not in exported.mlir_module()
    again = numlir.export.deserialize(exported.serialize())
    assert_close(again.call(a), np.linalg.cholesky(a), np.float32)


def test_a_jitted_function_compiles_again_when_the_library_flag_changes():
    f = numlir.jit(jnp.linalg.cholesky)
    a = hermitian_positive(3, np.float32)
    f(a)
    f(a)
    assert f.cache_misses == 1
    with composite_path():
        assert_close(f(a), np.linalg.cholesky(a), np.float32, factor=3)
    assert f.cache_misses == 2
    f(a)
    assert f.cache_misses == 2


def test_the_eager_path_calls_the_library_too():
    a = hermitian_positive(5, np.float32, (2,))
    assert_close(jnp.linalg.cholesky(a), np.linalg.cholesky(a), np.float32)


# --- Cholesky ---------------------------------------------------------------------------------


@pytest.mark.parametrize("batch", [(), (3,), (2, 3)])
@pytest.mark.parametrize("n", [1, 4, 17])
def test_cholesky_matches_numpy_and_the_composite(dtype, batch, n):
    a = hermitian_positive(n, dtype, batch)
    library, composite = both_paths(jnp.linalg.cholesky, a)
    assert np.asarray(library).dtype == dtype
    assert_close(library, np.linalg.cholesky(a), dtype, factor=n)
    assert_close(library, composite, dtype, factor=n)


def test_cholesky_of_a_matrix_that_is_not_positive_definite_is_nan_below_the_diagonal(dtype):
    good = hermitian_positive(3, dtype)
    a = np.stack([good, -good, np.full((3, 3), np.nan, dtype)])
    got = np.asarray(numlir.jit(jnp.linalg.cholesky)(a))
    want = np.asarray(jax.jit(jnp_ref.linalg.cholesky)(a))
    assert_close(got[0], np.linalg.cholesky(good), dtype, factor=3)
    for i in (1, 2):  # jax: NaN on and below the diagonal, 0 above, per matrix
        np.testing.assert_array_equal(np.isnan(got[i]), np.isnan(want[i]))
        np.testing.assert_array_equal(got[i][np.triu_indices(3, 1)], 0)


def test_cholesky_of_empty_matrices():
    a = np.zeros((2, 0, 0), np.float32)
    assert np.asarray(numlir.jit(jnp.linalg.cholesky)(a)).shape == (2, 0, 0)


def test_cholesky_gradient_is_the_same_on_both_paths(x64):
    a = hermitian_positive(4, np.float64)
    w = rand((4, 4), np.float64, seed=1)
    loss = lambda x: jnp.sum(jnp.linalg.cholesky(x) * w)  # noqa: E731
    library, composite = both_paths(numlir.grad(loss), a)
    assert_close(library, composite, np.float64, factor=100)
    want = jax.grad(lambda x: jnp_ref.sum(jnp_ref.linalg.cholesky(x) * w))(a)
    assert_close(library, want, np.float64, factor=100)


# --- LU ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("shape", [(4, 4), (2, 6, 4), (3, 4, 6), (1, 1), (2, 0, 3)])
def test_lu_matches_jax_pivots_and_all(dtype, shape):
    a = rand(shape, dtype, seed=2)
    got = numlir.jit(nl_linalg.lu)(a)
    want = jax.jit(jax_linalg.lu)(a)
    for g, w in zip(got, want):
        assert np.asarray(g).dtype == np.asarray(w).dtype
    np.testing.assert_array_equal(np.asarray(got[1]), np.asarray(want[1]))
    np.testing.assert_array_equal(np.asarray(got[2]), np.asarray(want[2]))
    assert_close(got[0], want[0], dtype, factor=10)
    with composite_path():
        composite = numlir.jit(lambda x: nl_linalg.lu(x))(a)
    np.testing.assert_array_equal(np.asarray(got[1]), np.asarray(composite[1]))
    assert_close(got[0], composite[0], dtype, factor=10)


def test_lu_ties_between_pivots_take_the_first_row_as_lapack():
    a = np.array([[1.0, 2.0, 3.0], [-1.0, 5.0, 1.0], [1.0, -1.0, 2.0]], np.float32)
    got = numlir.jit(nl_linalg.lu)(a)
    want = jax.jit(jax_linalg.lu)(a)
    np.testing.assert_array_equal(np.asarray(got[1]), np.asarray(want[1]))
    np.testing.assert_array_equal(np.asarray(got[2]), np.asarray(want[2]))


def test_lu_of_singular_matrices_is_jax_s(dtype):
    a = np.stack([np.zeros((3, 3)), np.ones((3, 3)), np.diag([1.0, 0.0, 2.0])]).astype(dtype)
    got = numlir.jit(nl_linalg.lu)(a)
    want = jax.jit(jax_linalg.lu)(a)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))


def test_lu_jvp_matches_the_composite_and_jax(x64):
    for shape in [(4, 4), (5, 3), (3, 5)]:
        a, da = rand(shape, np.float64, 3), rand(shape, np.float64, 4)
        fn = lambda x, t: numlir.jvp(lambda y: nl_linalg.lu(y)[0], (x,), (t,))  # noqa: E731
        library, composite = both_paths(fn, a, da)
        want = jax.jvp(lambda y: jax_linalg.lu(y)[0], (a,), (da,))
        assert_close(library[1], want[1], np.float64, factor=100)
        assert_close(library[1], composite[1], np.float64, factor=100)


# --- Triangular solves --------------------------------------------------------------------------


@pytest.mark.parametrize("left_side", [True, False])
@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("transpose_a,conjugate_a", [(False, False), (True, False),
                                                     (True, True), (False, True)])
@pytest.mark.parametrize("unit_diagonal", [False, True])
def test_triangular_solve_matches_jax(dtype, left_side, lower, transpose_a, conjugate_a,
                                      unit_diagonal):
    a = (rand((2, 5, 5), dtype, 5) + 4 * np.eye(5)).astype(dtype)
    b = rand((2, 5, 3) if left_side else (2, 3, 5), dtype, 6)
    params = dict(left_side=left_side, lower=lower, transpose_a=transpose_a,
                  conjugate_a=conjugate_a, unit_diagonal=unit_diagonal)
    got = numlir.jit(lambda a, b: nl_linalg.triangular_solve(a, b, **params))(a, b)
    want = jax.jit(lambda a, b: jax_linalg.triangular_solve(a, b, **params))(a, b)
    assert np.asarray(got).dtype == dtype
    assert_close(got, want, dtype, factor=10)


def test_triangular_solve_gradients_match_jax(x64):
    a = (rand((4, 4), np.float64, 7) + 4 * np.eye(4)).astype(np.float64)
    b = rand((4, 2), np.float64, 8)

    def loss(solve):
        return lambda a, b: (solve(a, b, left_side=True, lower=True, transpose_a=True) ** 2).sum()

    got = numlir.grad(loss(nl_linalg.triangular_solve), argnums=(0, 1))(a, b)
    want = jax.grad(loss(jax_linalg.triangular_solve), argnums=(0, 1))(a, b)
    for g, w in zip(got, want):
        assert_close(g, w, np.float64, factor=10)


def test_triangular_solve_of_a_singular_matrix_is_not_finite():
    a = np.tril(np.ones((3, 3), np.float32))
    a[1, 1] = 0
    x = np.asarray(numlir.jit(lambda a, b: nl_linalg.triangular_solve(
        a, b, left_side=True, lower=True))(a, np.ones((3, 1), np.float32)))
    assert not np.isfinite(x[1:]).any()


def test_triangular_solve_rejects_mismatched_shapes():
    with pytest.raises(TypeError, match="solves 3 unknowns"):
        nl_linalg.triangular_solve(np.eye(3, dtype=np.float32), np.ones((4, 2), np.float32),
                                   left_side=True)


# --- Solvers built on them ----------------------------------------------------------------------


@pytest.mark.parametrize("fn", ["solve", "inv", "det", "slogdet"])
def test_solvers_and_their_gradients_match_jax(x64, fn):
    a = (rand((3, 4, 4), np.float64, 9) + 3 * np.eye(4)).astype(np.float64)
    b = rand((3, 4, 2), np.float64, 10)
    ours = {"solve": lambda x: jnp.linalg.solve(x, b), "inv": jnp.linalg.inv,
            "det": jnp.linalg.det, "slogdet": lambda x: jnp.linalg.slogdet(x)[1]}[fn]
    theirs = {"solve": lambda x: jnp_ref.linalg.solve(x, b), "inv": jnp_ref.linalg.inv,
              "det": jnp_ref.linalg.det, "slogdet": lambda x: jnp_ref.linalg.slogdet(x)[1]}[fn]
    assert_close(numlir.jit(ours)(a), jax.jit(theirs)(a), np.float64, factor=10)
    got = numlir.grad(lambda x: jnp.sum(ours(x) ** 2))(a)
    want = jax.grad(lambda x: jnp_ref.sum(theirs(x) ** 2))(a)
    assert_close(got, want, np.float64, factor=100)


def test_det_gradient_of_singular_matrices_is_the_adjugate_or_zero(x64):
    rank2 = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.0, 1.0, 5.0]])
    rank1 = np.outer([1.0, 2.0, 3.0], [1.0, -1.0, 2.0])
    for a in (rank2, rank1):
        got = numlir.grad(jnp.linalg.det)(a)
        want = jax.grad(jnp_ref.linalg.det)(a)
        assert_close(got, want, np.float64)
    assert np.abs(np.asarray(numlir.grad(jnp.linalg.det)(rank2))).max() > 1


def test_solve_gradient_matches_numerical_differences(x64):
    a = (rand((4, 4), np.float64, 11) + 3 * np.eye(4)).astype(np.float64)
    b = rand((4,), np.float64, 12)
    da = rand((4, 4), np.float64, 13)
    _, tangent = numlir.jvp(lambda x: jnp.linalg.solve(x, b), (a,), (da,))
    h = 1e-6
    numeric = (np.linalg.solve(a + h * da, b) - np.linalg.solve(a - h * da, b)) / (2 * h)
    np.testing.assert_allclose(np.asarray(tangent), numeric, atol=1e-7)


def test_vmap_of_the_library_primitives():
    a = hermitian_positive(3, np.float32, (5,))
    b = rand((5, 3, 2), np.float32)
    got = numlir.vmap(jnp.linalg.cholesky)(a)
    assert_close(got, np.linalg.cholesky(a), np.float32, factor=3)
    got = numlir.vmap(jnp.linalg.solve, in_axes=(0, None))(a, b[0])
    assert_close(got, np.linalg.solve(a, np.broadcast_to(b[0], (5, 3, 2))), np.float32, 10)
    got = numlir.vmap(lambda x: nl_linalg.lu(x)[2])(a)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(jax.vmap(
        lambda x: jax_linalg.lu(x)[2])(a)))


# --- FFT --------------------------------------------------------------------------------------


@pytest.mark.parametrize("fn,shape,kwargs", [
    ("fft", (3, 64), {}), ("ifft", (2, 45), {}), ("fft", (4, 4093), {}), ("fft", (1,), {}),
    ("fft2", (2, 6, 10), {}), ("fftn", (2, 3, 5, 7), {}), ("ifftn", (3, 4, 6), {}),
    ("rfft", (3, 17), {}), ("rfft", (2, 64), {}), ("irfft", (3, 9), {"n": 16}),
    ("irfft", (2, 9), {"n": 17}), ("rfft2", (2, 6, 9), {}), ("irfftn", (2, 6, 5), {}),
    ("rfftn", (2, 4, 6, 8), {}), ("irfft2", (3, 4, 5), {"s": (4, 8)}),
])
@pytest.mark.parametrize("precision", ["single", "double"])
def test_fft_matches_numpy_and_the_composite(request, fn, shape, kwargs, precision):
    if precision == "double":
        request.getfixturevalue("x64")
    real_input = fn.startswith("rfft")
    dtype = {("single", True): np.float32, ("single", False): np.complex64,
             ("double", True): np.float64, ("double", False): np.complex128}[
                 (precision, real_input)]
    x = rand(shape, dtype, seed=14)
    ours = lambda v: getattr(jnp.fft, fn)(v, **kwargs)  # noqa: E731
    library, composite = both_paths(ours, x)
    want = getattr(np.fft, fn)(x, **kwargs)
    factor = 10 * np.log2(max(shape[-1], 2))
    assert_close(library, want.astype(np.asarray(library).dtype), dtype, factor)
    assert_close(library, composite, dtype, factor)


def test_fft_propagates_nan_and_inf_row_by_row():
    x = rand((3, 16), np.complex64)
    x[1, 5] = np.nan
    x[2, 0] = np.inf
    got = np.asarray(numlir.jit(jnp.fft.fft)(x))
    assert np.isnan(got[1]).all()
    assert not np.isfinite(got[2]).any()
    np.testing.assert_allclose(got[0], np.fft.fft(x[0]), atol=1e-4)


def test_fft_of_signed_zeros_and_tiny_and_huge_values_matches_numpy(x64):
    x = np.array([[0.0, -0.0, 0.0, -0.0], [1e-300, -1e-300, 1e-310, 0.0],
                  [1e300, 1e300, -1e300, 1e300]], np.float64)
    got = np.asarray(numlir.jit(jnp.fft.rfft)(x))
    want = np.fft.rfft(x)
    np.testing.assert_allclose(got, want, rtol=1e-14, atol=0)


def test_fft_gradient_is_the_same_on_both_paths(x64):
    x = rand((4, 12), np.float64, seed=15)
    w = rand((4, 7), np.complex128, seed=16)
    loss = lambda v: jnp.sum(jnp.abs(jnp.fft.rfft(v) * w) ** 2)  # noqa: E731
    library, composite = both_paths(numlir.grad(loss), x)
    want = jax.grad(lambda v: jnp_ref.sum(jnp_ref.abs(jnp_ref.fft.rfft(v) * w) ** 2))(x)
    assert_close(library, composite, np.float64, factor=100)
    assert_close(library, want, np.float64, factor=100)


# --- The runtime side ---------------------------------------------------------------------------


def _run(code: str, **env) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, env={**os.environ, "JAX_PLATFORMS": "cpu", **env},
                          timeout=600)


def test_without_lapack_the_cpu_compiles_the_portable_program_and_loading_a_lapack_call_fails(
        tmp_path):
    saved = tmp_path / "cholesky.nlexe"
    a = hermitian_positive(3, np.float32)
    numlir.jit(jnp.linalg.cholesky).lower(a).compile().save(str(saved))
    result = _run(f"""
        import numpy as np, numlir, numlir.numpy as jnp
        from numlir._src.backends import cpu_libraries
        assert "lapack.potrf" not in cpu_libraries.available_routines()
        assert "numlir.fft" in cpu_libraries.available_routines()
        print(cpu_libraries.unavailable_reason("lapack.potrf"))
        a = np.array({a.tolist()!r}, np.float32)
        f = numlir.jit(jnp.linalg.cholesky)
        assert "custom_call" not in f.lower(a).as_text()
        np.testing.assert_allclose(np.asarray(f(a)), np.linalg.cholesky(a), atol=1e-5)
        try:
            numlir.load_executable({str(saved)!r})(a)
        except Exception as e:
            print(type(e).__name__, e)
        """, NUMLIR_LAPACK=str(tmp_path / "no-lapack.so"))
    assert result.returncode == 0, result.stderr
    assert "no-lapack.so: cannot open shared object file" in result.stdout
    assert "calls 'lapack.potrf': no LAPACK library could be loaded" in result.stdout


def test_a_library_without_ilp64_lapack_is_refused(tmp_path):
    result = _run("""
        from numlir import _runtime
        print(_runtime.library_routine_available("lapack.getrf"))
        """, NUMLIR_LAPACK="libm.so.6")
    assert result.returncode == 0, result.stderr
    assert "'libm.so.6' has no ILP64 LAPACK (neither scipy_dpotrf_64_ nor dpotrf_64_)" in \
        result.stdout


def test_an_unknown_routine_is_named():
    from numlir import _runtime
    assert _runtime.library_routine_available("lapack.potri") == \
        "no library routine 'lapack.potri'"
